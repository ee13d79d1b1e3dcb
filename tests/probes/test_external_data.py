from __future__ import annotations


import numpy as np
import onnx
from onnx import helper, numpy_helper

from diagnoser.model.weights import resolve
from tests.fixtures.build_broken_models import F, model, vi
from tests.probes.conftest import codes, run


def test_missing_file(case):
    assert "external-data.missing-file" in codes(case("external-missing"))


def test_escaping_location_is_refused_and_no_session_is_made(case, tmp_path):
    path = case("external-escapes")
    (path.parent.parent / "secret.bin").write_bytes(b"\0" * 64)
    report = run(path, probes="all")
    found = {f.code for f in report.findings}
    assert "external-data.escapes-folder" in found and "checker.invalid" not in found
    assert "session.skipped" in found and "session.ok" not in found


def test_truncated_file(case):
    assert "external-data.truncated" in codes(case("external-truncated"))


def test_complete_external_data_is_reported_as_present(tmp_path):
    w = numpy_helper.from_array(np.ones((64, 64), dtype=np.float32), "w")
    m = model([helper.make_node("Add", ["x", "w"], ["y"], name="add")], [vi("x", F, [64, 64])], [vi("y", F, [64, 64])], [w])
    onnx.save_model(m, tmp_path / "m.onnx", save_as_external_data=True, location="m.data", size_threshold=0)
    report = run(tmp_path / "m.onnx", probes="all")
    found = {f.code for f in report.findings}
    assert "external-data.present" in found and "session.ok" in found
    assert "checker.invalid" not in found  # the checker resolves data files from the model's folder
    assert not [c for c in found if c.startswith("external-data.") and c != "external-data.present"]


def test_inline_model_has_no_external_finding(good_model):
    assert not [c for c in codes(good_model) if c.startswith("external-data.")]


def test_resolve_refuses_absolute_parent_and_symlinks(tmp_path):
    (tmp_path / "out.bin").write_bytes(b"x")
    inner = tmp_path / "m"
    inner.mkdir()
    (inner / "link.bin").symlink_to(tmp_path / "out.bin")
    (inner / "ok.bin").write_bytes(b"x")
    assert resolve(inner, "/etc/passwd") is None
    assert resolve(inner, "../out.bin") is None
    assert resolve(inner, "sub/../../out.bin") is None
    assert resolve(inner, "link.bin") is None
    assert resolve(inner, "ok.bin") == (inner / "ok.bin").resolve()

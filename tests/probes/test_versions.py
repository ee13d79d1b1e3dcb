from __future__ import annotations

import pytest

from diagnoser import diagnose
from diagnoser.model.datafiles import parse_version, row_for
from tests.models import runtime_limits, save
from tests.fixtures.build_broken_models import unary, F
from tests.probes.conftest import codes


@pytest.mark.parametrize("name,code", [
    ("opset-too-new", "opset.newer-than-runtime"),
    ("ir-too-new", "ir.newer-than-runtime"),
    ("ir-newer-than-onnx", "version.newer-than-onnx"),
    ("opset-too-old", "opset.older-than-runtime"),
])
def test_version_problems(case, name, code):
    assert code in codes(case(name))


def test_installed_limits_come_from_the_runtime(tmp_path):
    """The newest IR and opset the installed runtime loads give no finding; one more does."""
    max_ir, max_op = runtime_limits()
    at_limit = save(unary("Relu", F, opset=max_op, ir=max_ir), tmp_path / "at.onnx")
    assert not [c for c in codes(at_limit) if c.endswith("-than-runtime")]
    past = save(unary("Relu", F, opset=max_op + 1, ir=max_ir + 1), tmp_path / "past.onnx")
    found = {f.code: f for f in diagnose(model=past, probes="static").findings}
    assert found["ir.newer-than-runtime"].details["max_ir_version"] == max_ir
    assert found["opset.newer-than-runtime"].details["max_opset"] == max_op


def test_target_runtime(case):
    assert "opset.newer-than-target" in codes(case("opset-newer-than-target"), ort_version="1.17")
    assert "ir.newer-than-target" in codes(case("ir-newer-than-target"), ort_version="1.14")


def test_target_rows_measured_for_1_31_and_1_32(tmp_path):
    """IR 14 / opset 27 is too new for 1.31 (measured row) and fine for 1.32."""
    m = save(unary("Relu", F, opset=27, ir=14), tmp_path / "m.onnx")
    old = codes(m, ort_version="1.31")
    assert {"ir.newer-than-target", "opset.newer-than-target"} <= old
    assert not [c for c in codes(m, ort_version="1.32") if c.endswith("-than-target")]


def test_release_past_the_table_is_said_not_predicted(tmp_path):
    m = save(unary("Relu", F, opset=27, ir=14), tmp_path / "m.onnx")
    report = diagnose(model=m, probes="static", ort_version="9.0")
    found = {f.code: f for f in report.findings}
    assert "version.past-table" in found
    assert "9.0" in found["version.past-table"].message
    assert not [c for c in found if c.endswith("-than-target")]


def test_installed_release_as_target_uses_its_measured_limits(tmp_path):
    import onnxruntime as ort

    max_ir, max_op = runtime_limits()
    m = save(unary("Relu", F, opset=max_op, ir=max_ir), tmp_path / "m.onnx")
    assert not [c for c in codes(m, ort_version=ort.__version__) if c.endswith("-than-target") or c == "version.past-table"]


def test_current_model_has_no_version_finding(good_model):
    found = codes(good_model, ort_version="1.17")
    assert not [c for c in found if c.startswith(("ir.", "opset.", "version."))]


def test_table_rows():
    assert row_for("onnxruntime", "1.17.3")[1] == {"ir": 9, "opset": 20}
    assert row_for("onnxruntime", "1.32.0")[1] == {"ir": 14, "opset": 28}
    assert row_for("onnxruntime", "1.0") is None
    assert parse_version("1.24.0.dev20261026") == (1, 24, 0)


def test_measured_limits_outrank_the_table(tmp_path, monkeypatch):
    """A runtime that reads more than its table row says (a nightly, a custom build) is believed."""
    import dataclasses

    from diagnoser.model import runtime

    real = runtime.snapshot()
    wider = dataclasses.replace(real, max_ir=real.max_ir + 3, max_opset=real.max_opset + 3)
    monkeypatch.setattr(runtime, "snapshot", lambda live=False: wider)
    m = save(unary("Relu", F, opset=real.max_opset + 2, ir=real.max_ir + 2), tmp_path / "m.onnx")
    assert not [c for c in codes(m) if c.endswith("-than-runtime")]

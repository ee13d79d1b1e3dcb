from __future__ import annotations

from tests.probes.conftest import codes, run


def test_unsorted_graph_is_invalid(case):
    report = run(case("checker-order"))
    f = next(f for f in report.findings if f.code == "checker.invalid")
    assert "topologically sorted" in f.details["error_text"]


def test_valid_model_passes(good_model):
    assert "checker.invalid" not in codes(good_model)


def _external_model(tmp_path, nodes=None):
    import numpy as np
    import onnx
    from onnx import helper, numpy_helper

    from tests.fixtures.build_broken_models import F, model, vi

    w = numpy_helper.from_array(np.ones((32, 32), dtype=np.float32), "w")
    nodes = nodes or [helper.make_node("Add", ["x", "w"], ["y"], name="add")]
    m = model(nodes, [vi("x", F, [32, 32])], [vi("y", F, [32, 32])], [w])
    onnx.save_model(m, tmp_path / "m.onnx", save_as_external_data=True, location="m.data", size_threshold=0)
    return tmp_path / "m.onnx"


def test_external_data_model_is_checked_without_reading_files_or_changing_directory(tmp_path, monkeypatch):
    import os

    path = _external_model(tmp_path)
    (tmp_path / "m.data").unlink()  # the data file is gone: the external_data probe says so, not the checker
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    found = codes(path)
    assert "external-data.missing-file" in found and "checker.invalid" not in found
    assert os.getcwd() == str(elsewhere)


def test_external_data_model_with_a_broken_graph_is_still_invalid(tmp_path):
    from onnx import helper

    nodes = [helper.make_node("Relu", ["t"], ["y"], name="late"), helper.make_node("Add", ["x", "w"], ["t"], name="early")]
    report = run(_external_model(tmp_path, nodes))
    f = next(f for f in report.findings if f.code == "checker.invalid")
    assert "topologically sorted" in f.details["error_text"]
    assert "external-data.present" in {x.code for x in report.findings}

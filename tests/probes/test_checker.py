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


def _with_ops(tmp_path, *ops):
    """An opset-8 chain of the given ops (the checker calls them experimental and only warns)."""
    from onnx import helper

    from tests.fixtures.build_broken_models import F, model, save, vi

    attrs = {"ImageScaler": {"scale": 0.5, "bias": [1.0, 2.0, 3.0]}, "ATen": {"operator": "relu"}, "ScaledTanh": {"alpha": 1.0, "beta": 1.0}}
    names = ["x"] + [f"t{i}" for i in range(len(ops))]
    nodes = [helper.make_node(op, [names[i]], [names[i + 1]], name=f"n{i}", **attrs.get(op, {})) for i, op in enumerate(ops)]
    m = model(nodes, [vi("x", F, [1, 3, 4, 4])], [vi(names[-1], F, [1, 3, 4, 4])], opset=8)
    return save(m, tmp_path / "m.onnx")


def test_removed_experimental_ops_are_a_finding_with_the_ops_onnxruntime_still_runs(tmp_path):
    report = run(_with_ops(tmp_path, "ImageScaler", "ScaledTanh"))
    f = next(f for f in report.findings if f.code == "checker.experimental-ops")
    assert f.severity == "warning" and f.details["ops"] == ["ImageScaler", "ScaledTanh"]
    from diagnoser.model import kernels  # the installed onnxruntime says which it still runs, not a list of ours

    assert set(f.details["cpu_kernels"]) == {op for op in ("ImageScaler", "ScaledTanh")
                                             if ("", op) in kernels.registry()}
    assert "checker.experimental-aten" not in codes(tmp_path / "m.onnx") and "checker.invalid" not in codes(tmp_path / "m.onnx")


def test_aten_nodes_are_told_apart_from_removed_ops(tmp_path):
    found = {f.code: f for f in run(_with_ops(tmp_path, "ATen", "ImageScaler")).findings}
    assert found["checker.experimental-ops"].details["ops"] == ["ImageScaler"]
    assert found["checker.experimental-aten"].severity == "error"  # no inference build has an ATen kernel


def test_standard_model_has_no_experimental_finding(good_model):
    assert not {c for c in codes(good_model) if c.startswith("checker.experimental")}


def test_the_checkers_printed_warning_stays_out_of_json_output(tmp_path):
    import json
    import subprocess
    import sys

    path = _with_ops(tmp_path, "ImageScaler")
    out = subprocess.run([sys.executable, "-m", "diagnoser", "--model", str(path), "--format", "json", "--probes", "static"],
                         capture_output=True, text=True, timeout=120)
    report = json.loads(out.stdout)  # the C++ checker writes its warning with std::cout: it must not land here
    assert "Model contains experimental ops" not in out.stdout + out.stderr
    assert any(f["code"] == "checker.experimental-ops" for f in report["findings"])

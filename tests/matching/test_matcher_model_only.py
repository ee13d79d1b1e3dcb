"""Model evidence alone (no error text) predicts a provider's entry only for a provider that was
asked for: a model whose shapes inference cannot fill is no TensorRT problem on a CPU session."""
from __future__ import annotations

from onnx import helper

from diagnoser import diagnose
from tests.fixtures.build_broken_models import F, model, save, vi


def _untyped(tmp_path):
    # shape inference has no schema for a removed experimental op: its output gets no shape
    nodes = [helper.make_node("ImageScaler", ["x"], ["s"], name="scaler", scale=0.5, bias=[1.0, 2.0, 3.0]),
             helper.make_node("Relu", ["s"], ["y"], name="relu")]
    return save(model(nodes, [vi("x", F, [1, 3, 4, 4])], [vi("y", F, [1, 3, 4, 4])], opset=8), tmp_path / "m.onnx")


def _ranked(report):
    return [c.id for c in (*report.diagnoses, *report.candidates)]


def test_missing_shapes_do_not_suggest_tensorrt_when_nobody_asked_for_it(tmp_path):
    report = diagnose(model=_untyped(tmp_path), probes="static")
    assert "shape.missing" in {f.code for f in report.findings}
    assert "OT0310" not in _ranked(report)


def test_missing_shapes_suggest_tensorrt_when_it_is_the_provider(tmp_path):
    path = _untyped(tmp_path)
    assert "OT0310" in _ranked(diagnose(model=path, probes="static", providers=["TensorrtExecutionProvider"]))
    assert "OT0310" in _ranked(diagnose(text="building the TensorRT engine failed", model=path, probes="static"))

from __future__ import annotations

from onnx import helper

from tests.fixtures.build_broken_models import F, model, save, vi
from tests.probes.conftest import codes, run


def test_contradicting_shapes(case):
    assert "shape.inference-error" in codes(case("shape-contradiction"))


def test_dynamic_inputs_are_listed(case):
    report = run(case("dynamic-on-tensorrt"))
    f = next(f for f in report.findings if f.code == "shape.dynamic-inputs")
    assert f.details["inputs"] == {"x": "batchx3xheightxwidth"}


def test_custom_op_leaves_values_without_shape(tmp_path):
    nodes = [helper.make_node("FancyOp", ["x"], ["t"], name="fancy", domain="my.ops"), helper.make_node("Relu", ["t"], ["y"], name="relu")]
    m = model(nodes, [vi("x", F, [2])], [vi("y", F, [2])], domains={"my.ops": 1})
    report = run(save(m, tmp_path / "m.onnx"))
    f = next(f for f in report.findings if f.code == "shape.missing")
    assert f.details["values"] == ["t"]


def test_static_valid_model_has_no_shape_finding(good_model):
    assert not [c for c in codes(good_model) if c.startswith("shape.")]

from __future__ import annotations

import re
import warnings

import onnx
import pytest
from onnx import helper

from diagnoser.model import kernels
from tests.fixtures.build_broken_models import F, model, save, vi
from tests.models import ort_error
from tests.probes.conftest import codes, run


def _node_test(name: str, tmp_path):
    from onnx.backend.test.case.node import collect_testcases

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        found = [c for c in collect_testcases(None) if c.name == name]
    if not found:
        pytest.skip(f"onnx {onnx.__version__} has no node test {name}")
    return save(found[0].model, tmp_path / "m.onnx")


def _leaky(tmp_path):
    node = helper.make_node("LeakyRelu", ["x"], ["y"], name="leaky", alpha=0.2)
    return save(model([node], [vi("x", F, [2])], [vi("y", F, [2])]), tmp_path / "m.onnx")


def test_an_attribute_missing_from_the_runtime_schema_copy_is_found(tmp_path, monkeypatch):
    """A runtime whose schema copy of LeakyRelu has no attributes, as an older onnx release would."""
    real = kernels.runtime_schemas()
    fake = {**real, ("", "LeakyRelu"): ((6, frozenset()), (16, frozenset()))}
    monkeypatch.setattr(kernels, "runtime_schemas", lambda: fake)
    f = next(f for f in run(_leaky(tmp_path)).findings if f.code == "node.attribute-unknown-to-runtime")
    assert f.node == "leaky" and f.details["attributes"] == ["alpha"]
    assert 'Unrecognized attribute: alpha for operator LeakyRelu' in f.message


def test_the_real_schema_copy_knows_leakyrelu_alpha(tmp_path):
    assert kernels.runtime_schema("", "LeakyRelu", 17) is not None
    assert "node.attribute-unknown-to-runtime" not in codes(_leaky(tmp_path))


@pytest.mark.parametrize("name", ["test_attention_local_window", "test_attention_3d"])
def test_prediction_agrees_with_a_real_session(name, tmp_path):
    """onnx's own node tests: the window attributes are newer than onnxruntime's schema copy (or not)."""
    path = _node_test(name, tmp_path)
    error = ort_error(path)
    if "IR version" in error or "opset" in error:
        pytest.skip(f"onnxruntime does not read this model's IR/opset: {error[:120]}")
    f = next((f for f in run(path).findings if f.code == "node.attribute-unknown-to-runtime"), None)
    assert (f is not None) == ("Unrecognized attribute" in error), (error, f)
    if f is not None:
        assert re.search(r"Unrecognized attribute: (\w+)", error).group(1) in f.details["attributes"]


def test_a_preview_op_the_runtime_does_not_register_is_unknown_to_it(tmp_path):
    path = _node_test("test_flexattention", tmp_path)
    error = ort_error(path)
    if "IR version" in error or "opset" in error:
        pytest.skip(f"onnxruntime does not read this model's IR/opset: {error[:120]}")
    assert ("domain.custom-op" in codes(path)) == ("is not a registered function/op" in error)

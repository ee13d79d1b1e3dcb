"""opset-convert (OT0200, OT0201, OT0202): up from opset 6, down to an older runtime, IR stamp."""
from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto as TP
from onnx import helper, numpy_helper

from tests.remedies.builders import digest, model, run, save, vi
from tests.remedies.conftest import record


S = np.array([2.0, 0.5, 1.0], np.float32)


def _opset6(tmp_path, legacy_broadcast=False):
    s = S if legacy_broadcast else np.broadcast_to(S.reshape(1, 3, 1, 1), (1, 3, 2, 2)).copy()
    c = [numpy_helper.from_array(np.array(v, np.float32), n) for n, v in
         (("s", s), ("scale", [1.0, 2.0, 0.5]), ("b", [0.1, 0.0, -0.1]), ("mean", [0.2, 0.1, 0.0]), ("var", [1.0, 4.0, 0.25]))]
    mul = {"broadcast": 1, "axis": 1} if legacy_broadcast else {}
    nodes = [helper.make_node("Mul", ["x", "s"], ["m"], **mul),
             helper.make_node("BatchNormalization", ["m", "scale", "b", "mean", "var"], ["bn"], is_test=1, epsilon=1e-5),
             helper.make_node("Relu", ["bn"], ["y"])]
    m = model(nodes, [vi("x", TP.FLOAT, [1, 3, 2, 2])], [vi("y", TP.FLOAT, [1, 3, 2, 2])], c, opset=6, ir=3)
    return save(m, tmp_path / "old.onnx")


def test_opset6_model_converted_up(tmp_path, fixit):
    src = _opset6(tmp_path)
    before = digest(src)
    with pytest.raises(Exception, match="NOT_IMPLEMENTED|not implemented|Could not find"):
        run(src, {"x": np.ones((1, 3, 2, 2), np.float32)})
    rep = fixit(src, "opset-convert")
    r = record(rep, "opset-convert")
    assert r.status == "applied", r.message
    assert r.changes[0].detail == "opset 6 -> 13"
    fixed = onnx.load(rep.fixes.output)
    assert fixed.opset_import[0].version == 13 and fixed.ir_version >= 7
    x = np.random.default_rng(0).standard_normal((1, 3, 2, 2)).astype(np.float32)
    (y,) = run(rep.fixes.output, {"x": x})
    s, scale, b, mean, var = (np.array(v, np.float32).reshape(1, 3, 1, 1) for v in
                              ([2.0, 0.5, 1.0], [1.0, 2.0, 0.5], [0.1, 0.0, -0.1], [0.2, 0.1, 0.0], [1.0, 4.0, 0.25]))
    want = np.maximum((x * s - mean) / np.sqrt(var + 1e-5) * scale + b, 0)
    np.testing.assert_allclose(y, want, rtol=1e-5, atol=1e-6)
    assert digest(src) == before


def test_converter_mistake_is_caught_and_nothing_written(tmp_path, fixit):
    """onnx 1.23's adapter turns Mul(6)'s axis=1 broadcast of a [3] tensor into an Unsqueeze to
    [3,1,1,1], which broadcasts to [3,3,2,2]: the verification refuses the result."""
    src = _opset6(tmp_path, legacy_broadcast=True)
    rep = fixit(src, "opset-convert")
    r = record(rep, "opset-convert")
    if r.status == "applied":  # a fixed converter: then the numbers must be right
        x = np.ones((1, 3, 2, 2), np.float32)
        assert run(rep.fixes.output, {"x": x})[0].shape == (1, 3, 2, 2)
        return
    assert r.status == "failed" and "checker" in r.message and "differ" in r.message
    assert rep.fixes.output is None and sorted(p.name for p in tmp_path.iterdir()) == ["old.onnx"]


def _opset21(tmp_path):
    axes = numpy_helper.from_array(np.array([1], np.int64), "axes")
    nodes = [helper.make_node("ReduceMean", ["x", "axes"], ["r"], keepdims=1), helper.make_node("Sub", ["x", "r"], ["y"])]
    return save(model(nodes, [vi("x", TP.FLOAT, [2, 4])], [vi("y", TP.FLOAT, [2, 4])], [axes], opset=21, ir=10), tmp_path / "new.onnx")


def test_converted_down_to_the_target_runtime(tmp_path, fixit):
    src = _opset21(tmp_path)
    rep = fixit(src, "opset-convert", ort_version="1.14")  # its table row: opset 18, IR 8
    r = record(rep, "opset-convert")
    assert r.status == "applied", r.message
    fixed = onnx.load(rep.fixes.output)
    assert fixed.opset_import[0].version == 18 and fixed.ir_version <= 8
    assert r.verification.reference == "onnxruntime" and all(o.ok for o in r.verification.outputs)
    x = np.arange(8, dtype=np.float32).reshape(2, 4)
    np.testing.assert_allclose(run(rep.fixes.output, {"x": x})[0], x - x.mean(1, keepdims=True), atol=1e-6)


def test_ir_stamp_only(tmp_path, fixit):
    node = helper.make_node("Relu", ["x"], ["y"])
    src = save(model([node], [vi("x", TP.FLOAT, [3])], [vi("y", TP.FLOAT, [3])], opset=13, ir=10), tmp_path / "m.onnx")
    rep = fixit(src, "opset-convert", ort_version="1.10")  # opset 15, IR 8
    r = record(rep, "opset-convert")
    assert [c.kind for c in r.changes] == ["ir_version"] and r.status == "applied"
    assert onnx.load(rep.fixes.output).ir_version == 8
    assert r.verification.tolerance == "float32" and r.verification.outputs[0].max_abs == 0.0


def test_no_adapter_is_named(tmp_path, fixit):
    node = helper.make_node("GroupNormalization", ["x", "s", "b"], ["y"], num_groups=1)
    inits = [numpy_helper.from_array(np.ones(2, np.float32), "s"), numpy_helper.from_array(np.zeros(2, np.float32), "b")]
    src = save(model([node], [vi("x", TP.FLOAT, [1, 2, 3])], [vi("y", TP.FLOAT, [1, 2, 3])], inits, opset=21, ir=10), tmp_path / "g.onnx")
    rep = fixit(src, "opset-convert", ort_version="1.14")
    r = record(rep, "opset-convert")
    assert r.status == "failed" and rep.fixes.output is None
    assert r.message.startswith("onnx.version_converter cannot take opset 21 to 18: ")
    assert "GroupNormalization" in r.message and ".h:" not in r.message

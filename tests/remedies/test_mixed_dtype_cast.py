"""mixed-dtype-cast: the int32-weights-meet-float16-bias Add (OT0002)."""
from __future__ import annotations

import numpy as np
import onnxruntime as ort
import pytest
from onnx import TensorProto as TP
from onnx import helper

from tests.remedies.builders import digest, model, run, save, vi
from tests.remedies.conftest import record


def _add(values: list[int]):
    bias = helper.make_tensor("bias", TP.INT32, [4], values)
    node = helper.make_node("Add", ["hidden", "bias"], ["out"], name="/q_proj/Add")
    return model([node], [vi("hidden", TP.FLOAT16, [1, 4])], [vi("out", TP.FLOAT16, [1, 4])], [bias], opset=14)


def test_exact_cast_is_safe_and_runs(tmp_path, fixit):
    src = save(_add([3, -4, 2048, 0]), tmp_path / "m.onnx")
    before = digest(src)
    with pytest.raises(Exception):
        ort.InferenceSession(str(src), providers=["CPUExecutionProvider"])
    rep = fixit(src, "mixed-dtype-cast")
    r = record(rep, "mixed-dtype-cast")
    assert r.status == "applied" and r.grade == "safe"
    assert [c.kind for c in r.changes] == ["node-added"]
    out = tmp_path / "m.fixed.onnx"
    assert rep.fixes.output == str(out) and digest(src) == before
    x = np.array([[1.5, 2.0, -3.0, 0.25]], np.float16)
    (y,) = run(out, {"hidden": x})
    assert y.dtype == np.float16
    np.testing.assert_array_equal(y, x + np.array([3, -4, 2048, 0], np.float16))
    # the original runs nowhere (onnxruntime and onnx.reference refuse it): no comparison claimed
    assert r.verification.reference is None and r.verification.passed


def test_inexact_cast_without_reference_writes_nothing(tmp_path, fixit):
    src = save(_add([2049, 1, 1, 1]), tmp_path / "m.onnx")  # 2049 is not a float16
    rep = fixit(src, "mixed-dtype-cast")
    r = record(rep, "mixed-dtype-cast")
    assert r.grade == "numerics" and r.status == "failed"
    assert "could not be compared" in r.message
    assert rep.fixes.output is None and not (tmp_path / "m.fixed.onnx").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.onnx"]  # no temporary file left behind


def test_single_dtype_model_needs_nothing(tmp_path, fixit):
    node = helper.make_node("Add", ["a", "b"], ["y"])
    src = save(model([node], [vi("a", TP.FLOAT, [2]), vi("b", TP.FLOAT, [2])], [vi("y", TP.FLOAT, [2])]), tmp_path / "m.onnx")
    r = record(fixit(src, "mixed-dtype-cast"), "mixed-dtype-cast")
    assert r.status == "not-needed" and not (tmp_path / "m.fixed.onnx").exists()

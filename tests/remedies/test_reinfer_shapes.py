"""reinfer-shapes (OT0150, OT0155): a stale value_info and output shape, and unsorted nodes."""
from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto as TP
from onnx import helper

from tests.remedies.builders import model, run, save, vi
from tests.remedies.conftest import record


def test_stale_shapes_removed_and_reinferred(tmp_path, fixit):
    nodes = [helper.make_node("Transpose", ["x"], ["t"], perm=[1, 0]), helper.make_node("Relu", ["t"], ["y"])]
    m = model(nodes, [vi("x", TP.FLOAT, [2, 3])], [vi("y", TP.FLOAT, [2, 3])], value_info=[vi("t", TP.FLOAT, [2, 3])])
    src = save(m, tmp_path / "m.onnx")
    with pytest.raises(Exception, match="differ"):
        onnx.checker.check_model(str(src), full_check=True)
    rep = fixit(src, "reinfer-shapes")
    r = record(rep, "reinfer-shapes")
    assert r.status == "applied", r.message
    assert {c.kind for c in r.changes} == {"value_info", "output"}
    fixed = onnx.load(rep.fixes.output)
    assert [d.dim_value for d in fixed.graph.output[0].type.tensor_type.shape.dim] == [3, 2]
    assert r.verification.checker == "ok" and r.verification.reference == "onnxruntime"
    assert r.verification.outputs[0].max_abs == 0.0 and r.verification.tolerance == "exact"
    x = np.arange(6, dtype=np.float32).reshape(2, 3) - 2
    np.testing.assert_array_equal(run(rep.fixes.output, {"x": x})[0], np.maximum(x.T, 0))


def test_unsorted_nodes_sorted(tmp_path, fixit):
    nodes = [helper.make_node("Relu", ["t"], ["y"]), helper.make_node("Neg", ["x"], ["t"])]
    src = save(model(nodes, [vi("x", TP.FLOAT, [3])], [vi("y", TP.FLOAT, [3])]), tmp_path / "m.onnx")
    with pytest.raises(Exception, match="topological"):
        onnx.checker.check_model(str(src))
    rep = fixit(src, "reinfer-shapes")
    r = record(rep, "reinfer-shapes")
    assert r.status == "applied" and r.changes[0].detail == "2 nodes sorted topologically"
    assert [n.op_type for n in onnx.load(rep.fixes.output).graph.node] == ["Neg", "Relu"]
    # the original loads nowhere (onnxruntime refuses unsorted graphs too? then no reference)
    x = np.array([1.0, -2.0, 3.0], np.float32)
    np.testing.assert_array_equal(run(rep.fixes.output, {"x": x})[0], np.maximum(-x, 0))


def test_consistent_model_needs_nothing(tmp_path, fixit):
    src = save(model([helper.make_node("Relu", ["x"], ["y"])], [vi("x", TP.FLOAT, [2])], [vi("y", TP.FLOAT, [2])]), tmp_path / "m.onnx")
    assert record(fixit(src, "reinfer-shapes"), "reinfer-shapes").status == "not-needed"

"""fixed-shapes (OT0340, OT0341): dynamic input shapes made static from --shape."""
from __future__ import annotations

import numpy as np
import onnx
from onnx import TensorProto as TP
from onnx import helper

from tests.remedies.builders import model, run, save, vi
from tests.remedies.conftest import record


def _dynamic(tmp_path):
    nodes = [helper.make_node("Relu", ["x"], ["y"])]
    return save(model(nodes, [vi("x", TP.FLOAT, ["batch", 3, "h", "w"])], [vi("y", TP.FLOAT, ["batch", 3, "h", "w"])]), tmp_path / "m.onnx")


def test_shapes_fixed_from_the_given_shapes(tmp_path, fixit):
    src = _dynamic(tmp_path)
    rep = fixit(src, "fixed-shapes", unsafe=True, shapes={"x": [1, 3, 8, 8]})
    r = record(rep, "fixed-shapes")
    assert r.status == "applied", r.message
    fixed = onnx.load(rep.fixes.output)
    assert [d.dim_value for d in fixed.graph.input[0].type.tensor_type.shape.dim] == [1, 3, 8, 8]
    assert r.verification.shapes == {"x": [1, 3, 8, 8]} and r.verification.outputs[0].max_abs == 0.0
    x = np.random.default_rng(0).standard_normal((1, 3, 8, 8)).astype(np.float32)
    np.testing.assert_array_equal(run(rep.fixes.output, {"x": x})[0], np.maximum(x, 0))


def test_without_shapes_says_which_are_missing(tmp_path, fixit):
    src = _dynamic(tmp_path)
    r = record(fixit(src, "fixed-shapes", unsafe=True), "fixed-shapes")
    assert r.status == "failed" and "--shape" in r.message and "x" in r.message


def test_review_grade_needs_unsafe(tmp_path, fixit):
    src = _dynamic(tmp_path)
    rep = fixit(src, "fixed-shapes", shapes={"x": [1, 3, 8, 8]})
    assert record(rep, "fixed-shapes").status == "needs-unsafe" and rep.fixes.output is None

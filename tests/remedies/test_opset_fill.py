"""opset-fill (OT0213): a hand-built model with no opset_import."""
from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto as TP
from onnx import helper

from tests.remedies.builders import model, run, save, vi
from tests.remedies.conftest import record


def test_missing_opset_filled(tmp_path, fixit):
    nodes = [helper.make_node("Add", ["a", "b"], ["s"]), helper.make_node("Relu", ["s"], ["y"])]
    src = save(model(nodes, [vi("a", TP.FLOAT, [2]), vi("b", TP.FLOAT, [2])], [vi("y", TP.FLOAT, [2])], opset=None), tmp_path / "m.onnx")
    with pytest.raises(Exception):
        run(src, {"a": np.ones(2, np.float32), "b": np.ones(2, np.float32)})
    assert record(fixit(src, "opset-fill"), "opset-fill").status == "needs-unsafe"  # a guess: review
    assert not (tmp_path / "m.fixed.onnx").exists()
    rep = fixit(src, "opset-fill", unsafe=True)
    r = record(rep, "opset-fill")
    assert r.status == "applied" and r.grade == "review", r.message
    fixed = onnx.load(rep.fixes.output)
    [op] = [o for o in fixed.opset_import if o.domain == ""]
    assert op.version >= 14  # the newest opset at which Add and Relu have these versions
    a, b = np.array([1.0, -3.0], np.float32), np.array([0.5, 1.0], np.float32)
    np.testing.assert_array_equal(run(rep.fixes.output, {"a": a, "b": b})[0], np.maximum(a + b, 0))


def test_present_opset_needs_nothing(tmp_path, fixit):
    src = save(model([helper.make_node("Relu", ["x"], ["y"])], [vi("x", TP.FLOAT, [2])], [vi("y", TP.FLOAT, [2])]), tmp_path / "m.onnx")
    assert record(fixit(src, "opset-fill"), "opset-fill").status == "not-needed"

"""Shape constants that may bake an export-time size (diagnoser/model/baked.py)."""
from __future__ import annotations

import numpy as np
from onnx import TensorProto, helper, numpy_helper

from diagnoser.model import baked


def _graph(shape_nodes: list, shape_name: str) -> object:
    nodes = [*shape_nodes, helper.make_node("Reshape", ["x", shape_name], ["y"], name="/attn/Reshape")]
    return helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", "seq", 8])],
                             [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])


def _const(name: str, values: list[int]) -> object:
    return helper.make_node("Constant", [], [name], name=f"/{name}", value=numpy_helper.from_array(np.array(values, dtype=np.int64)))


def test_a_literal_next_to_computed_sizes_is_a_hint():
    nodes = [helper.make_node("Shape", ["x"], ["s"]), _const("idx", [0]), helper.make_node("Gather", ["s", "idx"], ["b"]),
             _const("len", [12]), _const("heads", [2, 4]), helper.make_node("Concat", ["b", "len", "heads"], ["shape"], axis=0)]
    g = _graph(nodes, "shape")
    (sc,) = baked.shape_constants(g)
    assert sc.values == (None, 12, 2, 4) and sc.consumer == "/attn/Reshape" and "/len" in sc.source
    assert baked.size_hints(g)[0] in (12, 2, 4) and 12 in baked.size_hints(g)
    assert [c.consumer for c in baked.holding(g, 12)] == ["/attn/Reshape"]


def test_a_fully_computed_shape_gives_no_hint():
    nodes = [helper.make_node("Shape", ["x"], ["shape"])]
    g = _graph(nodes, "shape")
    assert baked.shape_constants(g) == [] and baked.size_hints(g) == []


def test_view_1_is_a_baked_batch_but_a_plain_flatten_is_not():
    g = _graph([_const("one", [1, -1])], "one")
    assert [c.values for c in baked.holding(g, 1, batch=True)] == [(1, -1)]
    g = _graph([_const("flat", [-1, 16])], "flat")
    assert baked.holding(g, 1, batch=True) == [] and baked.size_hints(g) == []


def test_a_size_limit_with_no_frozen_constant_is_only_a_warning():
    """A model whose dynamic dim fails at another size without a frozen shape constant or a
    failing shape op (a fixed positional table, say) is not claimed as a baked export."""
    from types import SimpleNamespace

    from diagnoser.probes._fixed_size import fixed_size

    g = helper.make_graph([helper.make_node("Add", ["x", "pos"], ["y"], name="/pos/Add")], "g",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", "seq", 8])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
                          [numpy_helper.from_array(np.zeros((1, 64, 8), dtype=np.float32), "pos")])
    ctx = SimpleNamespace(model=SimpleNamespace(proto=helper.make_model(g)))
    rec = {"stage": "vary-failed", "kind": "other", "worked": {"x": [1, 64, 8]}, "shapes": {"x": [1, 128, 8]},
           "error": "Fail: Non-zero status code returned while running Add node. Name:'/pos/Add' Status Message: ... "
                    "Attempting to broadcast an axis by a dimension other than 1. 64 by 128"}
    (f,) = fixed_size(ctx, [rec], {}, {})
    assert f.severity == "warning" and f.node == "/pos/Add" and not f.details["constants"]

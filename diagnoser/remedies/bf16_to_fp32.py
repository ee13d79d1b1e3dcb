"""bfloat16 -> float32 where the runtime has no bfloat16 kernel (OT0001, OT0352).

Weights, Constant values, value_info, Cast targets and dtype attributes become float32 (every
bfloat16 value is exactly a float32, so no weight changes); the model's declared inputs and
outputs keep bfloat16 behind a Cast at the boundary unless keep_io_types is off. Outputs change
by bfloat16 rounding: the body now computes in float32.
"""
from __future__ import annotations

from typing import Any

from diagnoser.remedies import Change, FixContext, RemedyError, RemedyResult

NAME = "bf16-to-fp32"
GRADE = "numerics"
TOLERANCE = "bfloat16"


def _retype_tensor(t: Any, changes: list[Change], what: str) -> None:
    import numpy as np
    from onnx import numpy_helper

    from diagnoser.remedies._util import to_array

    arr = to_array(t).astype(np.float32)
    new = numpy_helper.from_array(arr, t.name)
    t.CopyFrom(new)
    changes.append(Change("initializer", t.name or what, "bfloat16 -> float32"))


def _body(graph: Any, changes: list[Change], top: bool) -> None:
    from onnx import AttributeProto, TensorProto

    BF, F = TensorProto.BFLOAT16, TensorProto.FLOAT
    for t in graph.initializer:
        if t.data_type == BF:
            _retype_tensor(t, changes, "initializer")
    for vi in graph.value_info:
        if vi.type.tensor_type.elem_type == BF:
            vi.type.tensor_type.elem_type = F
            changes.append(Change("value_info", vi.name, "bfloat16 -> float32"))
    if not top:
        for vi in (*graph.input, *graph.output):
            if vi.type.tensor_type.elem_type == BF:
                vi.type.tensor_type.elem_type = F
    for node in graph.node:
        for a in node.attribute:
            if a.type == AttributeProto.INT and a.name in ("to", "dtype") and a.i == BF:
                a.i = F
                changes.append(Change("node-retyped", node.name or node.op_type, f"{node.op_type} {a.name}=bfloat16 -> float32"))
            elif a.type == AttributeProto.TENSOR and a.t.data_type == BF:
                _retype_tensor(a.t, changes, f"{node.op_type} '{node.name}' {a.name}")
            elif a.type == AttributeProto.GRAPH:
                _body(a.g, changes, False)
            elif a.type == AttributeProto.GRAPHS:
                for g in a.graphs:
                    _body(g, changes, False)


def apply(model: Any, ctx: FixContext) -> RemedyResult:
    from onnx import TensorProto, helper

    from diagnoser.remedies._util import Namer

    fresh = Namer(model)

    BF, F = TensorProto.BFLOAT16, TensorProto.FLOAT
    if model.functions and any(n.attribute for f in model.functions for n in f.node):
        for f in model.functions:
            for n in f.node:
                if any(a.name in ("to", "dtype") and a.i == BF for a in n.attribute):
                    raise RemedyError(f"local function '{f.name}' casts to bfloat16; functions are not rewritten")
    changes: list[Change] = []
    _body(model.graph, changes, True)
    g = model.graph
    inits = {t.name for t in g.initializer}
    head, tail = [], []
    for vi in g.input:
        if vi.name in inits or vi.type.tensor_type.elem_type != BF:
            continue
        if ctx.keep_io_types:
            inner = fresh(f"{vi.name}_fp32")
            for node in g.node:
                for i, name in enumerate(node.input):
                    if name == vi.name:
                        node.input[i] = inner
            for out in g.output:
                if out.name == vi.name:
                    raise RemedyError(f"input '{vi.name}' is also an output; not rewritten")
            head.append(helper.make_node("Cast", [vi.name], [inner], to=F, name=fresh(f"{vi.name}/to_fp32")))
            changes.append(Change("node-added", head[-1].name, f"Cast input '{vi.name}' bfloat16 -> float32 at the boundary"))
        else:
            vi.type.tensor_type.elem_type = F
            changes.append(Change("input", vi.name, "bfloat16 -> float32"))
    for vi in g.output:
        if vi.type.tensor_type.elem_type != BF:
            continue
        if ctx.keep_io_types:
            inner = fresh(f"{vi.name}_fp32")
            for node in g.node:
                for i, name in enumerate(node.output):
                    if name == vi.name:
                        node.output[i] = inner
                for i, name in enumerate(node.input):
                    if name == vi.name:
                        node.input[i] = inner
            tail.append(helper.make_node("Cast", [inner], [vi.name], to=BF, name=fresh(f"{vi.name}/to_bf16")))
            changes.append(Change("node-added", tail[-1].name, f"Cast output '{vi.name}' float32 -> bfloat16 at the boundary"))
        else:
            vi.type.tensor_type.elem_type = F
            changes.append(Change("output", vi.name, "bfloat16 -> float32"))
    if not changes:
        return RemedyResult(model, note="the model holds no bfloat16 tensor")
    nodes = [*head, *g.node, *tail]
    copies = []
    for n in nodes:
        c = type(n)()
        c.CopyFrom(n)
        copies.append(c)
    del g.node[:]
    g.node.extend(copies)
    return RemedyResult(model, changes)

"""One dtype per node (OT0002): insert the Cast a node fed two dtypes on one type parameter needs.

The target is the node's floating dtype (an integer weight meeting a float16 bias is cast to
float16), or the dtype its output declares. When every cast value is an initializer whose values
the target holds exactly, the repair changes no number and is graded safe.
"""
from __future__ import annotations

from typing import Any

from diagnoser.remedies import Change, FixContext, RemedyResult

NAME = "mixed-dtype-cast"
GRADE = "numerics"
TOLERANCE = "float16"


def _params(node: Any, version: int) -> list[str | None]:
    import onnx

    try:
        schema = onnx.defs.get_schema(node.op_type, version, node.domain or "")
    except Exception:
        return []
    formal = list(schema.inputs)
    if not formal:
        return []
    return [formal[min(i, len(formal) - 1)].type_str for i in range(len(node.input))]


def _target(dtypes: set[int], declared: int | None) -> int | None:
    import onnx

    floats = {d for d in dtypes if onnx.helper.tensor_dtype_to_np_dtype(d).kind == "f"}
    if declared in dtypes:
        return declared
    if len(floats) == 1:
        return next(iter(floats))
    return None


def _exact(arr: Any, np_target: Any) -> bool:
    import numpy as np

    with np.errstate(all="ignore"):
        back = arr.astype(np_target).astype(arr.dtype)
    return bool(np.array_equal(back, arr))


def apply(model: Any, ctx: FixContext) -> RemedyResult:
    import onnx
    from onnx import helper

    from diagnoser.remedies._util import Namer, opset, to_array, value_types

    types = value_types(model)
    fresh = Namer(model)
    inits = {t.name: t for t in model.graph.initializer}
    version = opset(model) or 1
    changes, exact, new_nodes = [], True, []
    for node in model.graph.node:
        params = _params(node, version if not node.domain else (opset(model, node.domain) or 1))
        by_param: dict[str, list[int]] = {}
        for i, p in enumerate(params):
            if p and not p.startswith(("tensor(", "seq(")) and node.input[i] and node.input[i] in types:
                by_param.setdefault(p, []).append(i)
        for p, idxs in by_param.items():
            dtypes = {types[node.input[i]] for i in idxs}
            if len(dtypes) < 2:
                continue
            out_param = [o.type_str for o in onnx.defs.get_schema(node.op_type, version, node.domain or "").outputs]
            declared = types.get(node.output[0]) if out_param and out_param[0] == p else None
            target = _target(dtypes, declared)
            if target is None:
                continue
            tname = helper.tensor_dtype_to_string(target).split(".")[-1].lower()
            for i in idxs:
                src = node.input[i]
                if types[src] == target:
                    continue
                if src in inits:
                    exact &= _exact(to_array(inits[src]), helper.tensor_dtype_to_np_dtype(target))
                else:
                    exact = False
                cast_out = fresh(f"{src}_as_{tname}")
                new_nodes.append((node, helper.make_node("Cast", [src], [cast_out], to=target, name=fresh(f"{node.name or node.op_type}/cast_{i}"))))
                node.input[i] = cast_out
                types[cast_out] = target
                changes.append(Change("node-added", new_nodes[-1][1].name, f"Cast {src} to {tname} for {node.op_type} '{node.name}' (input {i})"))
    if not new_nodes:
        return RemedyResult(model, note="no node binds two dtypes to one type parameter")
    _insert_before(model, new_nodes)
    if exact:
        return RemedyResult(model, changes, grade="safe", tolerance="exact", note="every cast value is a weight the target dtype holds exactly")
    return RemedyResult(model, changes)


def _insert_before(model: Any, pairs: list[tuple[Any, Any]]) -> None:
    """Place each Cast right before the node that reads it, keeping the graph sorted."""
    before: dict[int, list[Any]] = {}
    for consumer, cast in pairs:
        before.setdefault(id(consumer), []).append(cast)
    nodes = list(model.graph.node)
    ordered = []
    for n in nodes:
        ordered.extend(before.get(id(n), []))
        ordered.append(n)
    copies = []
    for n in ordered:
        c = type(n)()
        c.CopyFrom(n)
        copies.append(c)
    del model.graph.node[:]
    model.graph.node.extend(copies)

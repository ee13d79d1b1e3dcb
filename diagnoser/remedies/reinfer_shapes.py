"""Stale or contradictory value_info and output shapes removed and re-inferred; nodes sorted
topologically (OT0150, OT0155). Changes no node and no weight: safe."""
from __future__ import annotations

from typing import Any

from diagnoser.remedies import Change, FixContext, RemedyResult

NAME = "reinfer-shapes"
GRADE = "safe"
TOLERANCE = "exact"


def _sorted(graph: Any) -> list[Any] | None:
    """The nodes in a topological order (stable), or None when they already are in one."""
    produced = {o: i for i, n in enumerate(graph.node) for o in n.output if o}
    ready = {v.name for v in graph.input} | {t.name for t in graph.initializer} | {""}
    ok, seen = True, set(ready)
    for n in graph.node:
        if any(i not in seen and i in produced for i in n.input):
            ok = False
            break
        seen.update(n.output)
    if ok:
        return None
    import heapq

    deps = [{produced[i] for i in n.input if i in produced} - {j} for j, n in enumerate(graph.node)]
    users: dict[int, list[int]] = {}
    for j, d in enumerate(deps):
        for k in d:
            users.setdefault(k, []).append(j)
    waiting = [len(d) for d in deps]
    ready = [j for j, w in enumerate(waiting) if w == 0]
    heapq.heapify(ready)  # stable: among ready nodes, the one stored first goes first
    order: list[int] = []
    while ready:
        j = heapq.heappop(ready)
        order.append(j)
        for u in users.get(j, ()):
            waiting[u] -= 1
            if waiting[u] == 0:
                heapq.heappush(ready, u)
    if len(order) < len(graph.node):  # a cycle: leave those nodes in their order at the end
        placed = set(order)
        order += [j for j in range(len(graph.node)) if j not in placed]
    return [graph.node[i] for i in order]


def _conflict(declared: Any, inferred: Any) -> bool:
    """Two shapes that cannot both hold: another rank, or a known dim with another value."""
    if len(declared.dim) != len(inferred.dim):
        return True
    return any(d.HasField("dim_value") and i.HasField("dim_value") and d.dim_value != i.dim_value
               for d, i in zip(declared.dim, inferred.dim))


def _strict_error(model: Any) -> str | None:
    import onnx

    try:
        onnx.shape_inference.infer_shapes(model, check_type=True, strict_mode=True)
    except Exception as exc:
        return str(exc)
    return None


def apply(model: Any, ctx: FixContext) -> RemedyResult:
    import onnx

    changes: list[Change] = []
    g = model.graph
    order = _sorted(g)
    if order is not None:
        copies = []
        for n in order:
            c = onnx.NodeProto()
            c.CopyFrom(n)
            copies.append(c)
        del g.node[:]
        g.node.extend(copies)
        changes.append(Change("node-changed", "graph", f"{len(copies)} nodes sorted topologically"))
    error = _strict_error(model)
    if error and ("differ" in error or "mismatch" in error.lower() or "Inferred" in error):
        stale = len(g.value_info)
        del g.value_info[:]
        if stale:
            changes.append(Change("value_info", "graph", f"{stale} value_info entries removed (re-inferred on load)"))
        probe = onnx.ModelProto()
        probe.CopyFrom(model)
        for out in probe.graph.output:
            out.type.tensor_type.ClearField("shape")
        inferred = {v.name: v for v in onnx.shape_inference.infer_shapes(probe, strict_mode=False).graph.output}
        for out in g.output:
            new = inferred.get(out.name)
            if new is None or not new.type.tensor_type.HasField("shape") or not out.type.tensor_type.HasField("shape"):
                continue
            if _conflict(out.type.tensor_type.shape, new.type.tensor_type.shape):
                out.type.tensor_type.shape.CopyFrom(new.type.tensor_type.shape)
                changes.append(Change("output", out.name, "declared shape contradicted the inferred one: replaced"))
    if not changes:
        return RemedyResult(model, note="nodes are sorted and shape inference agrees with every annotation")
    return RemedyResult(model, changes)

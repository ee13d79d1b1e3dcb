"""Part of the session probe: a declared dynamic dimension that works at one size only.

The session child runs the model again with the batch at 2 and the other dynamic dims at another
size. A failure there is a fact about the model, not about the synthesized values (the same
inputs at the first size ran). It is an error when the exporter's part is shown: a shape
constant holding the size that worked (diagnoser.model.baked), or a failing shape op; otherwise a
warning, since the limit may be the architecture's own (a fixed positional table).
"""
from __future__ import annotations

from typing import Any

from diagnoser.report import Finding

_NOT_THE_MODEL = ("bad_alloc", "bad allocation", "MemoryError", "Failed to allocate memory")


def _dims(worked: dict[str, list[int]], tried: dict[str, list[int]]) -> list[tuple[str, int, int, int]]:
    """(input, axis, size that worked, size that failed) for every dimension that changed."""
    out = []
    for name, shape in tried.items():
        before = worked.get(name, [])
        for axis, (a, b) in enumerate(zip(before, shape)):
            if a != b:
                out.append((name, axis, a, b))
    return out


def _constants(ctx: Any, kind: str, sizes: set[int]) -> list[Any]:
    from diagnoser.model import baked

    found = []
    try:
        for size in sorted(sizes):
            found += baked.holding(ctx.model.proto.graph, size, batch=kind == "batch")
    except Exception:  # naming the constant is a help, the failure stands without it
        return []
    return found[:3]


def fixed_size(ctx: Any, varied: list[dict], last: dict, base: dict) -> list[Finding]:
    from diagnoser.matching import facts
    from diagnoser.model.failures import core_line

    findings = []
    for rec in varied:
        if rec.get("stage") != "vary-failed":
            continue
        kind, error = rec.get("kind", "other"), rec.get("error", "")
        if any(s in error for s in _NOT_THE_MODEL):
            continue  # the larger run hit the probe's memory limit: a fact about the limit, not the model
        dims = _dims(rec.get("worked") or {}, rec.get("shapes") or {})
        if not dims:
            continue
        what = ", ".join(f"{n}[{ax}] {a} -> {b}" for n, ax, a, b in dims[:4])
        node = facts.extract(error).get("node")
        consts = _constants(ctx, kind, {a for _, _, a, _ in dims})
        baked_in = ""
        if consts:
            c = consts[0]
            shown = ", ".join("?" if v is None else str(v) for v in c.values)
            baked_in = f"; the size that worked is frozen in the shape {{{shown}}} that {c.op} node '{c.consumer}' reads (from {c.source})"
        declared = ", ".join(f"{n}[{ax}]" for n, ax, _, _ in dims[:4]) + (" (batch)" if kind == "batch" else "")
        # a frozen shape constant, or a failing shape op, says the exporter baked the size; without
        # either the size limit may be the architecture's (a fixed positional table): a warning
        shape_op = any(f"running {op} node" in error for op in ("Reshape", "Expand", "Tile", "ConstantOfShape"))
        severity = "error" if consts or shape_op else "warning"
        findings.append(Finding(
            "session.fixed-size", severity,
            f"the model declares {declared} dynamic but works at one size only: it runs at "
            f"{_shapes(rec.get('worked'))}, and fails when {what}" + (f" at node '{node}'" if node else "") + f": {core_line(error)}{baked_in}",
            "session", node=node,
            details={**base, "kind": kind, "worked": rec.get("worked"), "failed": rec.get("shapes"), "error_text": error[:4000],
                     "constants": [{"node": c.consumer, "op": c.op, "source": c.source, "values": list(c.values)} for c in consts]}))
    return findings


def _shapes(shapes: dict[str, list[int]] | None) -> str:
    return ", ".join(f"{k}={'x'.join(map(str, v))}" for k, v in (shapes or {}).items()) or "no inputs"

"""Missing opset_import / ir_version filled from what the graph uses (OT0213).

The ai.onnx opset chosen is the newest (up to what the runtime reads) at which every node's op
exists and accepts the node's attributes and input count. Which opset the author meant cannot
be known from the file, so this is graded review, unless a single opset fits (then safe), or
only a custom domain or the IR version was missing.
"""
from __future__ import annotations

from typing import Any

from diagnoser.remedies import Change, FixContext, RemedyError, RemedyResult

NAME = "opset-fill"
GRADE = "review"
TOLERANCE = "exact"


def _fits(sig: tuple[str, frozenset[str], int], version: int) -> int | None:
    """The op's since_version at this opset when the node fits its schema, else None."""
    import onnx

    op, attrs, n_in = sig
    try:
        schema = onnx.defs.get_schema(op, version, "")
    except Exception:
        return None
    if schema.deprecated or not attrs <= set(schema.attributes):
        return None
    if not (schema.min_input <= n_in <= schema.max_input):
        return None
    return schema.since_version


def apply(model: Any, ctx: FixContext) -> RemedyResult:
    import onnx
    from onnx import helper

    from diagnoser.remedies.opset_convert import ir_for_opset

    changes: list[Change] = []
    domains = {"" if o.domain in ("", "ai.onnx") else o.domain for o in model.opset_import}
    sigs = {(n.op_type, frozenset(a.name for a in n.attribute), len(n.input)) for n in model.graph.node if not n.domain or n.domain == "ai.onnx"}
    grade = None
    if "" not in domains and sigs:
        newest = min(ctx.max_opset or onnx.defs.onnx_opset_version(), onnx.defs.onnx_opset_version())
        ok = [v for v in range(newest, 0, -1) if all(_fits(s, v) is not None for s in sigs)]
        if not ok:
            raise RemedyError("no ai.onnx opset accepts every node of this graph: the opset cannot be inferred")
        chosen, oldest = ok[0], ok[-1]
        same = all(_fits(s, chosen) == _fits(s, oldest) for s in sigs)
        grade = "safe" if chosen == oldest else "review"
        model.opset_import.append(helper.make_opsetid("", chosen))
        changes.append(Change("opset", "ai.onnx", f"added opset {chosen} (the graph's ops fit opsets {oldest}..{chosen}{'' if same else ', with different op versions: check'})"))
    for dom in sorted({n.domain for n in model.graph.node if n.domain and n.domain != "ai.onnx"} - domains):
        model.opset_import.append(helper.make_opsetid(dom, 1))
        changes.append(Change("opset", dom, "added version 1 for a custom domain the graph uses"))
    if not model.ir_version:
        main = next((o.version for o in model.opset_import if not o.domain), None)
        ir = ir_for_opset(main) if main else None
        model.ir_version = min(ir or 7, ctx.max_ir or 99)
        changes.append(Change("ir_version", "model", f"added IR {model.ir_version}"))
    if not changes:
        return RemedyResult(model, note="opset_import and ir_version are present")
    return RemedyResult(model, changes, grade=grade or "safe",
                        note="" if grade != "review" else "the opset is inferred from the ops' schemas: check it is the one the graph was written for")

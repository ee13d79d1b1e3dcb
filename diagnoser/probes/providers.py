"""What the requested providers, on their target devices, will not run: operators, op versions,
dtypes, dynamic shapes, INT64 weights.

Judged against tables generated from each provider's own sources (diagnoser/model/provider_tables.py),
each verdict naming its source row. These are predictions, not proof, and their severity follows
what the provider does with a node it lacks: most providers hand it to the CPU provider (a note:
the model runs, with copies between devices); the DirectML NPU path fails (a warning). None of
them needs the provider installed on this machine.
"""
from __future__ import annotations

from collections import Counter
from typing import Any

from diagnoser.model import provider_tables as pt
from diagnoser.report import Finding

NAME = "providers"
_INT32 = (-(2**31), 2**31 - 1)
_REASON = {"op": "no support for the op", "version": "no kernel for this op version", "types": "dtypes not accepted"}


def applies(ctx: Any) -> bool:
    known = pt.data()["providers"]
    return ctx.model is not None and any(p in known for p in ctx.providers)


def _targets(ctx: Any) -> list[pt.Target]:
    named = getattr(ctx, "targets", None) or {}
    out = [pt.resolve(p, named.get(p), ctx.text) for p in ctx.providers]
    return [t for t in out if t is not None]


def _int64_weights(ctx: Any) -> tuple[int, list[str]]:
    """INT64 initializers, and those (stored inline, small enough to read) whose values overflow int32."""
    import onnx
    from onnx import numpy_helper

    count, overflow = 0, []
    for init in ctx.model.proto.graph.initializer:
        if init.data_type != onnx.TensorProto.INT64:
            continue
        count += 1
        if init.data_location == onnx.TensorProto.EXTERNAL or len(init.raw_data) + len(init.int64_data) * 8 > 8 * 2**20:
            continue
        arr = numpy_helper.to_array(init)
        if arr.size and (arr.min() < _INT32[0] or arr.max() > _INT32[1]):
            overflow.append(init.name)
    return count, overflow


def _gaps(target: pt.Target, ctx: Any) -> dict[str, dict[str, Any]]:
    """'domain:op' -> node count, why, and the source line, for every group the table does not take."""
    out: dict[str, dict[str, Any]] = {}
    for grp in ctx.groups:
        judged = pt.verdict(target, grp)
        if judged is None:
            continue
        why, row = judged
        key = f"{grp.domain}.{grp.op}" if grp.domain else grp.op
        slot = out.setdefault(key, {"nodes": 0, "why": why, "line": row["line"] if row else None, "dtypes": set()})
        slot["nodes"] += len(grp.nodes)
        if why == "types":
            slot["dtypes"].update(d for _, d in grp.sig if d)
    return out


def _gap_findings(target: pt.Target, gaps: dict[str, dict[str, Any]]) -> list[Finding]:
    """One finding per target, not one per kind of gap: a prediction from one table is one piece
    of evidence, however many rows it cites. provider.unsupported-op when any op or op version is
    missing, else provider.unsupported-dtype."""
    if not gaps:
        return []
    fails = target.spec["unsupported"] == "fail"
    outcome = ("the session is expected to fail on this target" if fails
               else "they run on the CPU provider instead, with copies between devices")
    tab = target.table
    code = "provider.unsupported-op" if any(v["why"] != "types" for v in gaps.values()) else "provider.unsupported-dtype"
    nodes = sum(v["nodes"] for v in gaps.values())
    shown = ", ".join(f"{k} ({v['nodes']}{', ' + '/'.join(sorted(v['dtypes'])) if v['dtypes'] else ''})"
                      for k, v in sorted(gaps.items(), key=lambda kv: -kv[1]["nodes"])[:8])
    rows = {k: {"nodes": v["nodes"], "why": _REASON[v["why"]], "line": v["line"], "dtypes": sorted(v["dtypes"])} for k, v in gaps.items()}
    what = "use operators, op versions or dtypes" if code.endswith("-op") else "use dtypes"
    return [Finding(code, "warning" if fails else "info",
                    f"{target.label}: {nodes} node(s) {what} its table does not cover ({shown}); {outcome}. Source: {target.cite}",
                    NAME, details={"provider": target.provider, "target": target.name, "behaviour": target.spec["unsupported"],
                                   "why": target.spec.get("why"), "rows": rows, "source": tab["source"], "revision": tab["revision"]})]


def run(ctx: Any) -> list[Finding]:
    dynamic = next((f for f in ctx.findings if f.code == "shape.dynamic-inputs"), None)
    opset = ctx.graph.opsets.get("", 0)
    findings: list[Finding] = []
    for target in _targets(ctx):
        tab, spec = target.table, target.spec
        base = {"provider": target.provider, "target": target.name, "source": tab["source"], "revision": tab["revision"]}
        findings += _gap_findings(target, _gaps(target, ctx))
        mode = spec.get("dynamic_shapes", "ok")
        if dynamic and mode != "ok":
            what = ("builds its engine for a range of shapes (an optimization profile) and rebuilds it when a shape falls outside"
                    if mode == "profile" else "needs static shapes: nodes with dynamic dims stay on CPU or the session fails")
            findings.append(Finding("provider.dynamic-shape", "info" if mode == "profile" else "warning",
                                    f"{target.label} {what}; dynamic inputs: {', '.join(dynamic.details['inputs'])}. Source: {spec['dynamic_why']}",
                                    NAME, details={**base, "inputs": dynamic.details["inputs"], "rule": spec["dynamic_why"]}))
        if tab.get("max_opset") and opset > tab["max_opset"]:
            findings.append(Finding("provider.opset-newer", "warning",
                                    f"the model's opset {opset} is newer than {target.label} supports (opset {tab['max_opset']}, TensorRT {tab['tensorrt']}): its parser may reject newer op versions. Source: {target.cite}",
                                    NAME, details={**base, "opset": opset, "max_opset": tab["max_opset"]}))
        if tab.get("int64_cast"):
            count, overflow = _int64_weights(ctx)
            if count:
                sev = "error" if overflow else "info"
                tail = f"; {len(overflow)} hold values outside int32 ({', '.join(overflow[:4])}) and will be clamped" if overflow else ", which is harmless while values fit in int32"
                findings.append(Finding("provider.int64-weights", sev,
                                        f"{target.label} does not support INT64 natively: {count} INT64 initializer(s) will be cast down to INT32{tail}. Source: {target.cite}",
                                        NAME, details={**base, "count": count, "overflow": overflow[:20]}))
    return findings

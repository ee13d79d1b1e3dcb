"""Targeted probe: the node an error names, its op, opset, input dtypes and their origins.

This is the evidence that separates "no kernel for this dtype" (bfloat16 on CPU) from
"one node fed two dtypes" (int32 weights meeting a float16 bias).
"""
from __future__ import annotations

from typing import Any

from diagnoser.report import Finding

NAME = "node_types"


def applies(ctx: Any) -> bool:
    return ctx.model is not None and bool(ctx.facts.get("node"))


def _bind(schema: Any, node: Any, values: dict) -> tuple[dict[str, list[tuple[str, str | None, str]]], list[dict]]:
    """Map each type parameter to the (input, dtype, origin) triples bound to it."""
    formal = list(schema.inputs) if schema is not None else []
    bound: dict[str, list[tuple[str, str | None, str]]] = {}
    rows = []
    for i, name in enumerate(node.input):
        if not name:
            continue
        info = values.get(name)
        dtype = info.dtype if info else None
        origin = info.origin if info else "unknown origin"
        rows.append({"input": name, "dtype": dtype, "origin": origin})
        if formal:
            param = formal[min(i, len(formal) - 1)].type_str
            bound.setdefault(param, []).append((name, dtype, origin))
    return bound, rows


def run(ctx: Any) -> list[Finding]:
    g = ctx.graph
    name = ctx.facts["node"]
    node = g.find_node(name)
    if node is None:
        from rapidfuzz import process

        near = [m[0] for m in process.extract(name, list(g.nodes_by_name), limit=3, score_cutoff=60)]
        hint = f"; closest names: {', '.join(near)}" if near else ""
        return [Finding("node.not-found", "warning",
                        f"the model has no node named '{name}' (was the error produced by another model, or by an optimized copy?){hint}",
                        NAME, node=name)]
    since = g.since_version(node)
    schema = g.schema(node)
    bound, rows = _bind(schema, node, g.values)
    op = f"{node.op_type}({since})" if since else node.op_type
    described = ", ".join(f"{r['input']}: {r['dtype'] or '?'} ({r['origin']})" for r in rows)
    details = {"op": node.op_type, "domain": node.domain or "ai.onnx", "since_version": since,
               "opset": g.opsets.get(node.domain or ""), "inputs": rows}
    findings = [Finding("node.input-dtypes", "info", f"{op} node '{node.name}' reads {described}", NAME, node=node.name, details=details)]
    mixed = {p: b for p, b in bound.items() if len({d for _, d, _ in b if d}) > 1}
    if mixed:
        for param, members in mixed.items():
            kinds = " and ".join(f"{d} ({n}, {o})" for n, d, o in members)
            findings.append(Finding("node.mixed-input-dtypes", "error",
                                    f"inputs of {op} '{node.name}' bound to type parameter {param} have different dtypes: {kinds}",
                                    NAME, node=node.name, details={**details, "type_param": param}))
        return findings
    findings.extend(_kernel_findings(node, op, since, bound, details))
    return findings


def _kernel_findings(node: Any, op: str, since: int | None, bound: dict, details: dict) -> list[Finding]:
    """Judge the node with the same rule the cpu_kernels probe uses (kernels.cpu_verdict), so the
    two never disagree in one report; this probe adds the node's own words to the finding."""
    from diagnoser.model import kernels, runtime

    types = {p: f"tensor({b[0][1]})" for p, b in bound.items() if b and b[0][1]}
    if since is None or not types or len(types) < len(bound) or runtime.snapshot().error is not None:
        return []
    domain = node.domain if node.domain not in ("", "ai.onnx") else ""
    verdict = kernels.cpu_verdict(domain, node.op_type, since, {p: tuple(d for _, d, _ in b) for p, b in bound.items()})
    if verdict == "unknown":
        return []
    version = kernels.ort_version()
    shown = ", ".join(f"{p}={t[7:-1]}" for p, t in types.items())
    if verdict == "ok":
        return [Finding("node.kernel-available", "info",
                        f"onnxruntime {version} has a CPU kernel for {op} with {shown}: the failing run used another provider, another onnxruntime version or another model",
                        NAME, node=node.name, details={**details, "onnxruntime": version})]
    if verdict == "cast":
        return [Finding("node.kernel-available", "info",
                        f"onnxruntime {version} has no float16 CPU kernel for {op} but inserts Cast nodes to float itself, so this node loads on CPU",
                        NAME, node=node.name, details={**details, "onnxruntime": version, "via_cast": True})]
    supported = sorted({t[7:-1] for kd in kernels.registry().get((domain, node.op_type), ())
                        if kd.provider == "CPUExecutionProvider" and kernels.covers(kd, since)
                        for ts in kd.types.values() for t in ts})
    have = f" (CPU kernels exist for: {', '.join(supported)})" if supported else " (no CPU kernel at this version at all)"
    code = "node.no-kernel-bfloat16" if "tensor(bfloat16)" in types.values() else "node.no-kernel-for-types"
    return [Finding(code, "error",
                    f"onnxruntime {version} registers no CPU kernel for {op} with {shown}{have}",
                    NAME, node=node.name, details={**details, "onnxruntime": version, "types": types, "supported": supported})]

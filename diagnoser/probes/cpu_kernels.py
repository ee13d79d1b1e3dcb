"""Kernel availability per node for the CPU provider, from the installed onnxruntime's registry.

The registry alone overstates failures, so the verdict follows what the runtime does at load
time: float16 nodes with only a float kernel run through Cast nodes it inserts, and ops defined
as ONNX functions are expanded. Custom domains the registry does not know are the domains probe's.
"""
from __future__ import annotations

from typing import Any

from diagnoser.report import Finding

NAME = "cpu_kernels"


def applies(ctx: Any) -> bool:
    return ctx.model is not None


def verdicts(ctx: Any) -> list[tuple[Any, str]]:
    """(typed node, verdict) for every node the runtime would not simply run; judged once per distinct signature."""
    from diagnoser import kernels

    known_domains = {d for d, _ in kernels.registry()}
    cache: dict[int, str] = {}
    dtypes, opsets = ctx.graph.dtypes, ctx.graph.opsets
    out = []
    for t in ctx.typed:
        if t.domain and t.domain not in known_domains:
            continue
        verdict = cache.get(id(t.key))
        if verdict is None:
            verdict = kernels.cpu_verdict(t.domain, t.op, t.since, t.bound, t.schema)
            if verdict == "function":  # judge the body onnxruntime will inline
                ins = [dtypes.get(n) for n in t.node.input]
                verdict = kernels.expanded_verdict(t.schema, t.node, opsets.get(t.domain, 0), ins)
            cache[id(t.key)] = verdict
        if verdict != "ok":
            out.append((t, verdict))
    return out


def _sig(t: Any) -> str:
    types = ", ".join(f"{p}={'/'.join(sorted({d for d in ds if d}))}" for p, ds in t.bound.items() if not p.startswith("tensor("))
    dom = f"{t.domain}." if t.domain else ""
    return f"{dom}{t.node.op_type}({t.since})" + (f" with {types}" if types else "")


def run(ctx: Any) -> list[Finding]:
    from diagnoser import kernels

    version = kernels.ort_version()
    results = verdicts(ctx)
    missing: dict[str, dict[str, list[str]]] = {"missing-types": {}, "missing-op": {}}
    cast: dict[str, int] = {}
    for t, verdict in results:
        if verdict in missing:
            missing[verdict].setdefault(_sig(t), []).append(t.node.name or f"<unnamed {t.op}>")
        elif verdict == "cast":
            cast[t.op] = cast.get(t.op, 0) + 1
    findings = []
    for verdict, code, why in (("missing-types", "kernel.cpu-missing", "for these input types"),
                               ("missing-op", "kernel.cpu-missing-op-version", "for this op version at all")):
        if not missing[verdict]:
            continue
        groups = sorted(missing[verdict].items(), key=lambda kv: -len(kv[1]))
        shown = "; ".join(f"{sig} (e.g. '{names[0]}', {len(names)} node(s))" for sig, names in groups[:5])
        bf16 = any("bfloat16" in sig for sig in missing[verdict])
        findings.append(Finding(code, "error",
                                f"onnxruntime {version} has no CPU kernel {why} for {sum(len(v) for v in missing[verdict].values())} node(s): {shown}; the session will fail with NOT_IMPLEMENTED",
                                NAME, node=groups[0][1][0], details={"onnxruntime": version, "bfloat16": bf16,
                                                                     "missing": {k: v[:10] for k, v in groups[:20]}}))
    if cast:
        findings.append(Finding("kernel.cpu-via-cast", "info",
                                f"{sum(cast.values())} float16 node(s) ({', '.join(sorted(cast))}) have only float32 CPU kernels: onnxruntime inserts Cast nodes around them (it loads, but runs in float32 with extra copies)",
                                NAME, details={"ops": cast, "onnxruntime": version}))
    return findings

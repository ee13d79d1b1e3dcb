"""Kernel availability per node for the CPU provider, from the installed onnxruntime's registry.

The registry alone overstates failures, so the verdict follows what the runtime does at load
time: float16 nodes with only a float kernel run through Cast nodes it inserts, and ops defined
as ONNX functions are expanded (their bodies judged with the dtypes inference gives them). The
registry also understates one failure: RNN/GRU/LSTM kernels are registered but refuse layout=1.
Custom domains the registry does not know are the domains probe's.
"""
from __future__ import annotations

from typing import Any

from diagnoser.report import Finding

NAME = "cpu_kernels"
_RECURRENT = frozenset({"RNN", "GRU", "LSTM"})


def applies(ctx: Any) -> bool:
    from diagnoser.model import runtime

    return ctx.model is not None and runtime.snapshot().error is None  # a broken install is the environment probe's finding


def verdicts(ctx: Any) -> list[tuple[Any, str, str | None]]:
    """(op group, verdict, the function-body node it is about) for every group of nodes the
    runtime would not simply run."""
    from diagnoser.model import kernels

    known_domains = {d for d, _ in kernels.registry()}
    dtypes, opsets = ctx.graph.dtypes, ctx.graph.opsets
    out = []
    for grp in ctx.groups:
        if grp.domain and grp.domain not in known_domains:
            continue  # custom domains are the domains probe's
        verdict, inner = kernels.cpu_verdict(grp.domain, grp.op, grp.since, grp.bound, grp.schema), None
        if verdict == "function":  # judge the body onnxruntime will inline
            node = grp.nodes[0]
            ins = [dtypes.get(n) for n in node.input]
            verdict, inner = kernels.expanded_verdict(grp.schema, node, opsets.get(grp.domain, 0), ins)
        if verdict != "ok":
            out.append((grp, verdict, inner))
    return out


def _sig(grp: Any, inner: str | None = None) -> str:
    from diagnoser.model.kernels import op_text

    body = f" (expanded from its function body: {inner} has no kernel)" if inner else ""
    return op_text(grp.op, grp.since, grp.bound, grp.domain) + body


def run(ctx: Any) -> list[Finding]:
    from diagnoser.model import kernels

    version = kernels.ort_version()
    results = verdicts(ctx)
    missing: dict[str, dict[str, list[str]]] = {"missing-types": {}, "missing-op": {}}
    cast: dict[str, int] = {}
    for grp, verdict, inner in results:
        if verdict in missing:
            missing[verdict].setdefault(_sig(grp, inner), []).extend(n.name or f"<unnamed {grp.op}>" for n in grp.nodes)
        elif verdict == "cast":
            cast[grp.op] = cast.get(grp.op, 0) + len(grp.nodes)
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
    findings += _batchwise(ctx, version)
    if cast:
        findings.append(Finding("kernel.cpu-via-cast", "info",
                                f"{sum(cast.values())} float16 node(s) ({', '.join(sorted(cast))}) have only float32 CPU kernels: onnxruntime inserts Cast nodes around them (it loads, but runs in float32 with extra copies)",
                                NAME, details={"ops": cast, "onnxruntime": version}))
    return findings


def _batchwise(ctx: Any, version: str) -> list[Finding]:
    """Recurrent nodes with layout=1: registered kernels whose constructors refuse that attribute."""
    nodes = [n for grp in ctx.groups if grp.op in _RECURRENT and not grp.domain
             for n in grp.nodes if any(a.name == "layout" and a.i == 1 for a in n.attribute)]
    if not nodes:
        return []
    names = [n.name or f"<unnamed {n.op_type}>" for n in nodes]
    ops = sorted({n.op_type for n in nodes})
    return [Finding("kernel.cpu-rnn-batchwise", "error",
                    f"{len(nodes)} {'/'.join(ops)} node(s) take batch-first inputs (layout=1, e.g. '{names[0]}'): onnxruntime {version}'s CPU kernels accept only layout=0, so creating the session fails; rewrite them as layout=0 between Transposes",
                    NAME, node=names[0], details={"nodes": names[:20], "ops": ops, "onnxruntime": version})]

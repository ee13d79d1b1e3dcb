"""Custom operator domains and model-local functions.

A node in a domain the installed onnxruntime does not register needs a custom-op library the
user must load themselves; this tool never loads one.
"""
from __future__ import annotations

from collections import Counter
from typing import Any

from diagnoser.report import Finding

NAME = "domains"
_STANDARD = ("", "ai.onnx", "ai.onnx.ml")  # preview domains count as custom unless the runtime registers the op


def applies(ctx: Any) -> bool:
    from diagnoser.model import runtime

    return ctx.model is not None and runtime.snapshot().error is None  # a broken install is the environment probe's finding


def run(ctx: Any) -> list[Finding]:
    from diagnoser.model import kernels

    proto = ctx.model.proto
    local = {(f.domain, f.name) for f in proto.functions}
    registry = kernels.registry()
    known_domains = {d for d, _ in registry}
    runtime_ops = kernels.runtime_schemas()  # onnxruntime's own schema copy: a preview op it lacks is unknown to it
    custom: Counter[str] = Counter()
    contrib: Counter[str] = Counter()
    for grp in ctx.groups:
        d = grp.domain
        if d in _STANDARD or (d, grp.op) in local:
            continue
        if d in known_domains and (d, grp.op) in registry:
            contrib[f"{d}.{grp.op}"] += len(grp.nodes)
        elif (d.startswith("ai.onnx.preview") and grp.schema is not None and (not runtime_ops or (d, grp.op) in runtime_ops)
              and (grp.schema.has_function or grp.schema.has_context_dependent_function)):
            continue  # onnxruntime knows the op (or does not say) and expands it from its function body
        else:
            custom[f"{d}.{grp.op}"] += len(grp.nodes)
    findings = []
    if custom:
        shown = ", ".join(f"{k} ({n})" for k, n in custom.most_common(8))
        findings.append(Finding("domain.custom-op", "error",
                                f"{sum(custom.values())} node(s) use custom operators onnxruntime does not know: {shown}; a session needs the custom-op library that implements them (SessionOptions.register_custom_ops_library), which this tool never loads",
                                NAME, details={"ops": dict(custom)}))
    if contrib:
        findings.append(Finding("domain.contrib-op", "info",
                                f"{sum(contrib.values())} node(s) use onnxruntime contrib operators ({', '.join(sorted(contrib)[:8])}): they load in onnxruntime but not in other runtimes, and not on every provider",
                                NAME, details={"ops": dict(contrib)}))
    if proto.functions:
        names = [f"{f.domain}.{f.name}" for f in proto.functions]
        findings.append(Finding("function.model-local", "info",
                                f"the model defines {len(names)} local function(s) ({', '.join(names[:6])}); onnxruntime inlines them at load time, older tools may not",
                                NAME, details={"functions": names}))
    return findings

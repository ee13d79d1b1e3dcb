"""Attributes the installed onnx knows but onnxruntime's own copy of the operator schemas does not.

onnxruntime compiles in an onnx release of its own and checks every node against that copy when
a session is created. A model made with a newer onnx can set an attribute added to an operator
after that release (Attention's window attributes, for instance): onnx.checker accepts the
model, onnxruntime stops with "Unrecognized attribute: X for operator Y". The comparison runs
once per op group, and reads node attributes only where the two schemas differ.
"""
from __future__ import annotations

from typing import Any

from diagnoser.report import Finding

NAME = "runtime_schema"


def applies(ctx: Any) -> bool:
    from diagnoser.model import kernels, runtime

    return ctx.model is not None and runtime.snapshot().error is None and bool(kernels.runtime_schemas())


def unknown_attributes(ctx: Any) -> list[tuple[Any, Any, list[str]]]:
    """(op group, node, attribute names the runtime's schema lacks) for every such node."""
    from diagnoser.model import kernels

    out = []
    for grp in ctx.groups:
        opset = ctx.graph.opsets.get(grp.domain)
        if grp.schema is None or not opset:
            continue  # ops the installed onnx does not know are the domains and versions probes'
        theirs = kernels.runtime_schema(grp.domain, grp.op, opset)
        if theirs is None:
            continue  # an op the runtime does not know at all: the same probes
        extra = set(grp.schema.attributes) - theirs[1]
        if not extra:
            continue
        for node in grp.nodes:
            used = sorted(a.name for a in node.attribute if a.name in extra)
            if used:
                out.append((grp, node, used))
    return out


def run(ctx: Any) -> list[Finding]:
    import onnx

    from diagnoser.model import kernels

    hits = unknown_attributes(ctx)
    if not hits:
        return []
    version = kernels.ort_version()
    grp, node, used = hits[0]
    name = node.name or f"<unnamed {grp.op}>"
    attrs = sorted({a for _, _, u in hits for a in u})
    return [Finding("node.attribute-unknown-to-runtime", "error",
                    f"{len(hits)} node(s) set attributes that onnxruntime {version}'s own copy of the ONNX schemas does not define, e.g. {grp.op}({grp.since}) '{name}' sets {', '.join(used)}: onnx {onnx.__version__} accepts them, but creating the session fails with \"Unrecognized attribute: {used[0]} for operator {grp.op}\"; upgrade onnxruntime, or export without them",
                    NAME, node=name, details={"nodes": [n.name for _, n, _ in hits][:20], "attributes": attrs, "onnxruntime": version, "onnx": onnx.__version__})]

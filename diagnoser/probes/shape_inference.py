"""Strict shape inference: inconsistent types and shapes, values left without a shape, dynamic inputs."""
from __future__ import annotations

from typing import Any

from diagnoser.probes.checker import first_lines
from diagnoser.report import Finding

NAME = "shape_inference"


def applies(ctx: Any) -> bool:
    return ctx.model is not None


def _dims(vi: Any) -> list[int | str | None] | None:
    tt = vi.type.tensor_type
    if not tt.HasField("shape"):
        return None
    return [d.dim_value if d.HasField("dim_value") else (d.dim_param or None) for d in tt.shape.dim]


def run(ctx: Any) -> list[Finding]:
    g = ctx.graph
    findings: list[Finding] = []
    _, error = g.strict
    if error:
        findings.append(Finding("shape.inference-error", "error",
                                f"strict shape inference fails (types or shapes contradict each other): {first_lines(error)}",
                                NAME, details={"error_text": error[:4000]}))
    ctx.groups  # noqa: B018 (the node walk records the outputs inference left untyped)
    missing, total = g.untyped_outputs, g.output_count
    if missing:
        findings.append(Finding("shape.missing", "warning" if len(missing) * 4 > total else "info",
                                f"{len(missing)} of {total} node outputs get no type or shape from inference (custom ops, or ops inference does not cover): tools that need shapes (fp16 conversion, TensorRT, quantization) will stop there",
                                NAME, details={"values": missing[:20], "count": len(missing)}))
    inferred = g.inferred.graph
    inits = {t.name for t in inferred.initializer}
    dynamic = {}
    for vi in inferred.input:
        if vi.name in inits:
            continue
        dims = _dims(vi)
        if dims is None:
            dynamic[vi.name] = "unknown rank"
        elif any(not isinstance(d, int) or d <= 0 for d in dims):
            dynamic[vi.name] = "x".join(str(d) if d else "?" for d in dims)
    if dynamic:
        shown = ", ".join(f"{k}[{v}]" for k, v in list(dynamic.items())[:6])
        findings.append(Finding("shape.dynamic-inputs", "info",
                                f"{len(dynamic)} graph input(s) have dynamic dimensions: {shown}",
                                NAME, details={"inputs": dynamic}))
    return findings

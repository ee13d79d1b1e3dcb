"""What the requested accelerator providers reject: operators, dtypes, dynamic shapes, INT64 weights.

Judged against curated tables (diagnoser/data/providers.yaml), each with its source and version.
Most providers hand unsupported nodes back to CPU, so these are predictions of fallback or
failure, not proof; the session probe shows what the installed runtime really does.
"""
from __future__ import annotations

from collections import Counter
from typing import Any

from diagnoser.datafiles import table
from diagnoser.report import Finding

NAME = "providers"
_INT32 = (-(2**31), 2**31 - 1)


def applies(ctx: Any) -> bool:
    return ctx.model is not None and any(p in table("providers") for p in ctx.providers)


def _unsupported_ops(spec: dict, ctx: Any) -> Counter[str]:
    allowed = set(spec.get("ops_supported") or ())
    banned = set(spec.get("ops_unsupported") or ())
    out: Counter[str] = Counter()
    for grp in ctx.groups:
        op = grp.op
        if grp.domain:
            out[f"{grp.domain}.{op}"] += len(grp.nodes)
        elif (allowed and op not in allowed) or op in banned:
            out[op] += len(grp.nodes)
    return out


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


def run(ctx: Any) -> list[Finding]:
    tables = table("providers")
    present = Counter(d for d in ctx.graph.dtypes.values() if d)
    dynamic = next((f for f in ctx.findings if f.code == "shape.dynamic-inputs"), None)
    opset = ctx.graph.opsets.get("", 0)
    findings: list[Finding] = []
    for prov in ctx.providers:
        spec = tables.get(prov)
        if spec is None:
            continue
        src = f"{spec['source']} ({spec['version']})"
        short = prov.removesuffix("ExecutionProvider")
        ops = _unsupported_ops(spec, ctx)
        if ops:
            shown = ", ".join(f"{k} ({n})" for k, n in ops.most_common(8))
            findings.append(Finding("provider.unsupported-op", "warning",
                                    f"{short}: {sum(ops.values())} node(s) use operators outside its supported set ({shown}); they fall back to CPU with copies, or fail where fallback is disabled. Source: {src}",
                                    NAME, details={"provider": prov, "ops": dict(ops), "source": spec["source"], "version": spec["version"]}))
        bad = {d: present[d] for d in spec.get("dtypes_unsupported", ()) if present.get(d)}
        if bad:
            findings.append(Finding("provider.unsupported-dtype", "warning",
                                    f"{short} has no kernels for {', '.join(f'{d} ({n} tensors)' for d, n in bad.items())}: those nodes fall back to CPU or the session fails. Source: {src}",
                                    NAME, details={"provider": prov, "dtypes": bad, "source": spec["source"]}))
        mode = spec.get("dynamic_shapes", "ok")
        if dynamic and mode != "ok":
            what = ("needs optimization profiles (trt_profile_min_shapes/opt/max) or rebuilds the engine for each new shape"
                    if mode == "profile" else "needs static shapes: nodes with dynamic dims stay on CPU or the session fails")
            findings.append(Finding("provider.dynamic-shape", "warning",
                                    f"{short} {what}; dynamic inputs: {', '.join(dynamic.details['inputs'])}. Source: {src}",
                                    NAME, details={"provider": prov, "inputs": dynamic.details["inputs"], "source": spec["source"]}))
        if spec.get("max_opset") and opset > spec["max_opset"]:
            findings.append(Finding("provider.opset-newer", "warning",
                                    f"the model's opset {opset} is newer than {short}'s table covers (opset {spec['max_opset']}): newer op versions may not be claimed by the provider. Source: {src}",
                                    NAME, details={"provider": prov, "opset": opset, "max_opset": spec["max_opset"]}))
        if spec.get("int64_weights") == "cast":
            count, overflow = _int64_weights(ctx)
            if count:
                sev = "error" if overflow else "info"
                tail = f"; {len(overflow)} hold values outside int32 ({', '.join(overflow[:4])}) and will be clamped" if overflow else ", which is harmless while values fit in int32"
                findings.append(Finding("provider.int64-weights", sev,
                                        f"{short} does not support INT64 natively: {count} INT64 initializer(s) will be cast down to INT32{tail}",
                                        NAME, details={"provider": prov, "count": count, "overflow": overflow[:20]}))
    return findings

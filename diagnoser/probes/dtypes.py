"""Dtype census: what the model computes in (fp32, fp16, bf16, int8), and nodes fed mixed dtypes.

A node whose inputs bound to one type parameter carry two dtypes is invalid ONNX that
onnxruntime rejects at load time (the int32-weights-meet-float16-bias failure after quantization).
"""
from __future__ import annotations

from collections import Counter
from typing import Any

from diagnoser.report import Finding

NAME = "dtypes"
_QDQ = frozenset({"QuantizeLinear", "DequantizeLinear"})
_DYNAMIC_INT = frozenset({"ConvInteger", "MatMulInteger", "DynamicQuantizeLinear"})


def applies(ctx: Any) -> bool:
    return ctx.model is not None


def census(ctx: Any) -> Counter[str]:
    """Dtypes of the weights and of every typed value, one count per tensor."""
    return Counter(d for d in ctx.graph.dtypes.values() if d)


def run(ctx: Any) -> list[Finding]:
    from diagnoser.model.graphinfo import dtype_name

    counts = census(ctx)
    weights = Counter(dtype_name(t.data_type) for t in ctx.model.proto.graph.initializer)
    findings = [Finding("dtype.census", "info",
                        "tensor dtypes: " + ", ".join(f"{k} {n}" for k, n in counts.most_common()) if counts else "no tensor dtypes are known",
                        NAME, details={"values": dict(counts), "weights": {k: n for k, n in weights.items() if k}})]
    if counts.get("bfloat16"):
        findings.append(Finding("dtype.bfloat16", "warning",
                                f"{counts['bfloat16']} tensor(s) are bfloat16: the CPU provider has bfloat16 kernels for very few ops and inserts no Cast for them",
                                NAME, details={"count": counts["bfloat16"]}))
    floats = {k: counts.get(k, 0) for k in ("float", "float16", "double")}
    if floats["float16"] and floats["float16"] >= floats["float"]:
        findings.append(Finding("dtype.float16", "info",
                                f"the model computes mostly in float16 ({floats['float16']} float16 vs {floats['float']} float32 tensors)",
                                NAME, details=floats))
    ops: Counter[str] = Counter()
    for grp in ctx.groups:
        ops[grp.op] += len(grp.nodes)
    qdq = sum(ops[o] for o in _QDQ)
    qop = sum(n for o, n in ops.items() if o.startswith("QLinear"))
    dyn = sum(ops[o] for o in _DYNAMIC_INT)
    if qdq or qop or dyn or weights.get("int8") or weights.get("uint8"):
        style = "QDQ" if qdq else "QOperator" if qop else "dynamic (ConvInteger/MatMulInteger)" if dyn else "integer weights"
        findings.append(Finding("dtype.quantized", "info",
                                f"the model is quantized ({style}): {qdq} Q/DQ, {qop} QLinear*, {dyn} integer-arithmetic nodes, {weights.get('int8', 0) + weights.get('uint8', 0)} int8/uint8 weights",
                                NAME, details={"style": style, "qdq": qdq, "qlinear": qop, "integer_ops": dyn}))
    if dyn:
        findings.append(Finding("quant.dynamic-integer-ops", "info",
                                f"{dyn} ConvInteger/MatMulInteger/DynamicQuantizeLinear node(s) from dynamic quantization: not every provider (nor every dtype on CPU) has kernels for them",
                                NAME, details={"ops": {o: ops[o] for o in _DYNAMIC_INT if ops[o]}}))
    findings += _mixed(ctx)
    return findings


def _mixed(ctx: Any) -> list[Finding]:
    """One finding per node whose group binds two dtypes to one type parameter (at most 20)."""
    out = []
    for grp in ctx.groups:
        if len(grp.sig) < 2:
            continue
        hit = _mixed_param(grp)
        if hit is None:
            continue
        param, known = hit
        for node in grp.nodes[:20 - len(out)]:
            out.append(Finding("dtype.mixed-on-node", "error",
                               f"{node.op_type}({grp.since}) node '{node.name}' binds {' and '.join(known)} to type parameter {param}: ONNX requires one dtype there, and onnxruntime fails to load it",
                               NAME, node=node.name or None, details={"op": node.op_type, "type_param": param, "dtypes": known}))
        if len(out) >= 20:
            break
    return out


def _mixed_param(grp: Any) -> tuple[str, list[str]] | None:
    """The first type parameter the group binds two known dtypes to, with those dtypes."""
    for param, dtypes in grp.bound.items():
        known = sorted({d for d in dtypes if d})
        if len(known) > 1 and not param.startswith(("tensor(", "seq(")):
            return param, known
    return None

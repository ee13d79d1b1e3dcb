"""DirectML on an NPU: is the model inside what the NPU path is known to run? (NPU targets only.)

Facts used (see entry OT0003): the DirectMLNpuInference sample runs mobilenetv2-7-fp16.onnx,
a float16 model; Microsoft says models outside the supported set fail with 0x887A0004; users
report FP32 models and tiny graphs made only of GlobalAveragePool / Gemm / Conv1D failing.
"""
from __future__ import annotations

from collections import Counter
from typing import Any

from diagnoser.report import Finding

NAME = "dml_npu"
_HEAD_ONLY = frozenset({"GlobalAveragePool", "Gemm", "MatMul", "Conv", "Flatten", "Reshape", "Squeeze", "Unsqueeze", "Identity", "Cast", "Add", "Relu"})
_FLOATS = ("float", "float16", "bfloat16", "double")
_TRIGGERS = ("887a0004", "directml", "feature level", "dmlexecutionprovider")
_SOURCE = "entries/OT0003.md (the DirectMLNpuInference sample runs mobilenetv2-7-fp16.onnx; https://github.com/microsoft/DirectML/issues/611)"


def applies(ctx: Any) -> bool:
    """Only when the target is an NPU: named (DmlExecutionProvider:npu) or told by the error text
    (0x887A0004, 'NPU'); the float16 expectation means nothing for a DirectML GPU."""
    if ctx.model is None:
        return False
    low = ctx.text.lower()
    if "DmlExecutionProvider" not in ctx.providers and not any(t in low for t in _TRIGGERS):
        return False
    from diagnoser.model import provider_tables

    named = (getattr(ctx, "targets", None) or {}).get("DmlExecutionProvider")
    target = provider_tables.resolve("DmlExecutionProvider", named, ctx.text)
    return target is not None and target.name == "npu"


def _float_census(g: Any) -> Counter[str]:
    counts: Counter[str] = Counter()
    for v in g.values.values():
        if v.dtype in _FLOATS and (v.origin.startswith("initializer") or v.origin == "graph input"):
            counts[v.dtype] += 1
    return counts


def _is_conv1d(node: Any, g: Any) -> bool:
    if node.op_type != "Conv" or len(node.input) < 2:
        return False
    for init in g.proto.graph.initializer:
        if init.name == node.input[1]:
            return len(init.dims) == 3
    return False


def run(ctx: Any) -> list[Finding]:
    g = ctx.graph
    findings = []
    census = _float_census(g)
    if census.get("float", 0) or census.get("double", 0):
        n32 = census.get("float", 0) + census.get("double", 0)
        findings.append(Finding("model.float32-compute", "warning",
                                f"{n32} of {sum(census.values())} floating-point inputs and weights are float32/float64; the DirectML NPU path is documented with float16 models",
                                NAME, details={**census, "source": _SOURCE}))
    elif census.get("float16", 0):
        findings.append(Finding("model.float16-compute", "info",
                                f"all {census['float16']} floating-point inputs and weights are float16", NAME, details=dict(census)))
    ops = Counter(n.op_type for n in g.proto.graph.node)
    compute = {op for op in ops if op not in ("Flatten", "Reshape", "Squeeze", "Unsqueeze", "Identity", "Cast")}
    conv1d = any(_is_conv1d(n, g) for n in g.proto.graph.node)
    conv2d = any(n.op_type == "Conv" and not _is_conv1d(n, g) for n in g.proto.graph.node)
    if ops and set(ops) <= _HEAD_ONLY and not conv2d and (compute & {"GlobalAveragePool", "Gemm", "MatMul"} or conv1d):
        findings.append(Finding("model.head-only-graph", "warning",
                                f"the graph is only {', '.join(sorted(ops))}{' (Conv is 1-D)' if conv1d else ''}: graphs made only of GlobalAveragePool, Gemm or Conv1D are reported to fail on the DirectML NPU path",
                                NAME, details={"ops": dict(ops), "conv1d": conv1d, "source": _SOURCE}))
    return findings

"""float32 -> float16 for DirectML / NPU targets (OT0003), with onnxconverter-common.

keep_io_types keeps float32 inputs and outputs (Casts at the boundary); ops that overflow or
have no float16 kernel stay float32 (onnxconverter-common's block list plus --fp16-block).
Numerics change: applied only when every output is within the float16 tolerance.
"""
from __future__ import annotations

from typing import Any

from diagnoser.remedies import Change, FixContext, RemedyError, RemedyResult

NAME = "fp32-to-fp16"
GRADE = "numerics"
TOLERANCE = "float16"
EXTRA_BLOCK = ("Range", "CumSum", "ReduceSum", "ReduceMean", "Softmax", "LayerNormalization")  # overflow-prone in float16


def apply(model: Any, ctx: FixContext) -> RemedyResult:
    from onnx import TensorProto

    from diagnoser.remedies._util import to_array

    floats = [t for t in model.graph.initializer if t.data_type == TensorProto.FLOAT]
    if not floats and not any(v.type.tensor_type.elem_type == TensorProto.FLOAT for v in (*model.graph.input, *model.graph.value_info)):
        return RemedyResult(model, note="the model computes nothing in float32")
    for t in floats:
        to_array(t)  # refuses external or hostile weights before the converter touches them
    try:
        from onnxconverter_common import float16
    except ImportError:
        raise RemedyError("onnxconverter-common is not installed: pip install 'onnx-troubleshooter[fp16]'") from None
    block = sorted({*float16.DEFAULT_OP_BLOCK_LIST, *EXTRA_BLOCK, *ctx.fp16_block})
    before = {n.name for n in model.graph.node}
    try:
        out = float16.convert_float_to_float16(model, keep_io_types=True, op_block_list=block, disable_shape_infer=False)
    except Exception as exc:
        raise RemedyError(f"onnxconverter-common failed: {type(exc).__name__}: {str(exc).splitlines()[0][:200] if str(exc) else ''}") from None
    added = [n for n in out.graph.node if n.name not in before]
    n16 = sum(1 for t in out.graph.initializer if t.data_type == TensorProto.FLOAT16)
    changes = [Change("initializer", "weights", f"{n16} weights float32 -> float16"),
               *(Change("node-added", n.name, f"{n.op_type} at a float32/float16 boundary") for n in added[:50])]
    if len(added) > 50:
        changes.append(Change("node-added", "...", f"{len(added) - 50} more Cast nodes"))
    return RemedyResult(out, changes, note=f"float16 body; float32 kept for inputs, outputs and {', '.join(sorted(set(block) & {n.op_type for n in out.graph.node})) or 'no op'}")

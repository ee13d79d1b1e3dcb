"""Fixed input shapes for NNAPI / CoreML / QNN targets, which compile only static shapes
(onnxruntime.tools.make_dynamic_shape_fixed). The shapes come from --shape; the model then
accepts only those, so the remedy is graded review."""
from __future__ import annotations

from typing import Any

from diagnoser.remedies import Change, FixContext, RemedyError, RemedyResult

NAME = "fixed-shapes"
GRADE = "review"
TOLERANCE = "exact"


def _dynamic(model: Any) -> list[str]:
    inits = {t.name for t in model.graph.initializer}
    out = []
    for vi in model.graph.input:
        if vi.name in inits or not vi.type.HasField("tensor_type"):
            continue
        dims = vi.type.tensor_type.shape.dim
        if not vi.type.tensor_type.HasField("shape") or any(not d.HasField("dim_value") or d.dim_value <= 0 for d in dims):
            out.append(vi.name)
    return out


def apply(model: Any, ctx: FixContext) -> RemedyResult:
    dynamic = _dynamic(model)
    if not dynamic:
        return RemedyResult(model, note="every input shape is already fixed")
    missing = [n for n in dynamic if n not in ctx.shapes]
    if missing:
        raise RemedyError(f"give the shape of each dynamic input with --shape NAME=1x3x224x224 (missing: {', '.join(missing[:5])})")
    try:
        from onnxruntime.tools.onnx_model_utils import make_input_shape_fixed
    except ImportError:
        raise RemedyError("onnxruntime.tools is not available in this onnxruntime") from None
    changes = []
    for name in dynamic:
        shape = list(ctx.shapes[name])
        try:
            make_input_shape_fixed(model.graph, name, shape)
        except Exception as exc:
            raise RemedyError(f"cannot fix input '{name}' to {shape}: {str(exc).splitlines()[0][:200] if str(exc) else type(exc).__name__}") from None
        changes.append(Change("input", name, "shape fixed to " + "x".join(map(str, shape))))
    import onnx

    try:  # fill the now-static shapes downstream, as the onnxruntime tool does
        inferred = onnx.shape_inference.infer_shapes(model, strict_mode=False)
        del model.graph.value_info[:]
        model.graph.value_info.extend(inferred.graph.value_info)
    except Exception:
        pass
    return RemedyResult(model, changes)

"""onnx.checker: is the model valid ONNX? (The structural half of check_model(full_check=True);
the shape-inference half is the shape_inference probe, so a valid model is inferred only once.)

A model without external data is checked from the bytes the loader kept (nothing re-serialised).
A model too big for its bytes to be kept is checked as a light copy without its big embedded
weights, whose sizes are checked apart (diagnoser.weights). A model with external data is
checked as a copy in which each external tensor is made an empty inline one: the checker would
otherwise look for the data files relative to the working directory, and whether they exist,
fit and stay inside the model's folder is the external_data probe's question. So the checker
never touches a file, never changes directory, and is safe in threads.
"""
from __future__ import annotations

from typing import Any

from diagnoser.report import Finding

NAME = "checker"


def applies(ctx: Any) -> bool:
    return ctx.model is not None


def first_lines(text: str, n: int = 3, width: int = 400) -> str:
    lines = [ln.strip() for ln in text.strip().splitlines() if ln.strip()]
    return " | ".join(lines[:n])[:width]


def without_external_data(proto: Any) -> Any:
    """A copy of the model whose external tensors are inline and empty (dims [0], no data)."""
    import onnx

    from diagnoser.weights import external_tensors

    copy = onnx.ModelProto()
    copy.CopyFrom(proto)  # small: the weights this is about live in other files
    for t in external_tensors(copy.graph):
        t.data_location = onnx.TensorProto.DEFAULT
        del t.external_data[:]
        del t.dims[:]
        t.dims.append(0)
    return copy


def run(ctx: Any) -> list[Finding]:
    import onnx

    from diagnoser.weights import data_size_problems

    source, left_out = ctx.for_onnx
    # external tensors (the light copy's stand-ins among them) become empty inline ones
    target = without_external_data(source) if (left_out or ctx.external) else source
    try:
        onnx.checker.check_model(target, full_check=False)
        problems = data_size_problems(left_out)
        if problems:
            raise onnx.checker.ValidationError("; ".join(problems[:5]) + (f" (and {len(problems) - 5} more)" if len(problems) > 5 else ""))
    except (onnx.checker.ValidationError, ValueError) as exc:
        text = str(exc)
        if "in initializer but not in graph input" in text and ctx.model.proto.ir_version < 4:
            return [Finding("checker.initializer-not-input", "info",
                            f"IR {ctx.model.proto.ir_version} requires every initializer to be a graph input and this one is not ({first_lines(text, 1)}); onnxruntime accepts it, strict tools may not",
                            NAME, details={"error_text": text[:1000]})]
        return [Finding("checker.invalid", "error", f"onnx.checker rejects the model: {first_lines(text)}", NAME,
                        details={"error_text": text[:4000], "onnx": onnx.__version__})]
    return []

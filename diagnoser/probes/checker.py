"""onnx.checker: is the model valid ONNX? (The structural half of check_model(full_check=True);
the shape-inference half is the shape_inference probe, so a valid model is inferred only once.)

A model without external data is checked from the bytes the loader kept (nothing re-serialised).
A model too big for its bytes to be kept is checked as a light copy without its big embedded
weights, whose sizes are checked apart (diagnoser.model.weights). A model with external data is
checked as a copy in which each external tensor is made an empty inline one: the checker would
otherwise look for the data files relative to the working directory, and whether they exist,
fit and stay inside the model's folder is the external_data probe's question. So the checker
never touches a file, never changes directory, and is safe in threads.
"""
from __future__ import annotations

import re
from typing import Any

from diagnoser.frontends import native_stdout
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

    from diagnoser.model.weights import external_tensors

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

    from diagnoser.model.weights import data_size_problems

    source, left_out = ctx.for_onnx
    # external tensors (the light copy's stand-ins among them) become empty inline ones
    target = without_external_data(source) if (left_out or ctx.external) else source
    error = None
    with native_stdout.captured() as printed:  # only the native call: it prints on fd 1
        try:
            onnx.checker.check_model(target, full_check=False)
        except (onnx.checker.ValidationError, ValueError) as exc:
            error = str(exc)
    problems = data_size_problems(left_out) if error is None else []
    if problems:
        error = "; ".join(problems[:5]) + (f" (and {len(problems) - 5} more)" if len(problems) > 5 else "")
    findings: list[Finding] = []
    if error is not None:
        if "in initializer but not in graph input" in error and ctx.model.proto.ir_version < 4:
            findings.append(Finding("checker.initializer-not-input", "info",
                                    f"IR {ctx.model.proto.ir_version} requires every initializer to be a graph input and this one is not ({first_lines(error, 1)}); onnxruntime accepts it, strict tools may not",
                                    NAME, details={"error_text": error[:1000]}))
        else:
            findings.append(Finding("checker.invalid", "error", f"onnx.checker rejects the model: {first_lines(error)}", NAME,
                                    details={"error_text": error[:4000], "onnx": onnx.__version__}))
    return experimental_ops(printed()) + findings


_EXPERIMENTAL = re.compile(r"experimental ops:\s*([^\r\n]+)")


def experimental_ops(printed: str) -> list[Finding]:
    """The ops the installed onnx's checker itself calls experimental (it prints them rather than
    raising): ATen nodes left by a PyTorch export, or ops ONNX once had and removed."""
    m = _EXPERIMENTAL.search(printed)
    if not m:
        return []
    ops = sorted({op.strip() for op in m.group(1).split(",") if op.strip()})
    try:
        from diagnoser.model import kernels

        reg = kernels.registry()
        kept = [op for op in ops if any(k.provider == "CPUExecutionProvider" for k in reg.get(("", op), ()))]
        ort: str | None = kernels.ort_version()
    except ImportError:
        kept, ort = [], None
    out = []
    if "ATen" in ops:
        runs = (f"onnxruntime {ort} has a CPU kernel for it (a training build); inference builds and other runtimes do not" if "ATen" in kept else
                f"onnxruntime {ort} has no kernel for it, nor do other runtimes" if ort else "inference runtimes have no kernel for it")
        out.append(Finding("checker.experimental-aten", "warning" if "ATen" in kept else "error",
                           f"the model has ATen nodes (onnx.checker: experimental op ATen), which call back into PyTorch: {runs}",
                           NAME, details={"ops": ["ATen"]}))
    rest = [op for op in ops if op != "ATen"]
    kept = [op for op in kept if op != "ATen"]
    if rest:
        runs = (f"; onnxruntime {ort} still has CPU kernels for {', '.join(kept)}" if kept else
                f"; onnxruntime {ort} has no kernel for them" if ort else "")
        out.append(Finding("checker.experimental-ops", "warning",
                           f"the model uses experimental operators the ONNX standard no longer defines ({', '.join(rest)}){runs}; other runtimes, converters and execution providers need not support them",
                           NAME, details={"ops": rest, "cpu_kernels": kept}))
    return out

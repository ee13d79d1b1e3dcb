"""onnx.checker: is the model valid ONNX? (The structural half of check_model(full_check=True);
the shape-inference half is the shape_inference probe, so a valid model is inferred once.)

Given a ModelProto, the checker looks for external data files relative to the current
directory, so it runs from the model's folder; locations that escape the folder are pointed
at the model file itself for the duration, so nothing outside the folder is touched.
"""
from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from typing import Any

from diagnoser.report import Finding

NAME = "checker"


def applies(ctx: Any) -> bool:
    return ctx.model is not None


def first_lines(text: str, n: int = 3, width: int = 400) -> str:
    lines = [ln.strip() for ln in text.strip().splitlines() if ln.strip()]
    return " | ".join(lines[:n])[:width]


@contextlib.contextmanager
def _from_model_folder(ctx: Any) -> Iterator[None]:
    from diagnoser.probes.external_data import resolve

    tensors = ctx.external
    if not tensors:
        yield
        return
    folder = ctx.model.path.parent
    patched = []
    for t in tensors:
        for entry in t.external_data:
            if entry.key == "location" and resolve(folder, entry.value) is None:
                patched.append((entry, entry.value))
                entry.value = ctx.model.path.name
    cwd = os.getcwd()
    try:
        os.chdir(folder)
        yield
    finally:
        os.chdir(cwd)
        for entry, value in patched:
            entry.value = value


def run(ctx: Any) -> list[Finding]:
    import onnx

    try:
        with _from_model_folder(ctx):
            onnx.checker.check_model(ctx.model.proto, full_check=False)
    except (onnx.checker.ValidationError, ValueError) as exc:
        text = str(exc)
        if "in initializer but not in graph input" in text and ctx.model.proto.ir_version < 4:
            return [Finding("checker.initializer-not-input", "info",
                            f"IR {ctx.model.proto.ir_version} requires every initializer to be a graph input and this one is not ({first_lines(text, 1)}); onnxruntime accepts it, strict tools may not",
                            NAME, details={"error_text": text[:1000]})]
        return [Finding("checker.invalid", "error", f"onnx.checker rejects the model: {first_lines(text)}", NAME,
                        details={"error_text": text[:4000], "onnx": onnx.__version__})]
    return []

"""Opset conversion with onnx.version_converter (OT0200, OT0201, OT0202), and the IR down-stamp.

Down to the newest opset the target runtime reads (--ort-version, else the installed runtime's
own measured limit); up for models older than opset 7, which onnxruntime has no kernels for.
An op without an adapter is named. When only the IR stamp is too new (the opset needs no newer
IR), the stamp is lowered.
"""
from __future__ import annotations

from typing import Any

from diagnoser.remedies import Change, FixContext, RemedyError, RemedyResult

NAME = "opset-convert"
GRADE = "safe"
TOLERANCE = "float32"  # another op version may use another kernel
UP_TARGET = 13  # what models older than opset 7 are raised to (every supported runtime reads it)
MIN_OPSET = 7


def ir_for_opset(opset: int) -> int | None:
    """The oldest IR version whose release defines this ai.onnx opset (onnx's own table)."""
    from onnx import helper

    irs = [row[1] for row in helper.VERSION_TABLE if row[2] == opset]
    return min(irs) if irs else None


def apply(model: Any, ctx: FixContext) -> RemedyResult:
    from onnx import version_converter

    from diagnoser.remedies._util import opset

    current = opset(model)
    changes: list[Change] = []
    target = None
    if current is not None and current < MIN_OPSET:
        target = min(UP_TARGET, ctx.max_opset or UP_TARGET)
    elif current is not None and ctx.max_opset is not None and current > ctx.max_opset:
        target = ctx.max_opset
    if target is not None:
        try:
            converted = version_converter.convert_version(model, target)
        except Exception as exc:
            text = str(exc).strip().splitlines()
            why = text[0].split("failed: ", 1)[-1] if text else type(exc).__name__  # drop the C++ file and assertion
            raise RemedyError(f"onnx.version_converter cannot take opset {current} to {target}: {why[:300]}") from None
        converted.ir_version = max(model.ir_version if target > current else 0, ir_for_opset(target) or model.ir_version)
        model = converted
        changes.append(Change("opset", "ai.onnx", f"opset {current} -> {target}"))
        if model.graph.value_info:  # the converter's adapters can leave wrong shapes behind (e.g. Mul's broadcast Unsqueeze)
            changes.append(Change("value_info", "graph", f"{len(model.graph.value_info)} value_info entries left by the converter removed"))
            del model.graph.value_info[:]
    if ctx.max_ir is not None and model.ir_version > ctx.max_ir:
        need = ir_for_opset(opset(model) or 1) or 3
        if need > ctx.max_ir:
            raise RemedyError(f"opset {opset(model)} needs IR {need}, newer than the runtime's {ctx.max_ir}: lower the opset first")
        changes.append(Change("ir_version", "model", f"IR {model.ir_version} -> {ctx.max_ir}"))
        model.ir_version = ctx.max_ir
    if not changes:
        return RemedyResult(model, note=f"opset {current} and IR {model.ir_version} are within what the runtime reads")
    return RemedyResult(model, changes)

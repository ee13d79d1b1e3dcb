"""Remedies: automatic repairs of the problems entries describe, one small module each.

Like Ruff's fixes: each module has `NAME`, `GRADE` ("safe": numerics unchanged; "numerics":
changes dtypes, applied only when the accuracy check passes; "review": changes what the model
computes or guesses, applied only with --unsafe-fixes), a `TITLE`, and
`apply(model, ctx) -> RemedyResult` on a copy. An entry names the remedies that repair it in its
front matter (`remedies: [name]`); entries/remedies.yaml lists the names for `kb lint`.
Verification is one shared step (verify.py), never written per remedy.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any, Literal

from diagnoser.report import Change

Grade = Literal["safe", "numerics", "review"]
GRADES: tuple[Grade, ...] = ("safe", "numerics", "review")


class RemedyError(Exception):
    """The remedy cannot repair this model (said in one line, e.g. an op without an adapter)."""


@dataclass
class RemedyResult:
    model: Any  # the repaired onnx.ModelProto (a copy; the input proto is never edited)
    changes: list[Change] = field(default_factory=list)
    grade: Grade | None = None  # per-instance grade when the data decide (e.g. an exact Cast is safe)
    tolerance: str | None = None  # precision class the outputs must meet (verify.TOLERANCES); None: the module's
    note: str = ""
    writes_weights: bool = False  # the remedy rewrote weight data (external data must be re-saved)
    external_folder: Path | None = None  # where re-pointed external data lives (the model's folder)


@dataclass
class FixContext:
    """What remedies may read besides the model: never the weights of external files."""

    path: Path
    findings: tuple[Any, ...] = ()
    ort_target: str | None = None  # --ort-version
    max_opset: int | None = None  # what the target (or installed) runtime reads
    max_ir: int | None = None
    providers: tuple[str, ...] = ()
    shapes: dict[str, tuple[int, ...]] = field(default_factory=dict)
    keep_io_types: bool = True
    fp16_block: tuple[str, ...] = ()

    def found(self, *codes: str) -> list[Any]:
        return [f for f in self.findings if f.code in codes]


def registered() -> tuple[ModuleType, ...]:
    """Every remedy, in the order they are tried: structure first, then dtypes, then targets."""
    from diagnoser.remedies import (
        bf16_to_fp32, external_data, fixed_shapes, fp32_to_fp16, inference_form, mixed_dtype_cast,
        opset_convert, opset_fill, reinfer_shapes, rnn_layout,
    )

    return (opset_fill, reinfer_shapes, opset_convert, mixed_dtype_cast, bf16_to_fp32, rnn_layout,
            inference_form, external_data, fp32_to_fp16, fixed_shapes)


def by_name() -> dict[str, ModuleType]:
    return {m.NAME: m for m in registered()}


def copy_model(model: Any) -> Any:
    """A deep copy of a ModelProto (external data stays a reference: nothing is read)."""
    import onnx

    out = onnx.ModelProto()
    out.CopyFrom(model)
    return out

"""Inference form (OT0425): BatchNormalization and Dropout exported in training mode.

BatchNormalization loses training_mode=1 and its running-statistics outputs, so it normalises
with the stored mean and variance; Dropout loses its constant-true training_mode input, so it
passes values through. This changes what the model computes (that is the point), so it is
graded review and its outputs are shown against the original's, not gated.
"""
from __future__ import annotations

from typing import Any

from diagnoser.remedies import Change, FixContext, RemedyError, RemedyResult

NAME = "inference-form"
GRADE = "review"
TOLERANCE = "report"


def _used(model: Any) -> set[str]:
    used = {i for n in model.graph.node for i in n.input}
    return used | {o.name for o in model.graph.output}


def _true_constants(model: Any) -> set[str]:
    from onnx import numpy_helper

    from diagnoser.remedies._util import to_array

    out = {t.name for t in model.graph.initializer if len(t.dims) == 0 and bool(to_array(t).all())}
    for n in model.graph.node:
        if n.op_type == "Constant" and not n.domain:
            for a in n.attribute:
                if a.name == "value" and bool(numpy_helper.to_array(a.t).all()):
                    out.add(n.output[0])
    return out


def apply(model: Any, ctx: FixContext) -> RemedyResult:
    changes: list[Change] = []
    used = _used(model)
    true = None
    for node in model.graph.node:
        label = node.name or node.op_type
        if node.domain:
            continue
        if node.op_type == "BatchNormalization":
            flagged = [a for a in node.attribute if a.name == "training_mode" and a.i == 1]
            extra = [o for o in node.output[1:] if o]
            if not flagged and not extra:
                continue
            if any(o in used for o in extra):
                raise RemedyError(f"BatchNormalization '{label}' has running statistics that other nodes read; not rewritten")
            for a in flagged:
                node.attribute.remove(a)
            del node.output[1:]
            changes.append(Change("node-changed", label, "BatchNormalization: training_mode and statistics outputs removed (uses the stored mean/var)"))
        elif node.op_type == "Dropout" and len(node.input) > 2 and node.input[2]:
            true = _true_constants(model) if true is None else true
            if node.input[2] not in true:
                continue
            if len(node.output) > 1 and node.output[1] in used:
                raise RemedyError(f"Dropout '{label}' has a mask output that other nodes read; not rewritten")
            del node.input[2:]
            del node.output[1:]
            changes.append(Change("node-changed", label, "Dropout: constant training_mode=true removed (passes values through)"))
    if not changes:
        return RemedyResult(model, note="no BatchNormalization or Dropout in training form")
    return RemedyResult(model, changes)

"""Nodes exported in training mode: BatchNormalization with training_mode=1 (or the extra
running-statistics outputs training mode adds) and Dropout whose training_mode input is a
constant true.

Both come from torch.onnx.export on a module that was never put in eval mode (or from
training=TrainingMode.TRAINING). Where the runtime accepts them, results depend on the batch
(BatchNorm normalises with the batch's own statistics) or change from run to run (Dropout zeroes
random units); the CUDA BatchNorm kernel at opset 14+ and older CPU builds refuse them outright.
"""
from __future__ import annotations

from typing import Any

from diagnoser.report import Finding

NAME = "training_mode"


def applies(ctx: Any) -> bool:
    return ctx.model is not None


def _batchnorm(ctx: Any) -> list[Any]:
    out = []
    for grp in ctx.groups:
        if grp.domain or grp.op != "BatchNormalization":
            continue
        for node in grp.nodes:
            flagged = any(a.name == "training_mode" and a.i == 1 for a in node.attribute)
            if flagged or any(node.output[1:]):  # running mean / var (and saved stats before opset 14)
                out.append(node)
    return out


def _constant_true(ctx: Any, names: set[str]) -> set[str]:
    """Which of names are constant tensors holding true (initializers or Constant nodes)."""
    from onnx import numpy_helper

    tensors = {t.name: t for t in ctx.model.proto.graph.initializer if t.name in names}
    for grp in ctx.groups:
        if grp.op == "Constant" and not grp.domain:
            for node in grp.nodes:
                if node.output and node.output[0] in names:
                    tensors.update({node.output[0]: a.t for a in node.attribute if a.name == "value"})
    out = set()
    for name, t in tensors.items():
        try:
            if bool(numpy_helper.to_array(t).all()):
                out.add(name)
        except Exception:  # external or malformed: not proof either way
            continue
    return out


def _dropout(ctx: Any) -> list[Any]:
    nodes = [n for grp in ctx.groups if grp.op == "Dropout" and not grp.domain for n in grp.nodes if len(n.input) > 2 and n.input[2]]
    if not nodes:
        return []
    true = _constant_true(ctx, {n.input[2] for n in nodes})
    return [n for n in nodes if n.input[2] in true]


def run(ctx: Any) -> list[Finding]:
    bn, dropout = _batchnorm(ctx), _dropout(ctx)
    if not bn and not dropout:
        return []
    names = [n.name or f"<unnamed {n.op_type}>" for n in bn + dropout]
    parts = []
    if bn:
        parts.append(f"{len(bn)} BatchNormalization node(s) in training form (training_mode=1 or running-statistics outputs)")
    if dropout:
        parts.append(f"{len(dropout)} Dropout node(s) told to drop (training_mode input is a constant true)")
    return [Finding("node.training-mode", "warning",
                    f"the model was exported in training mode: {' and '.join(parts)}, e.g. '{names[0]}'. Where it loads, results depend on the batch or change between runs; the CUDA provider and older CPU builds refuse training-mode BatchNormalization. Call model.eval() before torch.onnx.export",
                    NAME, node=names[0], details={"batchnorm": [n.name for n in bn][:20], "dropout": [n.name for n in dropout][:20]})]

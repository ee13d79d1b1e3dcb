"""Shape constants that may bake an export-time size into a graph with dynamic inputs.

A tracing exporter records a Python int taken from the example input (the sequence length, a
batch of 1 in `view(1, ...)`) as a literal in the shape a Reshape, Expand, Tile or ConstantOfShape
reads. Alone such a literal proves nothing (head counts and hidden sizes are literals too), so
these helpers only give the session probe sizes worth trying and, once the session has shown
that a dimension works at one size only, name the constants holding that size.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

_SHAPE_INPUT = {"Reshape": 1, "Expand": 1, "Tile": 1, "ConstantOfShape": 0}
_PASS = frozenset({"Unsqueeze", "Squeeze", "Cast", "Identity", "Reshape"})


@dataclass(frozen=True)
class ShapeConstant:
    consumer: str  # the Reshape/Expand/... node reading the shape
    op: str
    source: str  # the Constant node or initializer holding the literal
    values: tuple[int | None, ...]  # the shape, None where a value comes from the graph (Shape ops)


def _literals(graph: Any) -> dict[str, tuple[int, ...]]:
    from onnx import numpy_helper

    out: dict[str, tuple[int, ...]] = {}
    for init in graph.initializer:
        if init.data_type in (6, 7) and len(init.dims) <= 1:  # int32 / int64 vectors
            out[init.name] = tuple(int(v) for v in numpy_helper.to_array(init).reshape(-1))
    for node in graph.node:
        if node.op_type == "Constant" and node.output:
            for attr in node.attribute:
                if attr.name == "value" and attr.t.data_type in (6, 7) and len(attr.t.dims) <= 1:
                    out[node.output[0]] = tuple(int(v) for v in numpy_helper.to_array(attr.t).reshape(-1))
    return out


def shape_constants(graph: Any) -> list[ShapeConstant]:
    """Every shape input that is a literal, or a Concat mixing literals with values the graph
    computes (Shape -> Gather ...): the pattern of a size frozen next to dynamic ones."""
    literals = _literals(graph)
    producers = {o: n for n in graph.node for o in n.output}
    names = {o: (n.name or n.op_type) for n in graph.node for o in n.output}

    def resolve(name: str, depth: int = 0) -> tuple[tuple[int | None, ...] | None, str]:
        if name in literals:
            return literals[name], names.get(name, name)
        node = producers.get(name)
        if node is None or depth > 3:
            return None, ""
        if node.op_type in _PASS and node.input:
            vals, src = resolve(node.input[0], depth + 1)
            return vals, src
        return None, ""

    out = []
    for node in graph.node:
        at = _SHAPE_INPUT.get(node.op_type)
        if at is None or len(node.input) <= at or not node.input[at]:
            continue
        shape = node.input[at]
        vals, src = resolve(shape)
        if vals is not None:
            out.append(ShapeConstant(node.name or node.op_type, node.op_type, src, vals))
            continue
        concat = producers.get(shape)
        if concat is None or concat.op_type != "Concat":
            continue
        parts: list[int | None] = []
        sources = []
        for part in concat.input:
            v, s = resolve(part)
            if v is None:
                parts.append(None)
            else:
                parts.extend(v)
                sources.append(s)
        if None in parts and any(p is not None for p in parts):
            out.append(ShapeConstant(node.name or node.op_type, node.op_type, ", ".join(sources), tuple(parts)))
    return out


def size_hints(graph: Any, limit: int = 3) -> list[int]:
    """Sizes worth trying for a dynamic dimension when every everyday size failed: literals > 1
    that sit next to computed values in a shape (most frequent first)."""
    counts: Counter[int] = Counter()
    for sc in shape_constants(graph):
        if None in sc.values:
            counts.update(v for v in sc.values if v is not None and v > 1)
    return [v for v, _ in counts.most_common(limit)]


def holding(graph: Any, value: int, batch: bool = False) -> list[ShapeConstant]:
    """The shape constants holding this export-time size (at position 0 for a batch)."""
    found = []
    for sc in shape_constants(graph):
        if batch:
            if sc.values[:1] == (value,) and any(v in (-1, None) for v in sc.values[1:]):
                found.append(sc)
        elif value in sc.values:
            found.append(sc)
    return found

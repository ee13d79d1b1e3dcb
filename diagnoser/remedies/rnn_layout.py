"""RNN/GRU/LSTM layout=1 rewritten as layout=0 between Transposes (OT0216).

onnxruntime's CPU kernels accept only layout=0 (sequence first). X, initial_h and initial_c get
a Transpose [1,0,2] before the node; Y a Transpose [2,0,1,3] after it and Y_h/Y_c [1,0,2]:
the same numbers in the layout the rest of the graph expects.
"""
from __future__ import annotations

from typing import Any

from diagnoser.remedies import Change, FixContext, RemedyResult

NAME = "rnn-layout"
GRADE = "safe"
TOLERANCE = "exact"
_OPS = {"RNN": (0, 5), "GRU": (0, 5), "LSTM": (0, 5, 6)}  # inputs to transpose: X, initial_h(, initial_c)


def apply(model: Any, ctx: FixContext) -> RemedyResult:
    from onnx import helper

    from diagnoser.remedies._util import Namer

    fresh = Namer(model)

    changes: list[Change] = []
    out_nodes: list[Any] = []
    for node in model.graph.node:
        layout = next((a for a in node.attribute if a.name == "layout"), None)
        if node.domain or node.op_type not in _OPS or layout is None or layout.i != 1:
            out_nodes.append(node)
            continue
        label = node.name or node.op_type
        before, after = [], []
        for i in _OPS[node.op_type]:
            if i < len(node.input) and node.input[i]:
                t = fresh(f"{node.input[i]}_seq_first")
                before.append(helper.make_node("Transpose", [node.input[i]], [t], perm=[1, 0, 2], name=fresh(f"{label}/to_layout0_{i}")))
                node.input[i] = t
        for i, perm in ((0, [2, 0, 1, 3]), (1, [1, 0, 2]), (2, [1, 0, 2])):
            if i < len(node.output) and node.output[i]:
                t = fresh(f"{node.output[i]}_seq_first")
                after.append(helper.make_node("Transpose", [t], [node.output[i]], perm=perm, name=fresh(f"{label}/to_layout1_{i}")))
                node.output[i] = t
        layout.i = 0
        changes.append(Change("node-changed", label, f"{node.op_type} layout=1 -> layout=0"))
        changes += [Change("node-added", n.name, f"Transpose perm={list(n.attribute[0].ints)}") for n in (*before, *after)]
        out_nodes += [*before, node, *after]
    if not changes:
        return RemedyResult(model, note="no RNN/GRU/LSTM with layout=1")
    copies = []
    for n in out_nodes:
        c = type(n)()
        c.CopyFrom(n)
        copies.append(c)
    del model.graph.node[:]
    model.graph.node.extend(copies)
    return RemedyResult(model, changes)

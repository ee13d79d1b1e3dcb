"""A folder of small real ONNX models of varied ops and dtypes, some of them broken, for the
folder audit (tests/model/test_audit.py, bench/audit_speed.py). Built on the fly, never committed.

Each model is named for what it is, so a test can tell what the audit must say about it:
`ok-*` load and run on CPU, `bf16-*` have no CPU kernel, `mixed-*` bind two dtypes to one type
parameter, `broken-*` are not readable models.
"""
from __future__ import annotations

from pathlib import Path

import onnx
from onnx import TensorProto, helper, numpy_helper

F32, F16, BF16 = TensorProto.FLOAT, TensorProto.FLOAT16, TensorProto.BFLOAT16


def _io(name: str, dtype: int, shape: list[int]) -> onnx.ValueInfoProto:
    return helper.make_tensor_value_info(name, dtype, shape)


def _model(nodes: list[onnx.NodeProto], inputs, outputs, inits=(), opset: int = 17) -> onnx.ModelProto:
    graph = helper.make_graph(nodes, "g", inputs, outputs, list(inits))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=9)


def _const(name: str, dtype: int, shape: list[int], value: float = 0.5) -> onnx.TensorProto:
    import numpy as np

    arr = np.full(shape, value, dtype=np.float32)
    if dtype == F16:
        arr = arr.astype(np.float16)
    t = numpy_helper.from_array(arr, name)
    if dtype == BF16:  # numpy has no bfloat16: bfloat16 is the top half of the float32 bits
        t = helper.make_tensor(name, BF16, shape, [value] * int(np.prod(shape)))
    return t


def unary(op: str, dtype: int = F32, n: int = 8) -> onnx.ModelProto:
    return _model([helper.make_node(op, ["x"], ["y"], name=f"/{op.lower()}")], [_io("x", dtype, [1, n])], [_io("y", dtype, [1, n])])


def binary(op: str, dtype: int = F32, other: int | None = None, n: int = 8) -> onnx.ModelProto:
    other = dtype if other is None else other
    return _model([helper.make_node(op, ["x", "w"], ["y"], name=f"/{op.lower()}")], [_io("x", dtype, [1, n])],
                  [_io("y", dtype, [1, n])], [_const("w", other, [n])])


def matmul_chain(depth: int, n: int = 8, dtype: int = F32) -> onnx.ModelProto:
    nodes, inits, prev = [], [], "x"
    for i in range(depth):
        inits.append(_const(f"w{i}", dtype, [n, n], 0.1))
        nodes += [helper.make_node("MatMul", [prev, f"w{i}"], [f"m{i}"], name=f"/layer{i}/MatMul"),
                  helper.make_node("Relu", [f"m{i}"], [f"r{i}"], name=f"/layer{i}/Relu")]
        prev = f"r{i}"
    nodes.append(helper.make_node("Softmax", [prev], ["y"], axis=-1, name="/softmax"))
    return _model(nodes, [_io("x", dtype, [1, n])], [_io("y", dtype, [1, n])], inits)


def conv(dtype: int = F32) -> onnx.ModelProto:
    nodes = [helper.make_node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1], name="/conv"),
             helper.make_node("Relu", ["c"], ["y"], name="/relu")]
    return _model(nodes, [_io("x", dtype, [1, 3, 8, 8])], [_io("y", dtype, [1, 4, 8, 8])], [_const("w", dtype, [4, 3, 3, 3], 0.1)])


def build(folder: Path, count: int) -> list[Path]:
    """Write `count` models into folder (in subfolders of 50), cycling through the kinds."""
    import numpy as np  # noqa: F401 (the builders need it; fail here if absent)

    kinds = [
        ("ok-add", lambda: binary("Add")), ("ok-mul16", lambda: binary("Mul", F16)), ("ok-relu", lambda: unary("Relu")),
        ("ok-sigmoid", lambda: unary("Sigmoid")), ("ok-matmul", lambda: matmul_chain(3)), ("ok-conv", conv),
        ("ok-deep", lambda: matmul_chain(12)), ("ok-tanh16", lambda: unary("Tanh", F16)),
        ("bf16-add", lambda: binary("Add", BF16)), ("mixed-add", lambda: binary("Add", F32, F16)),
        ("broken-truncated", None), ("broken-lfs", None), ("broken-empty", None),
    ]
    out = []
    for i in range(count):
        name, make = kinds[i % len(kinds)]
        path = folder / f"part{i // 50:02d}" / f"{name}-{i:04d}.onnx"
        path.parent.mkdir(parents=True, exist_ok=True)
        if make is not None:
            onnx.save(make(), str(path))
        elif name == "broken-truncated":
            path.write_bytes(matmul_chain(2).SerializeToString()[:-37])
        elif name == "broken-lfs":
            path.write_text("version https://git-lfs.github.com/spec/v1\noid sha256:" + "0" * 64 + "\nsize 1234\n")
        else:
            path.write_bytes(b"")
        out.append(path)
    return out

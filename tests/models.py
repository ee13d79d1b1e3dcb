"""Small real models built on the fly for tests (no binary fixtures to go stale)."""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import onnx
from onnx import TensorProto, helper

NODE = "/self_attn/q_proj/Add"


def add_model(a_type: int, b_type: int, *, name: str = NODE, opset: int = 14, b_is_initializer: bool = True) -> onnx.ModelProto:
    """One Add node: input `hidden` of a_type plus `bias` of b_type (an initializer by default)."""
    node = helper.make_node("Add", ["hidden", "bias"], ["out"], name=name)
    inputs = [helper.make_tensor_value_info("hidden", a_type, [1, 4])]
    inits = []
    if b_is_initializer:
        vals = [1, 1, 1, 1]
        inits.append(helper.make_tensor("bias", b_type, [4], vals))
    else:
        inputs.append(helper.make_tensor_value_info("bias", b_type, [4]))
    graph = helper.make_graph([node], "add", inputs, [helper.make_tensor_value_info("out", a_type, [1, 4])], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=10)


@lru_cache(maxsize=1)
def runtime_limits() -> tuple[int, int]:
    """(newest IR version, newest ai.onnx opset) the installed onnxruntime loads, found by loading
    one-node models at rising stamps until it refuses: so no test hard-codes what "too new" means,
    and the same tests hold on every release. Independent of the code under test."""
    import onnxruntime as ort

    def loads(ir: int, opset: int) -> bool:
        graph = helper.make_graph([helper.make_node("Identity", ["x"], ["y"])], "g",
                                  [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1])],
                                  [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1])])
        m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=ir)
        try:
            ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"])
            return True
        except Exception:
            return False

    ir = 7
    while loads(ir + 1, 7):
        ir += 1
    opset = 7
    while loads(7, opset + 1):
        opset += 1
    return ir, opset


def save(model: onnx.ModelProto, path: Path) -> Path:
    onnx.save(model, str(path))
    return path


def ort_error(path: Path) -> str:
    """The real message onnxruntime gives when creating a CPU session for path (empty if it loads)."""
    import onnxruntime as ort

    try:
        ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    except Exception as exc:  # the exception text is what users paste
        return f"{type(exc).__module__}.{type(exc).__name__}: {exc}"
    return ""


BF16 = TensorProto.BFLOAT16
F16 = TensorProto.FLOAT16
F32 = TensorProto.FLOAT
I32 = TensorProto.INT32

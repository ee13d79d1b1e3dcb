"""Rebuild the bundled example: a small q_proj block exported in bfloat16, and the real error
onnxruntime prints when it loads it on CPU. Run: python examples/build_examples.py"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = Path(__file__).resolve().parent


def q_proj_bf16() -> onnx.ModelProto:
    rng = np.random.default_rng(0)
    weight = numpy_helper.from_array(rng.standard_normal((16, 16)).astype(np.float32), "q_proj.weight")
    bias = numpy_helper.from_array(rng.standard_normal(16).astype(np.float32), "q_proj.bias")
    for t in (weight, bias):  # store as bfloat16, as a BF16 checkpoint exports
        data = numpy_helper.to_array(t).astype(np.float32)
        t.CopyFrom(helper.make_tensor(t.name, TensorProto.BFLOAT16, data.shape, data.flatten().tolist()))
    nodes = [
        helper.make_node("Cast", ["hidden_states"], ["hidden_bf16"], to=TensorProto.BFLOAT16, name="/self_attn/Cast"),
        helper.make_node("Add", ["hidden_bf16", "q_proj.bias"], ["q"], name="/self_attn/q_proj/Add"),
        helper.make_node("MatMul", ["q", "q_proj.weight"], ["scores"], name="/self_attn/MatMul"),
        helper.make_node("Cast", ["scores"], ["out"], to=TensorProto.FLOAT, name="/self_attn/Cast_1"),
    ]
    graph = helper.make_graph(
        nodes, "qwen_block_bf16",
        [helper.make_tensor_value_info("hidden_states", TensorProto.FLOAT, ["batch", "seq", 16])],
        [helper.make_tensor_value_info("out", TensorProto.FLOAT, ["batch", "seq", 16])],
        [weight, bias],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)], ir_version=10, producer_name="examples/build_examples.py")


def main() -> None:
    import onnxruntime as ort

    path = HERE / "bf16_add.onnx"
    onnx.save(q_proj_bf16(), str(path))
    try:
        ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    except Exception as exc:  # the text users paste
        message = f"{type(exc).__module__}.{type(exc).__name__}: {exc}\n"
    else:
        raise SystemExit("the example model unexpectedly loads")
    (HERE / "bf16_add.error.txt").write_text(message, encoding="utf-8")
    print(message, end="")


if __name__ == "__main__":
    main()

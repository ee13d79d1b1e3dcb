"""The DirectML NPU probe: FP32 models and head-only graphs, and their negatives."""
from __future__ import annotations

from onnx import TensorProto, helper

from diagnoser.model.modelfile import load
from diagnoser.probes import ProbeContext, dml_npu
from tests.models import save


def _model(nodes, inputs, outputs, inits):
    graph = helper.make_graph(nodes, "g", inputs, outputs, inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=10)


def _conv2d(dtype):
    return _model(
        [helper.make_node("Conv", ["x", "W"], ["y"], pads=[1, 1, 1, 1]), helper.make_node("Relu", ["y"], ["z"])],
        [helper.make_tensor_value_info("x", dtype, [1, 3, 8, 8])],
        [helper.make_tensor_value_info("z", dtype, [1, 4, 8, 8])],
        [helper.make_tensor("W", dtype, [4, 3, 3, 3], [0.1] * 108)],
    )


def _conv1d_head():
    return _model(
        [helper.make_node("Conv", ["x", "W"], ["y"]), helper.make_node("GlobalAveragePool", ["y"], ["z"])],
        [helper.make_tensor_value_info("x", TensorProto.FLOAT16, [1, 3, 16])],
        [helper.make_tensor_value_info("z", TensorProto.FLOAT16, [1, 4, 1])],
        [helper.make_tensor("W", TensorProto.FLOAT16, [4, 3, 3], [0.1] * 36)],
    )


def _run(tmp_path, model, providers=("DmlExecutionProvider",), text="", target="npu"):
    targets = {"DmlExecutionProvider": target} if target and "DmlExecutionProvider" in providers else {}
    ctx = ProbeContext(model=load(save(model, tmp_path / "m.onnx")), providers=providers, targets=targets, text=text)
    return ctx, ({f.code for f in dml_npu.run(ctx)} if dml_npu.applies(ctx) else None)


def test_fp32_conv_model_is_flagged_fp32_only(tmp_path):
    _, codes = _run(tmp_path, _conv2d(TensorProto.FLOAT))
    assert codes == {"model.float32-compute"}


def test_fp16_conv_model_is_clean(tmp_path):
    _, codes = _run(tmp_path, _conv2d(TensorProto.FLOAT16))
    assert codes == {"model.float16-compute"}


def test_conv1d_head_is_flagged(tmp_path):
    _, codes = _run(tmp_path, _conv1d_head())
    assert "model.head-only-graph" in codes and "model.float32-compute" not in codes


def test_applies_on_error_text_without_providers(tmp_path):
    _, codes = _run(tmp_path, _conv2d(TensorProto.FLOAT), providers=(), text="887A0004 The specified device interface")
    assert codes == {"model.float32-compute"}


def test_not_applicable_for_cpu_only(tmp_path):
    _, codes = _run(tmp_path, _conv2d(TensorProto.FLOAT), providers=("CPUExecutionProvider",))
    assert codes is None


def test_float16_expectation_only_on_an_npu(tmp_path):
    """A DirectML GPU runs float32 models: the NPU-only rule stays silent unless the target is an NPU."""
    _, codes = _run(tmp_path, _conv2d(TensorProto.FLOAT), target=None)
    assert codes is None
    _, codes = _run(tmp_path, _conv2d(TensorProto.FLOAT), target="gpu")
    assert codes is None
    _, codes = _run(tmp_path, _conv2d(TensorProto.FLOAT), target=None, text="running on the Intel AI Boost NPU")
    assert codes == {"model.float32-compute"}

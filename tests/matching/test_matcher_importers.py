"""Other engines' importers refusing an operator, or failing to open the .onnx file, in their own words.

An importer's refusal of an op is export.unsupported-operator with the op extracted, whichever
tool says it ("Unimplemented: node operation X", "KeyError: 'X not yet implemented'", ncnn's
"layer X not exists or registered"); onnxruntime's, torch.onnx's and TensorFlow Lite's own
refusals keep their entries or stay out. A model file an engine cannot open is OT0420 whichever
engine says so. Every text is real: a public thread (none a blind-set source) or the tools' own
output, cited beside it.
"""
from __future__ import annotations

import pytest

from diagnoser import diagnose


def _first(text: str) -> tuple[str | None, dict[str, str]]:
    report = diagnose(text=text)
    if not report.diagnoses:
        return None, {}
    top = report.diagnoses[0]
    return top.id, dict(top.facts)


@pytest.mark.parametrize(("text", "op"), [
    # https://github.com/kraiskil/onnx2c/issues/50 (title)
    ("[Fatal] (createNode) Unimplemented: node operation SplitToSequence", "SplitToSequence"),
    # https://github.com/MPolaris/onnx2tflite/issues/2 (the description's second error)
    ("KeyError: `Identity not yet implemented`", "Identity"),
    # https://github.com/fastmachinelearning/hls4ml/pull/116 (a test run of the ONNX converter)
    ("raise Exception('ERROR: Unsupported operation type: {}'.format(operation.op_type))\n"
     "Exception: ERROR: Unsupported operation type: MatMul", "MatMul"),
])
def test_an_importers_refusal_of_an_op_is_an_unsupported_operator_with_the_op(text, op):
    entry, facts = _first(text)
    assert entry == "OT1464"
    assert facts.get("op") == op


@pytest.mark.parametrize("text", [
    # https://github.com/pnnx/pnnx/issues/174 (an ONNX model converted with pnnx, run with ncnn)
    "layer Conv not exists or registered",
    # https://github.com/Tencent/ncnn/issues/5626: an ONNX Resize kept as a layer type ncnn lacks
    "layer Resize not exists or registered",
    # https://github.com/Tencent/ncnn/issues/6413: pnnx's own expression layer left unconverted
    "layer pnnx.Expression not exists or registered",
])
def test_ncnn_loading_a_layer_the_converter_left_unconverted(text):
    """ncnn's Net::load_param names the layer type it lacks: whichever op the converter (onnx2ncnn or
    pnnx) left behind, OT1707 explains the load failure and points back to the converter's entries."""
    assert _first(text)[0] == "OT1707"


@pytest.mark.parametrize("text", [
    # https://github.com/tensorflow/tensorflow/issues/90899 (tensorflowjs_converter; TensorFlow's own words)
    "ValueError: Unsupported Ops in the model before optimization Erfc",
    # https://github.com/zhenhuaw-me/tflite2onnx/issues/75: tflite2onnx has its own entry (OT0957)
    "NotImplementedError: Unsupported TFLite OP: 32 CUSTOM!",
])
def test_neighbouring_frameworks_refusals_are_not_the_importer_family(text):
    assert _first(text)[0] != "OT1464"


def test_onnxruntimes_own_missing_kernel_keeps_its_entry():
    text = ("onnxruntime.capi.onnxruntime_pybind11_state.NotImplemented: [ONNXRuntimeError] : 9 : NOT_IMPLEMENTED : "
            "Could not find an implementation for Add(14) node with name '/self_attn/q_proj/Add'")
    assert _first(text)[0] == "OT0001"


@pytest.mark.parametrize("text", [
    # openvino 2026.4.1, Core().read_model() of an .onnx path that does not exist (run here)
    'RuntimeError: Exception from src/inference/src/cpp/core.cpp:84:\n'
    "Check 'util::directory_exists(path) || util::file_exists(path)' failed at src/frontends/common/src/frontend.cpp:117:\n"
    'FrontEnd API failed with GeneralFailure:\nonnx: Could not open the file: "/tmp/m8/models/missing.onnx"',
    # https://github.com/iwatake2222/play_with_tensorrt/issues/20 (TensorRT's ONNX parser in a C++ sample)
    "Could not open file /home/nvidia/Downloads/play_with_tensorrt-master/pj_tensorrt_depth_stereo_hitnet/build/"
    "resource//model/hitnet_eth3d_480x640.onnx",
])
def test_an_engine_that_cannot_open_the_onnx_file_is_ot0420(text):
    assert _first(text)[0] == "OT0420"


def test_openvino_unable_to_open_its_own_ir_is_not_about_onnx():
    # https://github.com/Daniil-Osokin/lightweight-human-pose-estimation.pytorch/issues/147: an .xml IR
    text = ("[ ERROR ] Model file /home/Desktop/gitpackages/lightweight-human-pose-estimation.pytorch/"
            "human-pose-estimation.xml cannot be opened!")
    assert _first(text)[0] != "OT0420"


def test_opencvs_constant_add_assertion_without_its_function_name():
    # the C++ log form, as a public project's README quotes OpenCV 4.7.0 loading a YOLO export
    text = ("OpenCV(4.7.0) Error: Assertion failed (blob_0.size == blob_1.size) in parseBias, file "
            "./modules/dnn/src/onnx/onnx_importer.cpp, line 1067")
    assert _first(text)[0] == "OT1256"


def test_onnx_tf_frames_around_tensorflows_shape_check():
    # https://github.com/onnx/onnx-tensorflow/issues/767 (the traceback's first and last lines)
    text = ("WARNING:tensorflow:From /home/dmp/Downloads/onnx-tensorflow/onnx_tf/handlers/backend/reshape.py:31: "
            "sparse_to_dense (from tensorflow.python.ops.sparse_ops) is deprecated and will be removed in a future version.\n"
            "tensorflow.python.framework.errors_impl.InvalidArgumentError: Dimensions must be equal, but are 25600 and 512 "
            "for 'MatMul_149' (op: 'MatMul') with input shapes: [1,25600], [512,128]")
    assert _first(text)[0] == "OT1208"

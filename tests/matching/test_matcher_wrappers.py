"""One problem reads the same from every binding, and a wrapper alone proves nothing (issue 11, item 2).

Real texts from public threads (cited beside each), and texts the installed onnxruntime produces
here. A binding's status code must reach the same internal form as Python's
`[ONNXRuntimeError] : N : NAME :`, its wrapper must fall away from the core line, and the status
line with no message of any entry behind it must never be a confident diagnosis.
"""
from __future__ import annotations

import subprocess
import sys
import textwrap

import numpy as np
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper

from diagnoser import diagnose
from diagnoser.matching.text import canonical_status, core_line, prepare


def _ids(text: str) -> tuple[list[str], list[str]]:
    report = diagnose(text=text)
    return [d.id for d in report.diagnoses], [d.id for d in report.candidates]


# --- status codes: every binding's spelling gains Python's form ---

@pytest.mark.parametrize("wrapped, python", [
    # Java (ai.onnxruntime.OrtException), https://github.com/ZTMIDGO/Android-Stable-diffusion-ONNX/issues/25
    ("ai.onnxruntime.OrtException: Error code - ORT_FAIL - message: inference_session.cc:1409 LoadOrtModelWithLoader ORT model verification failed.",
     "[ONNXRuntimeError] : 1 : FAIL : inference_session.cc:1409"),
    # C#, https://github.com/AIDajiangtang/Segment-Anything-CSharp/issues/1
    ("'[ErrorCode:RuntimeException] Non-zero status code returned while running Add node. Name:'/blocks.7/attn/Add_2' Status Message: bad allocation'",
     "[ONNXRuntimeError] : 6 : RUNTIME_EXCEPTION : Non-zero status code"),
])
def test_a_binding_status_reads_as_the_python_status(wrapped, python):
    assert python in prepare(wrapped).text


def test_the_number_only_bindings_read_as_the_python_status(tmp_path):
    """Dart and onnxruntime-web print the status number, not its name: the runtime's own status
    for an unparsable file, in each binding's format (the onnxruntime pub package's
    lib/src/ort_status.dart: 'code=N, message=M'; onnxruntime's js/web/lib/wasm/wasm-utils.ts:
    '<what> ERROR_CODE: N, ERROR_MESSAGE: M')."""
    path = tmp_path / "model.onnx"
    path.write_bytes(b"\x08\x01\x12\xff\xff\xff not a protobuf")
    with pytest.raises(ort.capi.onnxruntime_pybind11_state.InvalidProtobuf) as err:
        ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    python = str(err.value)
    head, message = python.split(" : INVALID_PROTOBUF : ", 1)
    assert head.endswith("[ONNXRuntimeError] : 7")
    for wrapped in (f"_OrtException (code=7, message={message})",
                    f"Error: Can't create a session. ERROR_CODE: 7, ERROR_MESSAGE: {message}"):
        assert f"[ONNXRuntimeError] : 7 : INVALID_PROTOBUF : {message}" in prepare(wrapped).text
        assert core_line(prepare(wrapped).text).startswith(message[:40])
        assert _ids(wrapped)[0][:1] == _ids(python)[0][:1] != []


@pytest.mark.parametrize("text", [
    "FirebaseException: code=2, message=permission denied",  # another library's code=N, message=
    "Microsoft.ML.OnnxRuntime.OnnxRuntimeException: [ErrorCode:ShapeInferenceNotRegistered] x",  # no Python twin
    "Error code - ORT_JAVA_UNKNOWN - message: x",
    "_OrtException (code=0, message=)",  # OK is not an error status
])
def test_forms_without_a_python_twin_are_left_alone(text):
    assert canonical_status(text) == text


def test_the_wrappers_fall_away_from_the_core_line():
    # Flutter's engine log around the Dart exception (the onnxruntime pub package's own format:
    # lib/src/ort_status.dart prints 'code=${code.value}, message=$message')
    flutter = ("E/flutter (4242): [ERROR:flutter/runtime/dart_vm_initializer.cc(41)] Unhandled Exception: "
               "code=9, message=Could not find an implementation for RoiAlign(22) node with name 'roi'")
    assert core_line(prepare(flutter).text).startswith("Could not find an implementation for RoiAlign(22)")
    # onnxruntime-rs, https://github.com/nbigaouette/onnxruntime-rs/pull/50
    rust = ("Failed to create session: Error calling ONNX Runtime C function: Could not find an implementation for the node "
            "StatefulPartitionedCall/yolo_v3/non_max_suppression_padded/PartitionedCall/TopKV2:TopK(11)")
    assert core_line(prepare(rust).text).startswith("Could not find an implementation for the node")
    # ML.NET around the C# exception, https://github.com/microsoft/onnxruntime/issues/7828
    mlnet = ("System.InvalidOperationException: 'Error initializing model :Microsoft.ML.OnnxRuntime.OnnxRuntimeException: [ErrorCode:Fail] "
             r"D:\3\s\onnxruntime\core\providers\cuda\cuda_call.cc:123 onnxruntime::CudaCall CUDA failure 3: initialization error")
    assert core_line(prepare(mlnet).text).startswith(r"D:\3\s\onnxruntime\core\providers\cuda\cuda_call.cc:123")


@pytest.mark.parametrize("logged, message", [
    # Python logging's "asctime - name - LEVEL - message", the date and time joined by a colon
    # (OT0715's example, https://github.com/open-mmlab/mmdeploy/issues/1023)
    ("2022-09-08:12:24:19 - root - ERROR - Error in execution: Non-zero status code returned while running ScatterND node.",
     "Error in execution: Non-zero status code"),
    # a server's status tag (OT1009's example, https://github.com/ELS-RD/transformer-deploy/issues/166)
    ("[StatusCode.INTERNAL] in ensemble 'transformer_onnx_inference', onnx runtime error 1: Non-zero status code returned while running Transpose node.",
     "in ensemble 'transformer_onnx_inference'"),
])
def test_an_applications_log_prefix_falls_away(logged, message):
    assert core_line(prepare(logged).text).startswith(message)


@pytest.mark.parametrize("line", [
    # the family's own tags and error classes name the component: they stay (OT0602, OT0155, OT0312 examples)
    "[Paddle2ONNX] Oops, there are some operators not supported yet, including isnan_v2,",
    "[ShapeInferenceError] Inferred shape and existing shape differ in dimension 0: (1024) vs (1000)",
    "[ONNXRuntimeError] TensorRT EP could not build Engine for fused node",
    # a plain word: an issue title's platform (OT0531's example)
    "[Mobile] NNAPI: ANeuralNetworksModel_identifyInputsAndOutputs Can't set operand 2 to be an input or output",
])
def test_the_familys_own_tags_stay(line):
    assert core_line(prepare(line).text) == line


def _roi_align_22() -> tuple[int, str]:
    """onnxruntime's own status for a RoiAlign at opset 22 (no kernel on CPU in 1.31-1.32)."""
    nodes = [helper.make_node("RoiAlign", ["x", "rois", "idx"], ["y"], name="/roi_heads/RoiAlign")]
    graph = helper.make_graph(nodes, "g", [
        helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 1, 8, 8]),
        helper.make_tensor_value_info("rois", TensorProto.FLOAT, [1, 4]),
        helper.make_tensor_value_info("idx", TensorProto.INT64, [1])], [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 22)])
    model.ir_version = 10
    try:
        ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    except ort.capi.onnxruntime_pybind11_state.NotImplemented as exc:
        return 9, str(exc)
    pytest.skip("this onnxruntime has a RoiAlign(22) kernel")


def test_the_dart_exception_is_diagnosed_as_the_python_one():
    code, python = _roi_align_22()
    message = python.split("NOT_IMPLEMENTED : ", 1)[1]
    dart = f"_OrtException (code={code}, message={message})"  # lib/src/ort_status.dart's toString
    java = f"ai.onnxruntime.OrtException: Error code - ORT_NOT_IMPLEMENTED - message: {message}"
    csharp = f"Microsoft.ML.OnnxRuntime.OnnxRuntimeException: [ErrorCode:NotImplemented] {message}"
    assert _ids(python)[0][:1] == ["OT0215"]
    for wrapped in (dart, java, csharp):
        assert _ids(wrapped)[0][:1] == ["OT0215"], wrapped


@pytest.mark.parametrize("text, expected", [
    # https://github.com/ZTMIDGO/Android-Stable-diffusion-ONNX/issues/25 (Java)
    ("ai.onnxruntime.OrtException: Error code - ORT_FAIL - message: inference_session.cc:1409 LoadOrtModelWithLoader ORT model verification failed.\n"
     "  \tat ai.onnxruntime.OrtSession.createSession(Native Method)", "OT0518"),
    # https://github.com/nbigaouette/onnxruntime-rs/pull/50 (Rust, the older wording of a missing kernel)
    # https://github.com/dotnet/machinelearning/issues/7339 (ML.NET, .NET's nested-exception dashes)
    ("---------------- System.InvalidOperationException : Error initializing model :Microsoft.ML.OnnxRuntime.OnnxRuntimeException: "
     "[ErrorCode:Fail] inference_session.cc:1357 onnxruntime::InferenceSession::LoadOrtModelWithLoader ORT model verification failed.", "OT0518"),
    ("Failed to create session: Error calling ONNX Runtime C function: Could not find an implementation for the node "
     "StatefulPartitionedCall/yolo_v3/non_max_suppression_padded/PartitionedCall/TopKV2:TopK(11)", "OT0001"),
    # https://github.com/onnx/onnxmltools/issues/701 (Reshape(19) on onnxruntime 1.15.1: the op version, not a dtype)
    ("onnxruntime.capi.onnxruntime_pybind11_state.NotImplemented: [ONNXRuntimeError] : 9 : NOT_IMPLEMENTED : Could not find an "
     "implementation for Reshape(19) node with name 'reshape_node'", "OT0215"),
])
def test_real_binding_texts_find_their_entry(text, expected):
    assert _ids(text)[0][:1] == [expected]


def test_a_type_agnostic_op_without_a_kernel_is_a_missing_op_version_not_a_dtype_gap():
    """Reshape/Shape/Squeeze... have a kernel for every tensor type: no kernel is the op version."""
    # https://github.com/microsoft/onnxruntime-training-examples/issues/175 (fixed by exporting at opset 18)
    text = (r"RuntimeError: C:\a\_work\1\s\orttraining\orttraining\training_api\module.cc:175 onnxruntime::training::api::Module::Module "
            "[ONNXRuntimeError] : 9 : NOT_IMPLEMENTED : Could not find an implementation for Reshape(19) node with name 'Reshape__265'")
    sure, _ = _ids(text)
    assert sure[:1] == ["OT0215"] and "OT0001" not in sure
    # a dtype gap on an arithmetic op stays OT0001: https://github.com/microsoft/onnxruntime/issues/26311
    bf16 = ("onnxruntime.capi.onnxruntime_pybind11_state.NotImplemented: [ONNXRuntimeError] : 9 : NOT_IMPLEMENTED : Could not find "
            "an implementation for MatMul(13) node with name '/blocks.0/slstm_layer/slstm_cell/MatMul'")
    assert _ids(bf16)[0][:1] == ["OT0001"]


# --- a wrapper alone is never a confident diagnosis ---

def _expand_failure() -> str:
    """onnxruntime's full message for an Expand whose target shape cannot broadcast."""
    graph = helper.make_graph([helper.make_node("Expand", ["x", "s"], ["y"], name="/Expand")], "g",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3]),
                               helper.make_tensor_value_info("s", TensorProto.INT64, [1])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    session = ort.InferenceSession(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]).SerializeToString(),
                                   providers=["CPUExecutionProvider"])
    try:
        session.run(None, {"x": np.ones(3, np.float32), "s": np.array([2], np.int64)})
    except Exception as exc:  # noqa: BLE001 - the message is what we test
        return f"{type(exc).__module__}.{type(exc).__name__}: {exc}"
    raise AssertionError("the Expand was expected to fail")


def test_the_status_line_without_its_message_is_at_most_a_candidate():
    full = _expand_failure()
    assert "Status Message:" in full
    assert _ids(full)[0][:1] == ["OT0711"]
    # the same paste cut after "Status Message:" (where a terminal or a log viewer wrapped it):
    # what is left is shared by every kernel failure of Expand
    cut = full.split("Status Message:")[0] + "Status Message:"
    sure, maybe = _ids(cut)
    assert sure == [], sure
    # the wrapper of every binding, the same
    for wrapper in ("Microsoft.ML.OnnxRuntime.OnnxRuntimeException: [ErrorCode:RuntimeException] ",
                    "ai.onnxruntime.OrtException: Error code - ORT_RUNTIME_EXCEPTION - message: "):
        assert _ids(wrapper + cut.split(" : ", 3)[-1])[0] == []


@pytest.mark.parametrize("text", [
    "[ONNXRuntimeError] : 1 : FAIL : Load model from model.onnx failed:",
    "onnxruntime.capi.onnxruntime_pybind11_state.Fail: [ONNXRuntimeError] : 1 : FAIL : ",
    "Microsoft.ML.OnnxRuntime.OnnxRuntimeException: [ErrorCode:Fail] ",
    "Non-zero status code returned while running QLinearConv node. Name:'/features/Conv_quant' Status Message: ",
])
def test_a_generic_status_line_is_not_a_diagnosis(text):
    """Every entry's examples start this way; nothing here says which problem it is."""
    assert _ids(text)[0] == []


# --- a warning beside an explained error is not the diagnosis ---

_LOG_SCRIPT = textwrap.dedent("""
    import numpy as np, onnxruntime as ort
    from onnx import TensorProto, helper
    def model(nodes, inputs, outputs, inits=()):
        g = helper.make_graph(nodes, "g", inputs, outputs, list(inits))
        return helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]).SerializeToString()
    so = ort.SessionOptions(); so.log_severity_level = 1
    # 1. an output declared {1,4} that is {2,4} at run time: a warning, the run goes on
    lie = model([helper.make_node("Relu", ["x"], ["y"])], [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 4])],
                [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4])])
    ort.InferenceSession(lie, so, providers=["CPUExecutionProvider"]).run(None, {"x": np.ones((2, 4), np.float32)})
    # 2. a Reshape of an empty batch to a size that needs elements: the error
    shape = helper.make_tensor("s", TensorProto.INT64, [1], [4])
    empty = model([helper.make_node("Reshape", ["x", "s"], ["y"], name="/Reshape_1")],
                  [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 4])], [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], [shape])
    ort.InferenceSession(empty, so, providers=["CPUExecutionProvider"]).run(None, {"x": np.ones((0, 4), np.float32)})
""")


def test_a_warning_is_not_the_diagnosis_of_an_error_another_entry_explains():
    run = subprocess.run([sys.executable, "-c", _LOG_SCRIPT], capture_output=True, text=True, timeout=120)
    log = run.stderr
    assert "[W:onnxruntime" in log and "VerifyOutputSizes" in log and "cannot be reshaped" in log, log[-2000:]
    sure, maybe = _ids(log)
    assert sure[:1] == ["OT0268"], (sure, maybe)  # the Reshape of an empty tensor is what failed
    assert "OT0269" not in sure
    # the warning alone (an output declared with a size the run does not keep) is not OT0269's
    # dim_param shared by dimensions that differ: no buffer was reused
    warning = next(ln for ln in log.splitlines() if "VerifyOutputSizes" in ln)
    assert "OT0269" not in _ids(warning)[0]


# --- the tool that wrote the graph decides whose problem a failure is ---

def test_a_failure_in_the_calibrators_node_is_not_the_empty_batch_entry():
    """'<tensor>_ReduceMax_Reshape' is the node quantize_static's calibrator adds to collect ranges:
    the Reshape of an empty activation fails inside the calibration run, not in the user's model."""
    # https://github.com/microsoft/onnxruntime/issues/16738 (statically quantizing a VITS model)
    text = ("onnxruntime.capi.onnxruntime_pybind11_state.RuntimeException: [ONNXRuntimeError] : 6 : RUNTIME_EXCEPTION : Non-zero status "
            "code returned while running Reshape node. Name:'/duration_predictor/flows.4/Reshape_27_output_0_ReduceMax_Reshape' Status "
            "Message: /onnxruntime_src/onnxruntime/core/providers/cpu/tensor/reshape_helper.h:40 onnxruntime::ReshapeHelper::ReshapeHelper("
            "const onnxruntime::TensorShape&, onnxruntime::TensorShapeVector&, bool) gsl::narrow_cast<int64_t>(input_shape.Size()) == size "
            "was false. The input tensor cannot be reshaped to the requested shape. Input shape:{0}, requested shape:{1}")
    sure, maybe = _ids(text)
    assert "OT0268" not in sure and "OT0268" in maybe
    # the same failure in a node of the user's own graph is the empty-batch entry
    assert _ids(text.replace("Reshape_27_output_0_ReduceMax_Reshape", "Reshape_27"))[0][:1] == ["OT0268"]


def test_shape_inference_failing_on_a_quantized_file_is_not_a_graph_design_error():
    # https://github.com/enpasos/jax2onnx/issues/52: a converter's own graph, OT0156
    plain = "Error: [ONNXRuntimeError] : 1 : FAIL : Load model from 02_sod_shock_tube/sod.onnx failed:Node (mul_31) Op (Mul) [ShapeInferenceError] Incompatible dimensions"
    assert _ids(plain)[0][:1] == ["OT0156"]
    # the same words for a file the quantizer wrote: a candidate, not the diagnosis
    sure, maybe = _ids(plain.replace("sod.onnx", "sod_quantized.onnx"))
    assert "OT0156" not in sure and "OT0156" in maybe

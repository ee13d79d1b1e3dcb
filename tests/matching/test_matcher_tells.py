"""What tells an entry's problem from its look-alikes (issue 11, session 11).

Each test pairs a text an entry must recognise by its invariant core with a text of the same
surface that is another problem. Texts come from public threads outside the blind sets (cited
beside each) or are printed here by the installed onnxruntime and torch.
"""
from __future__ import annotations

import onnxruntime as ort
import pytest
from onnx import TensorProto, helper

from diagnoser import diagnose


def _ids(text: str) -> tuple[list[str], list[str]]:
    report = diagnose(text=text)
    return [d.id for d in report.diagnoses], [d.id for d in report.candidates]


# --- OT0709: only onnxruntime's InferenceSession rejecting 'providers' is onnxruntime too old ---

# https://github.com/s0md3v/roop/issues/80 (Python 3.10+ names the class: insightface is too old)
_FACEANALYSIS_QUALIFIED = """\
  File "/stable-diffusion-webui/extensions/sd-webui-roop/scripts/swapper.py", line 76, in get_face_single
    face_analyser = insightface.app.FaceAnalysis(name="buffalo_l", providers=providers)
TypeError: FaceAnalysis.__init__() got an unexpected keyword argument 'providers'"""

# https://github.com/s0md3v/roop/issues/212 (older Python: the failing call is the frame above)
_FACEANALYSIS_FRAME = """\
  File "/stable-diffusion-webui/extensions/sd-webui-roop/scripts/swapper.py", line 76, in get_face_single
    face_analyser = insightface.app.FaceAnalysis(name="buffalo_l", providers=providers)
TypeError: __init__() got an unexpected keyword argument 'providers'"""

# https://github.com/deepinsight/insightface/issues/1862 (OT0709's own example: onnxruntime 1.1.0)
_INFERENCESESSION = """\
File "F:\\Programming\\python36\\lib\\site-packages\\insightface\\model_zoo\\model_zoo.py", line 26, in get_model
session = onnxruntime.InferenceSession(self.onnx_file, **kwargs)
TypeError: __init__() got an unexpected keyword argument 'provider_options'"""


@pytest.mark.parametrize("text", [_FACEANALYSIS_QUALIFIED, _FACEANALYSIS_FRAME])
def test_another_class_rejecting_providers_is_not_onnxruntime_too_old(text):
    assert "OT0709" not in _ids(text)[0]


def test_inferencesession_rejecting_provider_options_stays_onnxruntime_too_old():
    assert _ids(_INFERENCESESSION)[0][:1] == ["OT0709"]


# --- OT0156: incompatible dimensions, in the main graph or inside a control-flow body ---

def _if_body_text(tmp_path) -> str:
    """onnxruntime's load error for an If whose then-branch adds a [2,3] and a [4,5] constant."""
    a = helper.make_tensor("a", TensorProto.FLOAT, [2, 3], [0.0] * 6)
    b = helper.make_tensor("b", TensorProto.FLOAT, [4, 5], [0.0] * 20)
    then_g = helper.make_graph(
        [helper.make_node("Constant", [], ["ta"], value=a), helper.make_node("Constant", [], ["tb"], value=b),
         helper.make_node("Add", ["ta", "tb"], ["y"], name="body/add")],
        "then", [], [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    else_g = helper.make_graph([helper.make_node("Constant", [], ["y2"], value=a)], "else", [],
                               [helper.make_tensor_value_info("y2", TensorProto.FLOAT, None)])
    graph = helper.make_graph(
        [helper.make_node("If", ["c"], ["out"], name="cond_if", then_branch=then_g, else_branch=else_g)], "g",
        [helper.make_tensor_value_info("c", TensorProto.BOOL, [])], [helper.make_tensor_value_info("out", TensorProto.FLOAT, None)])
    path = tmp_path / "if_body.onnx"
    path.write_bytes(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=9).SerializeToString())
    with pytest.raises(ort.capi.onnxruntime_pybind11_state.Fail) as err:
        ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    return f"onnxruntime.capi.onnxruntime_pybind11_state.Fail: {err.value}"


def test_incompatible_dimensions_in_a_subgraph_is_still_ot0156(tmp_path):
    # bench/data/LABELS.md, session 11: the innermost verdict decides; a body node whose inputs do not
    # combine is OT0156's problem wherever the node sits (the If only wraps the message)
    text = _if_body_text(tmp_path)
    assert "Graph attribute inferencing failed" in text and "Incompatible dimensions" in text
    assert _ids(text)[0][:1] == ["OT0156"]


def test_incompatible_dimensions_at_the_top_level_stays_ot0156():
    # OT0156's own example, https://github.com/enpasos/jax2onnx/issues/52: the node is in the main graph
    text = ("Error: [ONNXRuntimeError] : 1 : FAIL : Load model from 02_sod_shock_tube/sod.onnx "
            "failed:Node (mul_31) Op (Mul) [ShapeInferenceError] Incompatible dimensions")
    assert _ids(text)[0][:1] == ["OT0156"]


# --- OT0526: the bare number where an application prints onnxruntime-web's error ---

def test_a_bare_number_after_the_applications_words_is_the_wasm_exception():
    # https://github.com/microsoft/onnxruntime/issues/22484 (onnxruntime-web 1.19.2 on wasm)
    assert _ids("Failed to load the model: 20419424")[0][:1] == ["OT0526"]


def test_a_protobuf_size_is_not_a_bare_wasm_number():
    # OT0108's example, https://github.com/ELS-RD/transformer-deploy/issues/183: a number after a colon
    # at the end of a line that
    # names a model, but it is a size in bytes, not onnxruntime-web's exception address
    diagnoses, _ = _ids("ValueError: Message onnx.ModelProto exceeds maximum protobuf size of 2GB: 2235540927")
    assert "OT0526" not in diagnoses and diagnoses[:1] == ["OT0108"]


# --- OT0112: the exporter's symbolic refuses one argument value ---

def test_onnx_does_not_support_an_argument_for_an_op_is_ot0112():
    # printed by torch 2.13.0 here: Tensor.scatter_reduce(0, index, src, reduce="mean") exported
    # with torch.onnx.export(dynamo=False, opset_version=16)
    text = ('  File "/usr/lib/python3.11/site-packages/torch/onnx/_internal/torchscript_exporter/symbolic_opset16.py", '
            "line 137, in scatter_reduce\n    raise errors.OnnxExporterError(\n"
            "torch.onnx.OnnxExporterError: ONNX does not support mean reduction for scatter_reduce")
    assert _ids(text)[0][:1] == ["OT0112"]


# --- OT0209: Windows' words for a custom-op library that does not load ---

def test_windows_failed_to_load_library_error_code_is_ot0209():
    # https://github.com/open-mmlab/mmdeploy/issues/597 (mmdeploy's custom-op DLL on Windows 10)
    text = ("onnxruntime.capi.onnxruntime_pybind11_state.Fail: [ONNXRuntimeError] : 1 : FAIL : "
            "Failed to load library, error code: 193")
    assert _ids(text)[0][:1] == ["OT0209"]


def test_a_provider_dll_that_does_not_load_is_not_a_custom_op_library():
    # OT0527's example, https://github.com/intel/onnxruntime/issues/324: the OpenVINO provider's own
    # DLL (its entry), not a custom-op library
    text = ("D:\\a\\_work\\1\\s\\onnxruntime\\core\\session\\provider_bridge_ort.cc:1193 onnxruntime::ProviderLibrary::Get "
            '[ONNXRuntimeError] : 1 : FAIL : LoadLibrary failed with error 126 "" when trying to load '
            '"E:\\project\\Project_C++\\YOLO_ONNX\\x64\\Release\\onnxruntime_providers_openvino.dll"')
    diagnoses, _ = _ids(text)
    assert "OT0209" not in diagnoses and diagnoses[:1] == ["OT0527"]

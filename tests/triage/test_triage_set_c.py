"""Triage on the tuning set C's texts that no entry explains (bench/data/blind_r3_c.yaml, looked up
by source), and on errors the installed onnxruntime and node produce here.

Each case names the phrase group or stage words it checks (diagnoser/data/triage_phrases.yaml).
Negative cases: set C's out-of-scope texts (a DirectML build of PyTorch, TensorRT's own engine
builder fed an .onnx file) and the parts of real texts that any other program prints get no triage.
"""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
import yaml
from onnx import TensorProto, helper

from diagnoser.matching.text import prepare
from diagnoser.triage import triage
from diagnoser.triage.classify import is_onnx_family
from tests.triaging import kind_of, triage_of

ROOT = Path(__file__).resolve().parents[2]
SET_C = yaml.safe_load((ROOT / "bench/data/blind_r3_c.yaml").read_text(encoding="utf-8"))


def _set_c(source: str) -> str:
    return next(it["text"] for it in SET_C if it["source"].endswith(source))




@pytest.mark.parametrize(("source", "want"), [
    # onnxruntime checks the model's shapes and types while loading it (group ort-graph-checks)
    ("WindVChen/V2M4/issues/5", ("onnxruntime", "load")),  # [ONNXRuntimeError] Node (..) Op (Split) [ShapeInferenceError]
    ("microsoft/onnxruntime/issues/8505", ("onnxruntime", "load")),  # Node (GatherND_452) Op (GatherND) [ShapeInferenceError]
    ("microsoft/onnxruntime/issues/1396", ("onnxruntime", "load")),  # Load model from .. failed:[TypeInferenceError]
    ("microsoft/onnxruntime/issues/10197", ("onnxruntime", "load")),  # Node:x Output:x [ShapeInferenceError] Mismatch
    ("microsoft/Windows-Machine-Learning/issues/255", ("onnxruntime", "load")),  # LearningModel.LoadFrom.. Unrecognized attribute
    ("microsoft/onnxruntime-genai/issues/1055", ("onnxruntime", "load")),  # genai_config.json
    # the stage words: feeding an input, TensorRT's execution context, a linker's missing symbol
    ("microsoft/onnxruntime/issues/9193", ("onnxruntime", "run")),  # Java: Cannot convert .. to a OnnxTensor
    ("RapidAI/RapidOCR/issues/11", ("onnxruntime", "run")),  # ExecutionContext::setBindingDimensions
    ("csukuangfj/onnxruntime-build/issues/18", ("onnxruntime", "install")),  # Undefined symbols for architecture arm64
    # onnxruntime-web and the JS packages
    ("microsoft/onnxruntime/issues/18311", ("onnxruntime-web", "run")),  # Tint WGSL on onnxruntime-web's generated shader
    ("onnxruntime-inference-examples/issues/73", ("onnxruntime-web", "load")),  # reading 'InferenceSession' of undefined
    ("onnxruntime-inference-examples/issues/188", ("onnxruntime-web", "load")),  # ort.Tensor is not a constructor
    ("xenova/whisper-web/issues/15", ("onnxruntime-web", "load")),  # transformers.js: Could not locate file: "...onnx"
    ("microsoft/onnxruntime/issues/23952", ("install", "install")),  # npm: No matching version found for onnxruntime-common
    ("microsoft/onnxruntime/issues/19915", ("install", "install")),  # Parcel: Could not load .. from module 'onnxruntime-web'
    ("cortexkit/magic-context/issues/402", ("onnxruntime-web", "install")),  # npm error in onnxruntime-node's install script
    # installation: applications that offer the providers onnxruntime reports, source builds, cgo
    ("hacksider/Deep-Live-Cam/issues/1278", ("install", "install")),  # --execution-provider: invalid choice: 'directml'
    ("Fannovel16/comfyui_controlnet_aux/issues/112", ("install", "install")),  # DWPose: Onnxruntime not found
    ("onnx/onnx/issues/3977", ("install", "install")),  # pip: Command .. failed with error code 1 in /tmp/pip-build-..
    ("yalue/onnxruntime_go/issues/88", ("install", "install")),  # build constraints exclude all Go files
    # converters, optimizers, exporters
    ("onnx/onnxmltools/issues/624", ("converter", "convert")),  # feature names should follow pattern 'f%d'
    ("DetectionTeamUCAS/FPN_Tensorflow/issues/151", ("converter", "convert")),  # TF GraphDef import, a Chinese paste
    ("open-mmlab/mmdeploy/issues/746", ("converter", "export")),  # mmdeploy torch2onnx with Call id
    ("onnx/onnx-tensorflow/issues/374", ("onnx", "convert")),  # onnx_tf's prepare runs the checker on its input
    ("onnx/keras-onnx/issues/337", ("optimizer", "convert")),  # the legacy onnx.optimizer
    ("pytorch/pytorch/issues/104700", ("torch.onnx", "export")),  # no attribute 'to_function_proto'
    ("pytorch/pytorch/issues/47042", ("torch.onnx", "export")),  # jit/serialization/export.cpp assert
    ("onnx/onnx/issues/3891", ("torch.onnx", "export")),  # checker: experimental ops: ATen (the exporter's fallback)
])
def test_set_c_texts_get_their_component_and_stage(source, want):
    assert kind_of(_set_c(source)) == want


def test_a_pipeline_s_wrapper_line_yields_to_the_step_s_own_error():
    # mmdeploy's "`mmdeploy.apis.pytorch2onnx.torch2onnx` with Call id: 0 failed." alone: its export step
    t = triage_of(_set_c("open-mmlab/mmdeploy/issues/746"))
    assert t is not None and (t.component, t.stage) == ("converter", "export")
    assert t.facts.get("converter") == "mmdeploy"  # the next step names the tool, not "the converter"
    # the same line after the tracer's own error (tuning set A): the exporter raised it
    set_a = yaml.safe_load((ROOT / "bench/data/blind_r3_a.yaml").read_text(encoding="utf-8"))
    text = next(it["text"] for it in set_a if it["source"].endswith("open-mmlab/mmdeploy/issues/2102"))
    assert "with Call id: 0 failed" in text
    assert kind_of(text) == ("torch.onnx", "export")


@pytest.mark.parametrize("case", [it for it in SET_C if not it["labels"]["in_scope"]],
                         ids=lambda it: it["source"].split("github.com/")[-1])
def test_set_c_out_of_scope_texts_get_no_triage(case):
    assert kind_of(case["text"]) is None


def test_foreign_frameworks_carrying_the_family_words_are_not_onnx_unless_onnxruntime_is_named():
    # pytorch-directml's command recorder and TensorRT's builder on an .onnx file: not an ONNX component's failure
    for source in ("microsoft/DirectML/issues/287", "yuvraj108c/ComfyUI-Upscaler-Tensorrt/issues/36"):
        text = prepare(_set_c(source)).text
        assert not is_onnx_family(text)
        assert is_onnx_family(text + "\nonnxruntime.capi.onnxruntime_pybind11_state.Fail: [ONNXRuntimeError]")
    # onnxruntime's TensorRT provider quoting the onnx-tensorrt parser stays onnxruntime's
    assert kind_of(_set_c("microsoft/onnxruntime/issues/9364")) == ("onnxruntime", "load")


def test_the_lines_other_programs_print_do_not_open_the_family():
    webgpu = _set_c("microsoft/onnxruntime/issues/18311")
    dawn_only = "\n".join(ln for ln in webgpu.splitlines() if "inputIndices" not in ln)
    assert "Tint WGSL" in dawn_only and kind_of(dawn_only) is None  # Dawn's validation lines: any WebGPU app's
    tf_text = _set_c("DetectionTeamUCAS/FPN_Tensorflow/issues/151")
    tf_only = tf_text.splitlines()[-1]
    assert "GraphDef" in tf_only and kind_of(tf_only) is None  # TensorFlow's importer alone says nothing of ONNX
    whisper = _set_c("xenova/whisper-web/issues/15").replace("/onnx/model.onnx", "/config.json")
    assert kind_of(whisper) is None  # transformers.js fetching a config: not ONNX yet


def test_installed_onnxruntime_shape_inference_at_load_is_onnxruntime_load():
    ort = pytest.importorskip("onnxruntime")
    node = helper.make_node("GatherND", ["data", "idx"], ["y"], name="gnd")
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("data", TensorProto.FLOAT, [2, 2]),
                                            helper.make_tensor_value_info("idx", TensorProto.INT64, [1, 3])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    with pytest.raises(Exception) as err:
        ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    message = f"{type(err.value).__module__}.{type(err.value).__name__}: {err.value}"
    assert "[ShapeInferenceError]" in message
    t = triage_of(message)
    assert t is not None and (t.component, t.stage) == ("onnxruntime", "load")
    assert t.facts.get("node") == "gnd" and t.facts.get("op") == "GatherND"


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_v8_type_errors_name_onnxruntime_web_only_on_its_api():
    script = ("for (const f of [() => { const ort = {}; new ort.Tensor('float32', [0], [1]) },"
              " () => { const ort = undefined; ort.InferenceSession },"
              " () => { const tf = {}; new tf.Tensor([0]) }]) { try { f() } catch (e) { console.log(String(e)) } }")
    out = subprocess.run(["node", "-e", script], capture_output=True, text=True, timeout=60, check=True).stdout.splitlines()
    assert out[0] == "TypeError: ort.Tensor is not a constructor"
    assert kind_of(out[0]) == ("onnxruntime-web", "load")
    assert out[1] == "TypeError: Cannot read properties of undefined (reading 'InferenceSession')"
    assert kind_of(out[1]) == ("onnxruntime-web", "load")
    assert out[2] == "TypeError: tf.Tensor is not a constructor" and kind_of(out[2]) is None


@pytest.fixture(scope="module")
def examples() -> dict[str, list[str]]:
    from kb import load

    return {eid: [ex.text for ex in d.entry.examples] for eid, d in load(strict=False).documents.items()}


@pytest.mark.parametrize(("entry", "n", "want"), [
    ("OT0909", 1, ("onnxruntime-web", "load")),  # ortWasmThreaded is not defined (onnxruntime-web's wasm module)
    ("OT0302", 4, ("onnxruntime", "load")),  # CUDA_PATH is set but CUDA wasn't able to be loaded (provider creation)
    ("OT0345", 1, ("onnxruntime", "load")),  # INFO ort: Some nodes were not assigned to the preferred execution providers
])
def test_entry_examples_with_the_runtime_s_own_phrases(examples, entry, n, want):
    assert kind_of(examples[entry][n]) == want, examples[entry][n][:200]


def test_installed_onnx_merge_models_ir_mismatch_is_onnx():
    from onnx import compose

    def model(ir: int):
        graph = helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "g",
                                  [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1])],
                                  [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1])])
        return helper.make_model(graph, ir_version=ir, opset_imports=[helper.make_opsetid("", 13)])

    with pytest.raises(ValueError) as err:
        compose.merge_models(model(8), model(9), io_map=[("y", "x")])
    assert "Both models should have the same IR version" in str(err.value)
    assert kind_of(f"ValueError: {err.value}") == ("onnx", "convert")


@pytest.mark.parametrize(("entry", "n"), [
    ("OT0857", 1),  # RuntimeError: Error when binding input: ... (the Python IOBinding)
    ("OT0911", 0),  # CUDA failure 700: an illegal memory access was encountered
])
def test_binding_a_run_s_inputs_and_kernel_launch_failures_are_run(examples, entry, n):
    assert kind_of(examples[entry][n]) == ("onnxruntime", "run"), examples[entry][n][:200]


def test_a_run_stopped_by_its_terminate_flag_is_run():
    # pykeio/ort src/session: Session::terminate's doc test asserts this text (Error::SessionRun wrapping
    # onnxruntime's own message, which the onnxruntime 1.32.0 binary holds)
    text = "Failed to run inference on model: Exiting due to terminate flag being set to true."
    assert kind_of(text) == ("onnxruntime", "run")


@pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc is not installed")
def _link_error(tmp_path: Path, symbol: str) -> str:
    """gcc's own error for a program calling `symbol` and linked with no onnxruntime library."""
    src = tmp_path / "t.c"
    src.write_text(f"extern const void* {symbol}(void);\nint main(void) {{ return {symbol}() != 0; }}\n")
    out = subprocess.run(["gcc", str(src), "-o", str(tmp_path / "t")], capture_output=True, text=True, timeout=120)
    assert out.returncode != 0 and f"undefined reference to `{symbol}'" in out.stderr
    return out.stderr


@pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")
def test_a_program_not_linked_with_onnxruntime_is_its_installation(tmp_path):
    # the C API's entry point missing: no onnxruntime library in the link at all (group ort-link)
    text = _link_error(tmp_path, "OrtGetApiBase")
    assert kind_of(text) == ("install", "install")
    assert kind_of(text.replace("OrtGetApiBase", "png_create_read_struct")) is None  # another library's symbol
    # a provider's append function missing: the library linked was built without it (group ort-link-provider)
    assert kind_of(_link_error(tmp_path, "OrtSessionOptionsAppendExecutionProvider_CUDA")) == ("onnxruntime", "install")


@pytest.mark.parametrize(("entry", "n", "want"), [
    ("OT0530", 2, ("install", "install")),  # onnxruntime/capi frame warning: Cannot load onnxruntime.capi (GLIBCXX)
    ("OT0356", 1, ("install", "install")),  # onnxruntime/__init__.py frames under NumPy 2's ABI refusal
    ("OT0967", 0, ("torch.onnx", "export")),  # onnxscript's version converter inside the dynamo exporter
])
def test_package_frames_failing_to_load_are_its_installation(examples, entry, n, want):
    assert kind_of(examples[entry][n]) == want, examples[entry][n][:200]


def test_a_tool_s_source_build_failing_in_cmake_is_installation(examples):
    text = examples["OT0631"][3]  # onnxsim built from source: CalledProcessError: Command '['.../cmake', ...]'
    assert "CalledProcessError: Command '['" in text and kind_of(text) == ("install", "install")


def test_protobuf_refusing_a_value_for_an_onnx_proto_field_is_a_converter_building_nodes(examples):
    import onnx

    with pytest.raises(TypeError) as err:
        onnx.AttributeProto().i = True  # what a converter writing a bool attribute meets with protobuf 7
    assert "Field onnx.AttributeProto.i: Expected" in str(err.value)
    assert kind_of(f"TypeError: {err.value}") == ("converter", "convert")
    assert kind_of(examples["OT0604"][2]) == ("converter", "convert")  # the protobuf 5/6 warning wording


def test_an_installation_step_for_another_binding_is_not_python_s():
    t = triage_of(_set_c("yalue/onnxruntime_go/issues/88"))  # Go: build constraints exclude all Go files
    assert t is not None and t.facts.get("binding") == "Go"
    assert "python -c" not in t.next_steps[0] and "Go binding" in t.next_steps[0]
    assert "Go 绑定" in t.next_steps_zh[0]
    py = triage_of(_set_c("onnx/onnx/issues/3977"))  # pip building onnx from source
    assert py is not None and py.component == "install" and "python -c" in py.next_steps[0]

"""The triage phrase table (diagnoser/data/triage_phrases.yaml) and the classifier that reads it.

Each phrase family is checked on real texts: the tuning blind set's (bench/data/blind_r3_a.yaml,
looked up by source), entries' examples, and errors the installed onnx, onnxruntime and torch
raise here. Texts not about ONNX, even those naming CUDA, pip or PyTorch, get no triage.
"""
from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
import yaml

from diagnoser import diagnose
from diagnoser.model.datafiles import table
from diagnoser.matching.text import prepare
from diagnoser.triage import COMPONENTS, STAGES, triage
from diagnoser.triage.classify import groups, is_onnx_family
from tests.triaging import kind_of, triage_of

ROOT = Path(__file__).resolve().parents[2]
SET_A = yaml.safe_load((ROOT / "bench/data/blind_r3_a.yaml").read_text(encoding="utf-8"))
OUT_OF_SCOPE = yaml.safe_load((ROOT / "bench/data/out_of_scope.yaml").read_text(encoding="utf-8"))
OLD_BLIND_OUT = [it for it in yaml.safe_load((ROOT / "bench/data/blind.yaml").read_text(encoding="utf-8")) if it["expected"] is None]


def _set_a(source: str) -> str:
    return next(it["text"] for it in SET_A if it["source"].endswith(source))




def test_every_group_is_well_formed_and_cites_its_source():
    data = table("triage_phrases")
    names = [g["name"] for g in data["groups"]]
    assert len(names) == len(set(names))
    for g in data["groups"]:
        assert g["component"] in COMPONENTS and g.get("stage") in (None, *STAGES), g["name"]
        assert len(g.get("source", "")) > 20, f"{g['name']} says nowhere where its phrases come from"
        assert g.get("phrases") or g.get("words") or g.get("patterns"), g["name"]
        for p in g.get("patterns", []):
            re.compile(p)
    # loaded in the table's order, most specific first (the tool registry's groups sit in one block among them)
    assert [g.name for g in groups() if g.tool is None] == names


@pytest.mark.parametrize(("source", "want"), [
    # onnxruntime-web: onnxruntime-common, the wasm loader, WebGPU, onnx.js, React Native
    ("onnxruntime-inference-examples/issues/211", ("onnxruntime-web", "load")),  # no available backend found
    ("onnxruntime/issues/26480", ("onnxruntime-web", "load")),  # e.subgroupMinSize (WebGPU adapter info)
    ("onnxjs/issues/249", ("onnxruntime-web", "load")),  # tensorValueTypeFromProto
    ("onnxruntime/issues/22885", ("onnxruntime-web", "load")),  # cannot resolve operator ... with opsets
    ("onnxruntime/issues/9594", ("onnxruntime-web", "load")),  # Can't load model No content provider
    ("onnxruntime/issues/24051", ("install", "install")),  # Unable to resolve "onnxruntime-react-native"
    # onnxruntime's execution providers and core, stage by the words
    ("onnxruntime/issues/27676", ("onnxruntime", "load")),  # QNN HTP skel via FastRPC
    ("onnxruntime/issues/12793", ("onnxruntime", "load")),  # NNAPI: current set of target devices
    ("intel/onnxruntime/issues/299", ("onnxruntime", "run")),  # Encountered unknown exception in Run()
    ("onnxruntime/issues/6127", ("onnxruntime", "run")),  # Trying to get a Tensor, but got: seq(map(...))
    ("onnxruntime/issues/22405", ("onnxruntime", "load")),  # a provider library's undefined symbol
    # installation: the package, the native library, the C API version
    ("Comfy-Org/ComfyUI/issues/4898", ("install", "install")),  # Unable to import dependency onnxruntime
    ("onnx/onnx-mxnet/issues/2", ("install", "install")),  # ImportError in an onnx package
    ("microsoft/onnxruntime/issues/17696", ("install", "install")),  # The given version [16] is not supported
    ("pykeio/ort/issues/559", ("install", "install")),  # dlopen of libonnxruntime.dylib
    # converters, quantization, exporters
    ("onnx/onnxmltools/issues/349", ("converter", "convert")),  # No proper operator name found for
    ("tensorflow/agents/issues/444", ("converter", "convert")),  # make_sure failure
    ("Azure-Samples/Synapse/issues/74", ("converter", "convert")),  # onnx.helper make_attribute, old wording
    ("onnx/keras-onnx/issues/481", ("converter", "convert")),  # onnx.helper: not valid attribute data type
    ("ENOT-AutoDL/onnx2torch/issues/61", ("converter", "convert")),  # Converter is not implemented
    ("huggingface/optimum/issues/1798", ("converter", "export")),  # custom or unsupported architecture
    ("microsoft/onnxruntime/issues/13044", ("quantization", "quantize")),  # Histogram has not been collected
    ("pytorch/vision/issues/2987", ("torch.onnx", "export")),  # Only tuples, lists and Variables ... JIT
    ("pyg-team/pytorch_geometric/issues/5792", ("torch.onnx", "export")),  # requires grad as a constant
    ("huggingface/optimum/issues/2349", ("torch.onnx", "export")),  # unexpected tensor scalar type
    ("OHF-Voice/piper1-gpl/issues/148", ("torch.onnx", "export")),  # GuardOnDataDependentSymNode
    ("pytorch/pytorch/issues/2747", ("torch.onnx", "export")),  # IPython frame torch/onnx.pyc
    ("onnxsim/onnxsim/issues/62", ("onnx", "convert")),  # the checker's verdict on onnxsim's input
])
def test_set_a_texts_get_their_component_and_stage(source, want):
    assert kind_of(_set_a(source)) == want


@pytest.fixture(scope="module")
def examples() -> dict[str, list[str]]:
    from kb import load

    return {eid: [ex.text for ex in d.entry.examples] for eid, d in load(strict=False).documents.items()}


@pytest.mark.parametrize(("entry", "n", "want"), [
    ("OT0528", 1, ("onnxruntime-web", "run")),  # Failed to run JSEP kernel
    ("OT0528", 2, ("onnxruntime-web", "run")),  # [WebGPU] Kernel "[Mul] ..." failed
    ("OT0610", 0, ("onnxruntime-web", "run")),  # onnxruntime-node: Non tensor type is temporarily not supported
    ("OT0610", 1, ("onnxruntime-web", "run")),  # Can't access output tensor data
    ("OT0523", 1, ("install", "install")),  # Cannot find module '.../onnxruntime_binding.node'
    ("OT0621", 2, ("torch.onnx", "export")),  # export() got an unexpected keyword argument 'example_outputs'
    ("OT0616", 0, ("torch.onnx", "export")),  # shape_type_inference.cpp: Constant folding ... fails
    ("OT0624", 1, ("optimizer", "convert")),  # onnxsim: Check failed, please be careful to use the simplified model
    ("OT0627", 0, ("converter", "export")),  # Optimum: The task could not be automatically inferred
    ("OT0623", 0, ("converter", "export")),  # Optimum ONNX exporter only supports the tasks
    ("OT0619", 2, ("quantization", "quantize")),  # Expected ... to be an initializer
    ("OT0709", 1, ("onnxruntime", "load")),  # set_providers() takes 2 positional arguments
    ("OT0302", 0, ("onnxruntime", "load")),  # the CUDA provider's DLL: LoadLibrary failed with error 126
    ("OT0507", 0, ("install", "install")),  # ort (Rust) is not compatible with the ONNX Runtime binary
    ("OT0521", 0, ("install", "install")),  # import onnxruntime, then Illegal instruction (a wheel for another CPU)
])
def test_entry_examples_get_their_component_and_stage(examples, entry, n, want):
    assert kind_of(examples[entry][n]) == want, examples[entry][n][:200]


@pytest.mark.parametrize(("source", "why"), [
    ("keras-team/keras/issues/12962", "a keras attribute error, nothing says converter"),
    ("huggingface/optimum/issues/409", "a numpy truth-value error, nothing says calibration"),
    ("huggingface/optimum-onnx/issues/73", "a config attribute error, nothing says exporter"),
])
def test_set_a_texts_without_a_signal_get_no_triage(source, why):
    assert kind_of(_set_a(source)) is None, why


@pytest.mark.parametrize("case", [it for it in SET_A if not it["labels"]["in_scope"]],
                         ids=lambda it: it["source"].split("github.com/")[-1])
def test_set_a_out_of_scope_texts_get_no_triage(case):
    assert kind_of(case["text"]) is None


@pytest.mark.parametrize("case", OUT_OF_SCOPE + OLD_BLIND_OUT, ids=lambda it: it["source"].split("github.com/")[-1][:60])
def test_out_of_scope_texts_are_not_onnx_family(case):
    assert not is_onnx_family(prepare(case["text"]).text)


def test_weak_words_pick_the_component_but_never_open_the_family():
    # the kernel's SIGILL and pip's wheel builds happen everywhere; with onnxruntime named they are its installation
    for text in ("Illegal instruction (core dumped)", "ERROR: Could not build wheels for numpy"):
        assert kind_of(text) is None
        assert kind_of(text + "\nimport onnxruntime") == ("install", "install")


def test_a_shared_library_line_alone_is_not_onnx_but_with_the_runtime_is_its_installation():
    # cpuinfo is linked into PyTorch as well: its line alone says nothing of ONNX
    text = _set_a("onnxruntime/issues/15650")
    first = text.strip().splitlines()[0]
    assert first.startswith("Error in cpuinfo") and kind_of(first) is None
    assert kind_of(text) == ("install", "install")  # ... then onnxruntime's DefaultLogger is missing


def test_tool_names_inside_node_names_do_not_name_the_tool():
    # a TensorRT failure on a model that tf2onnx made: the node is named after the converter
    text = ("onnxruntime.capi.onnxruntime_pybind11_state.EPFail: [ONNXRuntimeError] : 11 : EP_FAIL : TensorRT EP could not "
            "build engine for fused node: TensorrtExecutionProvider_TRTKernel_graph_tf2onnx_1_1")  # an example of OT0312
    t = triage_of(text)
    assert t is not None and (t.component, t.stage) == ("onnxruntime", "load")
    assert t.facts["provider"] == "TensorrtExecutionProvider"
    assert kind_of("python -m tf2onnx.convert --saved-model m --output m.onnx\nValueError: boom") == ("converter", "convert")


def test_provider_named_by_its_phrases():
    t = triage_of(_set_a("onnxruntime/issues/27676"))
    assert t is not None and t.facts["provider"] == "QNNExecutionProvider"
    t = triage_of(_set_a("onnxruntime/issues/12793"))
    assert t is not None and t.facts["provider"] == "NnapiExecutionProvider"


def test_installed_onnx_helper_errors_are_a_converter_building_nodes():
    from onnx import helper

    for value in (object(), [object()]):
        with pytest.raises((TypeError, ValueError)) as err:
            helper.make_attribute("k", value)
        assert kind_of(f"{type(err.value).__name__}: {err.value}") == ("converter", "convert"), str(err.value)


def test_installed_quantization_tool_errors_are_quantization():
    from onnxruntime.quantization import quantize_dynamic

    with pytest.raises(TypeError) as err:
        quantize_dynamic("in.onnx", "out.onnx", optimize_model=True)  # the argument removed in onnxruntime 1.16
    assert kind_of(f"TypeError: {err.value}") == ("quantization", "quantize")


def test_installed_torch_exporter_error_is_torch_onnx():
    torch = pytest.importorskip("torch")

    class Scale(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.w = torch.ones(2, requires_grad=True)  # a plain tensor, not a Parameter

        def forward(self, x):
            return x * self.w

    with pytest.raises(RuntimeError) as err:
        torch.onnx.export(Scale(), (torch.ones(2),), io.BytesIO(), dynamo=False)
    message = f"RuntimeError: {err.value}"
    assert "onnx" not in message.lower()  # the family is told by the tracer's own words
    assert kind_of(message) == ("torch.onnx", "export")


@pytest.mark.parametrize(("source", "want"), [
    ("onnxruntime-inference-examples/issues/211", ("onnxruntime-web", "load")),
    ("microsoft/onnxruntime/issues/26480", ("onnxruntime-web", "load")),
    ("microsoft/onnxruntime/issues/24051", ("install", "install")),
    ("onnx/onnx-mxnet/issues/2", ("install", "install")),
    ("Azure-Samples/Synapse/issues/74", ("converter", "convert")),
])
def test_a_report_without_a_diagnosis_carries_the_triage(source, want):
    """Texts no entry explains (when an entry comes to explain one, move it to that entry's tests)."""
    report = diagnose(text=_set_a(source))
    assert report.diagnoses == (), [d.id for d in report.diagnoses]
    assert report.triage is not None and (report.triage.component, report.triage.stage) == want


def test_a_report_on_a_text_not_about_onnx_has_no_triage():
    assert diagnose(text=_set_a("chnsh/DCRNN_PyTorch/issues/6")).triage is None  # CUDA out of memory in training


def test_onnxruntime_s_own_words_are_data_and_its_short_names_keep_their_case():
    words = table("triage_phrases")["onnxruntime_words"]
    assert words["source"] and words["patterns"] and words["exact"]
    from diagnoser.triage.classify import _ort_words

    rx = _ort_words()
    # case-insensitive phrases: the runtime's name and messages however a binding spells them
    for text in ("ONNXRUNTIME_ERROR", "onnx runtime", "invalid rank for input: x", "Load model from m.onnx failed"):
        assert rx.search(text), text
    # the short names only as onnxruntime writes them: ORT_FAIL, OrtSession, Ort::Value, ort.Tensor
    for text in ("ORT_FAIL", "OrtSessionOptions", "Ort::Exception", "ort.InferenceSession"):
        assert rx.search(text), text
    for text in ("sort the list", "orthogonal init", "Ortho projection", "port.Tensor", "ORTHO"):
        assert not rx.search(text), text

"""Triage: an ONNX-family error no entry explains is sorted out; text not about ONNX is not.

Texts are real: entries' examples (looked up by entry), the blind set's texts that no entry
covers (looked up by source), and an error the installed onnxruntime raises here.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import yaml
from onnx import TensorProto, helper

from diagnoser import diagnose
from diagnoser.triage import COMPONENTS, STAGES, triage
from kb import load
from tests.triaging import triage_of

ROOT = Path(__file__).resolve().parents[2]
OUT_OF_SCOPE = yaml.safe_load((ROOT / "bench/data/out_of_scope.yaml").read_text(encoding="utf-8"))
BLIND = yaml.safe_load((ROOT / "bench/data/blind.yaml").read_text(encoding="utf-8"))


def _blind(source_part: str) -> str:
    return next(it["text"] for it in BLIND if source_part in it["source"])


@pytest.fixture(scope="module")
def examples() -> dict[str, list[str]]:
    db = load(strict=False)
    return {eid: [ex.text for ex in d.entry.examples] for eid, d in db.documents.items()}


def _tri(text: str):
    t = triage_of(text)
    assert t is not None, text[:200]
    assert t.component in COMPONENTS and t.stage in STAGES
    return t


@pytest.mark.parametrize(("entry", "component", "stage"), [
    ("OT0100", "torch.onnx", "export"),  # Exporting the operator 'aten::X' ... is not supported
    ("OT0157", "onnx", "convert"),  # the version converter's assertions
    ("OT0109", "converter", "convert"),  # tf2onnx: Tensorflow op [...] is not supported
    ("OT0110", "converter", "convert"),  # skl2onnx MissingShapeCalculator
    ("OT0359", "quantization", "quantize"),  # quant_pre_process
    ("OT0302", "onnxruntime", "load"),  # the CUDA provider library does not load when the session is made
    ("OT0253", "onnxruntime", "run"),  # Got invalid dimensions
    ("OT0001", "onnxruntime", "load"),  # NOT_IMPLEMENTED: no kernel
])
def test_component_and_stage_of_entry_examples(examples, entry, component, stage):
    t = _tri(examples[entry][0])
    assert (t.component, t.stage) == (component, stage), (entry, examples[entry][0][:160])


def test_torch_export_names_the_aten_op(examples):
    t = _tri(examples["OT0100"][0])
    assert t.facts.get("aten_op", "").startswith("aten::")
    assert t.facts.get("exporter") in ("torchscript", "dynamo", "unknown")


def test_webgpu_kernel_is_not_a_minimal_build():
    text = ("Error: Exception during initialization: /Users/cloudtest/vss/_work/1/s/onnxruntime/core/optimizer/transformer_memcpy.cc:467 "
            "bool onnxruntime::TransformerMemcpyImpl::ProcessInitializers(const KernelRegistryManager &, const InitializedTensorSet &, "
            "const logging::Logger &) status.IsOK() was false. Failed to find kernel for Cast(13) (node:'/transformer/Cast_2_output_cast0' "
            "ep:'WebGpuExecutionProvider'). Op with name (/transformer/Cast_2_output_cast0) domain () and type (Cast) kernel is not "
            "supported in WebGpuExecutionProvider.")  # https://github.com/microsoft/onnxruntime/issues/27291
    report = diagnose(text=text)
    assert [d.id for d in report.diagnoses] == ["OT0528"]  # the WebGPU entry explains it
    assert all(d.id != "OT0203" for d in report.diagnoses)  # a minimal build is at most a candidate
    assert (report.triage is None) == bool(report.diagnoses)  # a WebGPU entry, once there is one, or a triage
    t = _tri(text)
    assert (t.component, t.stage) == ("onnxruntime-web", "load")
    assert t.facts["op"] == "Cast" and t.facts["op_version"] == "13" and t.facts["provider"] == "WebGpuExecutionProvider"
    assert t.facts["node"] == "/transformer/Cast_2_output_cast0"
    assert t.next_steps and t.next_steps_zh




@pytest.mark.parametrize(("source", "component", "stage", "facts"), [
    ("pykeio/ort/issues/196", "install", "install", {}),
    ("onnxsim/onnxsim/issues/206", "optimizer", "convert", {"converter": "onnxsim"}),
])
def test_blind_texts_without_an_entry(source, component, stage, facts):
    matches = [it for it in BLIND if source in it["source"] and it["expected"] == "missing"]
    if not matches:
        pytest.skip(f"no blind text from {source}")
    t = _tri(matches[0]["text"])
    assert (t.component, t.stage) == (component, stage)
    assert facts.items() <= t.facts.items()


@pytest.mark.parametrize("case", OUT_OF_SCOPE, ids=[c["source"].rsplit("/", 1)[-1] for c in OUT_OF_SCOPE])
def test_text_not_about_onnx_gets_no_triage(case):
    report = diagnose(text=case["text"])
    assert report.triage is None and report.diagnoses == ()


def test_a_diagnosis_leaves_no_triage():
    report = diagnose(text="Execution type OpenVINOExecutionProvider doesn't support memcpy")
    assert report.diagnoses and report.triage is None


def _mod_model(path: Path) -> str:
    """A float Mod with fmod=0: onnxruntime refuses it at run time (a real message, no entry)."""
    import onnx
    import onnxruntime as ort

    node = helper.make_node("Mod", ["a", "b"], ["y"], name="/head/Mod", fmod=0)
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info(n, TensorProto.FLOAT, [2]) for n in ("a", "b")],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=8), path)
    try:
        sess = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
        sess.run(None, {"a": np.ones(2, np.float32), "b": np.ones(2, np.float32)})
    except Exception as exc:
        return str(exc)
    pytest.skip("this onnxruntime accepts a float Mod with fmod=0")


def test_model_lookup_gives_the_named_node_facts(tmp_path):
    path = tmp_path / "mod.onnx"
    message = _mod_model(path)
    report = diagnose(text=message, model=path, probes="static")
    if report.diagnoses:
        pytest.skip(f"an entry now explains it: {report.diagnoses[0].id}")
    t = report.triage
    assert t is not None and (t.component, t.stage) == ("onnxruntime", "run")
    assert t.facts["node"] == "/head/Mod" and t.facts["op"] == "Mod" and t.facts["status"] == "FAIL"
    assert t.node["op"] == "Mod" and "fmod=0" in t.node["attributes"]
    assert t.node["input0"].startswith("a: float [2]") and "graph input" in t.node["input0"]


@pytest.mark.parametrize("component,stage", [("onnxruntime-web", "load"), ("onnxruntime", "run"), ("onnx", "load"), ("converter", "convert")])
def test_chinese_next_steps_have_no_english_stand_in_when_the_text_names_no_op(component, stage):
    from diagnoser.triage.steps import next_steps

    en, zh = next_steps(component, stage, {}, has_model=False)
    assert any("the failing node" in s or "the converter" in s for s in en)
    assert not any("the failing node" in s or "the converter" in s for s in zh), zh


def test_error_line_is_the_message_not_the_traceback_header(tmp_path):
    """A real traceback whose last line, with the binding's wrapper stripped, has no error word
    ('Non-zero status code returned ... cannot be reshaped'): the header is not the error."""
    import subprocess
    import sys

    graph = helper.make_graph(
        [helper.make_node("Reshape", ["x", "shape"], ["y"], name="split_heads")], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        [helper.make_tensor("shape", TensorProto.INT64, [1], [4])])
    model = tmp_path / "m.onnx"
    model.write_bytes(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)],
                                        ir_version=8).SerializeToString())
    script = ("import numpy as np, onnxruntime as ort\n"
              f"s = ort.InferenceSession({str(model)!r}, providers=['CPUExecutionProvider'])\n"
              "s.run(None, {'x': np.zeros((2, 3), np.float32)})\n")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert out.returncode != 0 and "Traceback (most recent call last)" in out.stderr
    t = _tri(out.stderr)
    assert "Traceback" not in t.error
    assert "while running Reshape node" in t.error and "split_heads" in t.error


@pytest.mark.parametrize(("entry", "needle", "component"), [
    ("OT1116", "Cannot create Gather layer", "converter"),  # OpenVINO reading an old opset: no onnxruntime word
    ("OT1303", "File format is not onnx", "converter"),  # a JS protobuf reader
    ("OT0260", "are missing from input feed", "onnxruntime"),  # onnxruntime's own words, its name cut off
    ("OT0265", "PyTorch and ONNX Runtime mismatch", "onnxruntime"),
])
def test_an_unnamed_tool_is_onnxruntime_only_when_the_text_has_its_words(examples, entry, needle, component):
    """With no phrase group and no frame naming the tool, the component is onnxruntime only when the
    text carries onnxruntime's words (its name, status codes, its own messages); set F showed other
    ONNX readers (tract, MNN, ncnn, RKNN, OpenVINO) triaged as onnxruntime/load."""
    text = next(t for t in examples[entry] if needle in t)
    assert _tri(text).component == component

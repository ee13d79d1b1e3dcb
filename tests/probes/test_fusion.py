"""Evidence fusion: a diagnosis from text rises or falls with the model's evidence, and the
model alone predicts problems through the entries' `findings:` links."""
from __future__ import annotations

from diagnoser import diagnose
from tests.fixtures.build_broken_models import BF16, save, unary

TEXT = "onnxruntime.capi.onnxruntime_pybind11_state.NotImplemented: [ONNXRuntimeError] : 9 : NOT_IMPLEMENTED : Could not find an implementation for Add(14) node with name '/self_attn/q_proj/Add'"


def test_mixed_model_turns_text_toward_ot0002(case):
    path = case("mixed-dtypes")
    text_only = diagnose(text=TEXT)
    fused = diagnose(text=TEXT, model=path, probes="static")
    assert fused.diagnoses[0].id == "OT0002"
    assert any(n.startswith("model evidence moved OT0002") for n in fused.notes)
    before = {d.id: d.confidence for d in (*text_only.diagnoses, *text_only.candidates)}
    after = {d.id: d.confidence for d in (*fused.diagnoses, *fused.candidates)}
    assert after.get("OT0001", 0.0) < before.get("OT0001", 0.0)


def test_model_alone_predicts(case):
    assert diagnose(model=case("mixed-dtypes"), probes="static").diagnoses[0].id == "OT0002"
    assert diagnose(model=case("ir-newer-than-target"), probes="static", ort_version="1.14").diagnoses[0].id == "OT0200"
    # one IR past the installed runtime may also be past the installed onnx (OT0153): both are said
    assert "OT0200" in {d.id for d in diagnose(model=case("ir-too-new"), probes="static").diagnoses}
    assert diagnose(model=case("external-missing"), probes="static").diagnoses[0].id == "OT0159"


def test_bfloat16_relu_predicts_no_kernel(tmp_path):
    report = diagnose(model=save(unary("Relu", BF16), tmp_path / "m.onnx"), probes="static")
    assert report.diagnoses[0].id == "OT0001"


def test_good_model_predicts_nothing(good_model):
    report = diagnose(model=good_model, probes="all")
    assert not report.diagnoses and not report.candidates
    assert report.notes == ("the probes predict no known problem for this model",)


def test_session_error_text_is_matched(case):
    report = diagnose(model=case("session-create-fails"), probes="all")
    top = report.diagnoses[0]
    assert top.id == "OT0002" and any(ev.kind == "signature" for ev in top.evidence)

"""Matching behaviour that no single entry owns: abstention, several errors, confidence sharing."""
from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from diagnoser import diagnose

OUT_OF_SCOPE = yaml.safe_load((Path(__file__).resolve().parent.parent / "bench/data/out_of_scope.yaml").read_text(encoding="utf-8"))


@pytest.mark.parametrize("case", OUT_OF_SCOPE, ids=[c["source"].rsplit("/", 3)[-3] + "#" + c["source"].rsplit("/", 1)[-1] for c in OUT_OF_SCOPE])
def test_non_onnx_text_gets_no_confident_diagnosis(case):
    report = diagnose(text=case["text"])
    assert report.diagnoses == (), [(d.id, d.confidence) for d in report.diagnoses]


def test_log_with_two_distinct_errors_gets_two_diagnoses():
    log = "\n".join([
        "2026-11-22 10:00:01 starting the export",
        "RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu! (when checking argument for argument index in method wrapper__index_select) during torch.onnx.export",
        "2026-11-22 10:05:00 retrying on the deployment box",
        "Execution type OpenVINOExecutionProvider doesn't support memcpy",
    ])
    ids = [d.id for d in diagnose(text=log).diagnoses]
    assert "OT0616" in ids and "OT0005" in ids  # the index_select form has its own entry (issue 11 item 5)


def test_rivals_on_one_line_share_confidence():
    report = diagnose(text="The specified device interface or feature level is not supported on this system.")
    same_line = [d for d in (*report.diagnoses, *report.candidates) if d.id in ("OT0003", "OT0004")]
    assert len(same_line) == 2
    assert sum(d.confidence for d in same_line) <= 1.0 + 1e-9
    assert report.notes and "OT0004" in report.notes[0]


def test_origin_in_the_path_decides_between_dml_rivals():
    factory = r"D:\a\_work\1\s\onnxruntime\core\providers\dml\dml_provider_factory.cc(518)\onnxruntime.DLL!00007FFCA503D0A9: (caller: 00007FFCA503D211) Exception(1) tid(3644) 887A0004 The specified device interface or feature level is not supported on this system."
    assert diagnose(text=factory).diagnoses[0].id == "OT0004"
    fusion = factory.replace("dml_provider_factory.cc(518)", r"DmlExecutionProvider\src\DmlGraphFusionHelper.cpp(451)")
    assert diagnose(text=fusion).diagnoses[0].id == "OT0003"


def test_facts_are_extracted():
    report = diagnose(text="NOT_IMPLEMENTED : Could not find an implementation for Mul(14) node with name '/model/Mul_3'")
    assert report.facts["op"] == "Mul" and report.facts["opset"] == "14" and report.facts["node"] == "/model/Mul_3"


def test_confidence_is_a_probability():
    report = diagnose(text="Execution type OpenVINOExecutionProvider doesn't support memcpy")
    assert all(0.0 <= d.confidence <= 1.0 for d in (*report.diagnoses, *report.candidates))

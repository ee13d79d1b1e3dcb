"""Matching behaviour that no single entry owns: abstention, several errors, confidence sharing."""
from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from diagnoser import diagnose

OUT_OF_SCOPE = yaml.safe_load((Path(__file__).resolve().parents[2] / "bench/data/out_of_scope.yaml").read_text(encoding="utf-8"))


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


def test_node_failure_signatures_anchor_on_the_status_not_the_shared_prefix():
    """'Non-zero status code returned while running X node' is shared by every kernel failure:
    a signature that stops there makes its entry a candidate for any failure of the op."""
    from kb import load

    unrelated = ("Non-zero status code returned while running {op} node. Name:'n' Status Message: "
                 "some failure no entry describes")
    ops = ["Add", "Mul", "Where", "Concat", "Gather", "TopK", "Resize", "Split", "Conv", "FusedConv",
           "MatMul", "Reshape", "Relu", "Sigmoid", "BatchNormalization", "MaxPool", "Slice", "Expand"]
    import re

    loose = []
    for doc in load(strict=False).documents.values():
        for sig in doc.entry.signatures:
            if "Non-zero status code" not in sig.pattern:
                continue
            rx = re.compile(sig.pattern, re.I if sig.ignore_case else 0)
            loose += [f"{doc.entry.id}: {op}" for op in ops if rx.search(unrelated.format(op=op))]
    assert loose == []


def test_an_error_after_the_placement_warning_is_not_the_fallback_entry():
    # pykeio/ort#94 (DirectML, Rust): the placement warnings, then an empty initialisation error
    text = "\n".join([
        "2023-09-26T16:41:23.908269Z  INFO apply_execution_providers: ort::execution_providers: Successfully registered `DmlExecutionProvider`",
        "2023-09-26T16:41:24.055449Z  INFO ort: Some nodes were not assigned to the preferred execution providers which may or may not have an negative impact on performance. e.g. ORT explicitly assigns shape related ops to CPU to improve perf.",
        "2023-09-26T16:41:24.055466Z  INFO ort: Rerunning with verbose output on a non-minimal build will show node assignments.",
        "2023-09-26T16:41:24.257247Z  WARN ort: Exception during initialization: ",
    ])
    assert "OT0345" not in [d.id for d in diagnose(text=text).diagnoses]
    # the warning alone is still the fallback entry
    assert [d.id for d in diagnose(text="\n".join(text.split("\n")[1:3])).diagnoses][:1] == ["OT0345"]


@pytest.mark.parametrize("name, expected", [
    ("yolov5s.mnn", "OT0400"),        # another framework's file: the extension says so
    ("model.param", "OT0400"),
    ("silero_vad.onnx", "OT0162"),    # an .onnx that does not parse: damaged, or a git-lfs pointer
    ("model", "OT0162"),
])
def test_the_path_extension_decides_what_an_unparsable_model_is(tmp_path, name, expected):
    import onnxruntime as ort

    path = tmp_path / name
    path.write_bytes(b"\x08\x01\x12\xff\xff\xff not a protobuf")
    with pytest.raises(Exception) as err:  # the runtime's own words for this file
        ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    assert "Protobuf parsing failed" in str(err.value)
    assert diagnose(text=str(err.value)).diagnoses[0].id == expected


def test_decisive_text_keeps_a_message_whose_wrapper_said_error():
    from diagnoser.matching.matcher import decisive_text
    from diagnoser.matching.text import core_view

    text = "[ONNXRuntimeError] : 9 : NOT_IMPLEMENTED : Could not find an implementation for ConvInteger(10) node with name ''"
    assert decisive_text(core_view(text), set(), text).startswith("could not find an implementation for convinteger")
    # with no error word anywhere the last lines are still read (the similarity fallback needs words)
    assert decisive_text("first line\nsecond line", set()) == "first line\nsecond line"


def test_a_short_text_of_common_words_is_not_diagnosed_by_likeness():
    """'load', 'model' and 'failed' are in dozens of entries: that a short text shares only them
    with a short example (OT0915's "Can't load a model: failed to load model") says nothing."""
    # https://github.com/microsoft/CNTK/issues/3249 (CNTK's own loader, not onnxruntime)
    report = diagnose(text="RuntimeError: Failed to load the model.")
    assert report.diagnoses == ()

"""The runtime's verdict outranks the checker's, and evidence says whose words matched
(diagnoser/matching/provenance.py)."""
from __future__ import annotations

import numpy as np
import onnx
from onnx import TensorProto as T
from onnx import helper, numpy_helper

from diagnoser import diagnose
from tests.fixtures.build_broken_models import save
from tests.models import ort_error


def ssd_fp16_unsorted() -> onnx.ModelProto:
    """An SSD-like head after a float16 conversion: one branch kept in float32 meets the float16
    branch at the Concat, and the converter appended nodes out of order."""
    def w(name: str, shape: tuple[int, ...], dt: type) -> onnx.TensorProto:
        return numpy_helper.from_array(np.full(shape, 0.01, dtype=dt), name)

    inits = [w("backbone.w", (8, 3, 3, 3), np.float16), w("loc.w", (4, 8, 1, 1), np.float16), w("cls.w", (3, 8, 1, 1), np.float32)]
    nodes = [
        helper.make_node("Concat", ["loc", "cls"], ["out"], name="/head/Concat", axis=1),  # before its producers
        helper.make_node("Conv", ["feat", "loc.w"], ["loc"], name="/loc/Conv"),
        helper.make_node("Cast", ["feat"], ["feat32"], name="/cls/Cast", to=T.FLOAT),
        helper.make_node("Conv", ["feat32", "cls.w"], ["cls"], name="/cls/Conv"),
        helper.make_node("Conv", ["x", "backbone.w"], ["feat"], name="/backbone/Conv", pads=[1, 1, 1, 1]),
    ]
    g = helper.make_graph(nodes, "ssd", [helper.make_tensor_value_info("x", T.FLOAT16, [1, 3, 16, 16])],
                          [helper.make_tensor_value_info("out", T.FLOAT16, [1, 7, 16, 16])], inits)
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)], ir_version=9)


def test_runtime_error_outranks_the_checkers_node_order(tmp_path):
    path = save(ssd_fp16_unsorted(), tmp_path / "m.onnx")
    error = ort_error(path)
    assert "bound to different types" in error and "topologically" not in error  # the runtime sorts by itself
    for probes in ("all", "static"):
        report = diagnose(model=path, probes=probes)
        assert [d.id for d in report.diagnoses] == ["OT0002"], (probes, [d.id for d in report.diagnoses])
        assert "OT0150" in [c.id for c in report.candidates]
        assert any(n.startswith("OT0150: only onnx.checker") for n in report.notes)


def test_the_same_with_the_users_text(tmp_path):
    path = save(ssd_fp16_unsorted(), tmp_path / "m.onnx")
    report = diagnose(ort_error(path), model=path)
    assert report.diagnoses[0].id == "OT0002" and "OT0150" not in [d.id for d in report.diagnoses]


def test_evidence_says_whose_words_matched(tmp_path):
    path = save(ssd_fp16_unsorted(), tmp_path / "m.onnx")
    report = diagnose(ort_error(path), model=path)
    top = report.diagnoses[0]
    assert any(e.kind == "signature" and e.source == "text" and e.detail.startswith("your text matches") for e in top.evidence)
    assert all(e.source == "probe" for e in top.evidence if e.kind == "finding")
    checker = next(c for c in report.candidates if c.id == "OT0150")
    sigs = [e for e in checker.evidence if e.kind == "signature"]
    # the checker's words are never claimed to be the user's
    assert sigs and all(e.source == "checker" and e.detail.startswith("onnx.checker's message") for e in sigs)


def test_session_words_are_labelled_as_the_sessions(tmp_path):
    path = save(ssd_fp16_unsorted(), tmp_path / "m.onnx")
    top = diagnose(model=path, probes="all").diagnoses[0]
    assert any(e.kind == "signature" and e.source == "session" for e in top.evidence)
    assert not any(e.source == "text" for e in top.evidence)


def test_a_checker_complaint_stays_a_diagnosis_when_the_user_pasted_it(tmp_path):
    """The user runs onnx.checker (or a tool that needs sorted nodes): their own text decides."""
    path = save(ssd_fp16_unsorted(), tmp_path / "m.onnx")
    try:
        onnx.checker.check_model(onnx.load(str(path)))
        raise AssertionError("the checker accepted an unsorted graph")
    except onnx.checker.ValidationError as exc:
        text = f"onnx.onnx_cpp2py_export.checker.ValidationError: {exc}"
    report = diagnose(text, model=path, probes="static")
    assert "OT0150" in [d.id for d in report.diagnoses]

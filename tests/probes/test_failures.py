"""A failing model is never "no known problem" (diagnoser/model/failures.py): the failure leads the
report with the node's facts when no entry explains the runtime's words."""
from __future__ import annotations

import onnx
from onnx import TensorProto as T
from onnx import helper

from diagnoser.renderers import terminal
from tests.fixtures.build_broken_models import save
from tests.models import ort_error
from tests.probes.conftest import run


def resize_cubic_5d() -> onnx.ModelProto:
    roi = helper.make_tensor("roi", T.FLOAT, [0], [])
    scales = helper.make_tensor("scales", T.FLOAT, [5], [1, 1, 2, 2, 2])
    node = helper.make_node("Resize", ["x", "roi", "scales"], ["y"], name="/up/Resize", mode="cubic")
    g = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", T.FLOAT, [1, 2, 4, 4, 4])],
                          [helper.make_tensor_value_info("y", T.FLOAT, [1, 2, 8, 8, 8])], [roi, scales])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)], ir_version=9)


def if_branches_disagree() -> onnx.ModelProto:
    def branch(name: str, dtype: int, value: object) -> onnx.GraphProto:
        const = helper.make_node("Constant", [], [name], value=helper.make_tensor(name, dtype, [1], [value]))
        return helper.make_graph([const], name, [], [helper.make_tensor_value_info(name, dtype, [1])])

    node = helper.make_node("If", ["cond"], ["y"], name="/branch/If", then_branch=branch("a", T.FLOAT, 1.0),
                            else_branch=branch("b", T.INT64, 1))
    g = helper.make_graph([node], "g", [helper.make_tensor_value_info("cond", T.BOOL, [])], [helper.make_tensor_value_info("y", T.FLOAT, [1])])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)], ir_version=9)


def test_cubic_resize_on_5d_input_leads_with_the_node(tmp_path):
    path = save(resize_cubic_5d(), tmp_path / "m.onnx")
    assert "Cubic" in ort_error(path)  # the real runtime refuses it
    # the runtime's own words are explained by the cubic Resize entry, which leads
    assert [d.id for d in run(path, probes="all").diagnoses][:1] == ["OT0703"]
    # with no entry for it, the failure itself leads with the node's facts, never "no known problem"
    from diagnoser.matching.index import build
    from kb import load
    from kb.paths import entries_dir

    db = load(entries_dir(), strict=False)
    db.documents.pop("OT0703")
    report = run(path, probes="all", index=build(db))
    assert not report.diagnoses and report.failures
    lead = report.failures[0]
    assert lead.code == "session.create-failed" and lead.node["node"] == "/up/Resize" and lead.node["op"] == "Resize"
    assert "1x2x4x4x4" in lead.node["input0"] and "Cubic" in lead.error and "onnxruntime_src" not in lead.error
    assert not any("no known problem" in n for n in report.notes)
    assert terminal.render(report).startswith("The model fails")


def test_if_whose_branches_disagree_leads_with_the_node(tmp_path):
    path = save(if_branches_disagree(), tmp_path / "m.onnx")
    assert "Mismatched tensor element type" in ort_error(path)
    report = run(path, probes="all")
    codes = [f.code for f in report.failures]
    assert codes[0] == "session.create-failed" and "shape.inference-error" in codes
    assert report.failures[0].node["node"] == "/branch/If" and "bool" in report.failures[0].node["input0"]
    assert not any("no known problem" in n for n in report.notes)


def test_static_probes_alone_still_lead_with_the_failure(tmp_path):
    report = run(save(if_branches_disagree(), tmp_path / "m.onnx"))
    assert [f.code for f in report.failures] == ["shape.inference-error"]
    assert not any("no known problem" in n for n in report.notes)


def test_a_probe_that_breaks_makes_the_analysis_incomplete(good_model, monkeypatch):
    from diagnoser.probes import dtypes

    def broken(ctx):
        raise AttributeError("'bytes' object has no attribute 'opset_import'")

    monkeypatch.setattr(dtypes, "run", broken)
    report = run(good_model)
    assert "probe.failed" in {f.code for f in report.findings}
    assert any(n.startswith("the analysis is incomplete: probe(s) dtypes failed") for n in report.notes)
    assert not any("no known problem" in n for n in report.notes)


def test_a_healthy_model_still_has_no_known_problem(good_model):
    report = run(good_model, probes="all")
    assert not report.failures and report.notes == ("the probes predict no known problem for this model",)


def test_findings_about_this_machine_or_another_target_never_lead_as_model_failures():
    from diagnoser.model.failures import is_failure
    from diagnoser.report import Finding

    assert not is_failure(Finding("env.provider-unavailable", "error", "CUDA missing", "environment"))
    assert not is_failure(Finding("provider.unsupported-op", "error", "no DirectML kernel", "providers"))
    assert is_failure(Finding("session.create-failed", "error", "Type Error", "session"))
    assert is_failure(Finding("session.timeout", "warning", "hung", "session"))


def test_the_core_line_drops_status_prefixes_paths_and_signatures():
    from diagnoser.model.failures import core_line

    text = ("Fail: [ONNXRuntimeError] : 1 : FAIL : Load model from m.onnx failed:/onnxruntime_src/onnxruntime/core/graph/model.cc:251 "
            "onnxruntime::Model::Model(onnx::ModelProto&&, const onnxruntime::PathString&) Missing model IR version.")
    assert core_line(text) == "Missing model IR version."

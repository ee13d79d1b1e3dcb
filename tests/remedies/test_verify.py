"""The shared verification: tolerances, and every way a repaired model can fail it."""
from __future__ import annotations

import onnx
import pytest
from onnx import TensorProto as TP
from onnx import helper

import diagnoser.remedies as remedies
from diagnoser.remedies import verify
from tests.remedies.builders import model, save, vi
from tests.remedies.conftest import record


def _relu(tmp_path):
    return save(model([helper.make_node("Relu", ["x"], ["y"])], [vi("x", TP.FLOAT, [2, 3])], [vi("y", TP.FLOAT, [2, 3])]), tmp_path / "m.onnx")


def test_judge_scales_by_the_reference():
    tol = verify.TOLERANCES["float16"]
    assert verify._judge({"name": "y", "dtype": "float16", "max_abs": 0.05, "scale": 10.0}, tol).ok  # 0.05 <= 1e-3 + 0.1
    assert not verify._judge({"name": "y", "dtype": "float16", "max_abs": 0.05, "scale": 1.0}, tol).ok
    row = verify._judge({"name": "i", "dtype": "int64", "max_abs": 1.0, "scale": 100.0, "integral": True}, tol)
    assert not row.ok and row.rel == 0.01  # integers must match exactly whatever the tolerance
    assert verify._tolerance("exact", "onnx.reference")[0] == "float32"
    assert verify._tolerance("exact", "onnxruntime") == ("exact", (0.0, 0.0))


def test_identical_model_passes_exactly(tmp_path):
    src = _relu(tmp_path)
    v = verify.verify(src, src, onnx.load(str(src)), "exact")
    assert v.passed and v.reference == "onnxruntime" and v.outputs[0].max_abs == 0.0 and v.shapes == {"x": [2, 3]}


def test_changed_numbers_fail_the_exact_tolerance(tmp_path):
    src = _relu(tmp_path)
    other = save(model([helper.make_node("Abs", ["x"], ["y"])], [vi("x", TP.FLOAT, [2, 3])], [vi("y", TP.FLOAT, [2, 3])]), tmp_path / "o.onnx")
    v = verify.verify(other, src, onnx.load(str(src)), "exact")
    assert not v.passed and "beyond the exact tolerance" in v.reason and v.outputs[0].max_abs > 0


def test_checker_failure(tmp_path):
    bad = model([helper.make_node("Relu", ["nowhere"], ["y"])], [vi("x", TP.FLOAT, [2])], [vi("y", TP.FLOAT, [2])])
    path = tmp_path / "bad.onnx"
    onnx.save(bad, str(path))
    v = verify.verify(path, path, bad, "exact")
    assert not v.passed and v.checker != "ok" and v.session == "not run"


def test_memory_limit_is_a_failed_verification_not_a_crash(tmp_path):
    src = _relu(tmp_path)
    v = verify.verify(src, src, onnx.load(str(src)), "exact", memory_mb=40)
    assert not v.passed and v.reference is None


def test_timeout_is_a_failed_verification(tmp_path):
    src = _relu(tmp_path)
    v = verify.verify(src, src, onnx.load(str(src)), "exact", timeout=0.05)
    assert not v.passed and "hung" in v.reason


def test_huge_declared_tensor_refused(tmp_path, fixit):
    """A bfloat16 weight declaring 10^10 elements with two bytes of data: never materialised."""
    t = onnx.TensorProto(name="w", data_type=TP.BFLOAT16, dims=[100000, 100000], raw_data=b"\x00\x00")
    node = helper.make_node("Add", ["x", "w"], ["y"])
    m = model([node], [vi("x", TP.BFLOAT16, [1])], [vi("y", TP.BFLOAT16, [1])], [t])
    src = tmp_path / "huge.onnx"
    onnx.save(m, str(src))
    rep = fixit(src, "bf16-to-fp32")
    r = record(rep, "bf16-to-fp32")
    assert r.status == "failed" and "refused" in r.message
    assert rep.fixes.output is None


def test_registry_matches_the_list_entries_name(db):
    from kb.remedies import load_remedies

    listed = load_remedies(db.root)
    mods = {m.NAME: m for m in remedies.registered()}
    assert set(listed) == set(mods)
    for name, m in mods.items():
        assert listed[name]["grade"] == m.GRADE and m.TOLERANCE in (*verify.TOLERANCES, "report")
    named = {r for d in db.documents.values() for r in d.entry.remedies}
    assert named == set(mods)  # every remedy repairs some entry


def test_output_never_the_input(tmp_path, fixit):
    from diagnoser.errors import UserInputError

    src = _relu(tmp_path)
    with pytest.raises(UserInputError, match="overwrite"):
        fixit(src, "reinfer-shapes", output=src)


def test_remedies_chain_each_verified_on_the_last(tmp_path, fixit):
    """Two problems, two remedies: each is verified on the model the previous one left."""
    nodes = [helper.make_node("Relu", ["t"], ["y"]), helper.make_node("Neg", ["x"], ["t"])]
    src = save(model(nodes, [vi("x", TP.FLOAT, [3])], [vi("y", TP.FLOAT, [3])], opset=None), tmp_path / "m.onnx")
    rep = fixit(src, "opset-fill", "reinfer-shapes", unsafe=True)
    fill, shapes = rep.fixes.remedies
    assert (fill.name, fill.status, shapes.name, shapes.status) == ("opset-fill", "applied", "reinfer-shapes", "applied")
    assert "verified together with reinfer-shapes" in fill.message and "topologically sorted" in fill.message  # why it failed alone
    assert shapes.message == "applied on top of opset-fill, verified together"
    fixed = onnx.load(rep.fixes.output)
    assert [n.op_type for n in fixed.graph.node] == ["Neg", "Relu"] and fixed.opset_import[0].version >= 14
    onnx.checker.check_model(fixed, full_check=True)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.fixed.onnx", "m.onnx"]


def test_reference_too_slow_is_no_comparison(tmp_path, monkeypatch):
    """The repaired model ran, then the original (as reference) was still running at the time
    limit: no comparison is claimed; that passes a safe remedy and fails a dtype change."""
    src = _relu(tmp_path)
    ran = [{"stage": "import"}, {"stage": "create"}, {"stage": "run", "shapes": {"x": [2, 3]}}, {"stage": "ran", "shapes": {"x": [2, 3]}}]
    monkeypatch.setattr(verify, "run_child", lambda *a, **k: (ran, None, ""))
    safe = verify.verify(src, src, onnx.load(str(src)), "exact", timeout=5)
    assert safe.passed and safe.reference is None and "did not finish" in safe.reason and safe.shapes == {"x": [2, 3]}
    dtype = verify.verify(src, src, onnx.load(str(src)), "bfloat16", timeout=5)
    assert not dtype.passed and "a dtype change needs that comparison" in dtype.reason
    monkeypatch.setattr(verify, "run_child", lambda *a, **k: (ran[:3], None, ""))  # the repaired model itself hung
    hung = verify.verify(src, src, onnx.load(str(src)), "exact", timeout=5)
    assert not hung.passed and "hung" in hung.reason

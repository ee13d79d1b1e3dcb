"""`diagnose --fix` end to end: the remedy comes from the diagnosed entry, the report says what
was done and how it was checked, the input is never touched, bad requests are one line."""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto as TP
from onnx import helper

from diagnoser.report import SCHEMA_VERSION
from tests.remedies.builders import digest, model, run as ort_run, save, vi

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "bf16_add.onnx"
ERROR = ROOT / "examples" / "bf16_add.error.txt"


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "diagnoser", *args], capture_output=True, text=True, timeout=300, env=dict(os.environ))


def _example(tmp_path) -> Path:
    return Path(shutil.copy(EXAMPLE, tmp_path / "bf16_add.onnx"))


def test_fix_bundled_example(tmp_path):
    src = _example(tmp_path)
    before = digest(src)
    proc = run("--log", str(ERROR), "--model", str(src), "--fix", "--no-color")
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    section = out[out.index("Fixes (diagnose --fix):"):out.index("written:")]
    assert "bf16-to-fp32 [changes numerics] applied (for OT0001)" in section
    assert re.search(r"output out: max abs [0-9.e-]+, rel [0-9.e-]+  ok", section)
    assert "compared with onnx.reference, tolerance bfloat16, atol 0.01, rtol 0.04" in section
    assert all(len(line) <= 80 for line in section.splitlines())
    assert digest(src) == before
    fixed = tmp_path / "bf16_add.fixed.onnx"
    assert f"written: {fixed}" in out
    m = onnx.load(str(fixed))
    feed = {m.graph.input[0].name: np.random.default_rng(0).random((1, 64, 16), dtype=np.float32)}
    assert ort_run(fixed, feed)[0].shape[0] == 1  # loads and runs on CPU, which the input cannot


def test_json_markdown_and_chinese(tmp_path):
    src = _example(tmp_path)
    data = json.loads(run("--log", str(ERROR), "--model", str(src), "--fix", "--json", "-o", str(tmp_path / "out.onnx")).stdout)
    assert data["schema_version"] == SCHEMA_VERSION == "1.2"
    [rec] = data["fixes"]["remedies"]
    assert rec["status"] == "applied" and rec["verification"]["outputs"][0]["ok"] is True
    assert rec["verification"]["outputs"][0]["rel"] < 0.04 and data["fixes"]["output"] == str(tmp_path / "out.onnx")
    md = run("--log", str(ERROR), "--model", str(src), "--fix", "--markdown").stdout
    assert "### Fixes (diagnose --fix)" in md and "- **bf16-to-fp32 [changes numerics] applied (for OT0001)**" in md
    zh = run("--log", str(ERROR), "--model", str(src), "--fix", "--lang", "zh", "--no-color").stdout
    part = zh[zh.index("自动修复"):zh.index("已写入")]
    assert "[改变数值] 已应用" in part and "已验证" in part and "容差" in part and "最大绝对误差" in part
    assert not re.search(r"\b(applied|verified|tolerance|changed)\b", part)


def test_remedy_chosen_from_the_model_alone(tmp_path):
    bias = helper.make_tensor("bias", TP.INT32, [4], [1, 2, 3, 4])
    node = helper.make_node("Add", ["hidden", "bias"], ["out"], name="/q/Add")
    src = save(model([node], [vi("hidden", TP.FLOAT16, [1, 4])], [vi("out", TP.FLOAT16, [1, 4])], [bias], opset=14), tmp_path / "q.onnx")
    proc = run("--model", str(src), "--fix", "--json")
    data = json.loads(proc.stdout)
    assert data["diagnoses"][0]["id"] == "OT0002"
    [rec] = data["fixes"]["remedies"]
    assert rec["name"] == "mixed-dtype-cast" and rec["status"] == "applied" and rec["grade"] == "safe"
    x = np.array([[0.5, 1, 2, 3]], np.float16)
    np.testing.assert_array_equal(ort_run(tmp_path / "q.fixed.onnx", {"hidden": x})[0], x + np.array([1, 2, 3, 4], np.float16))


def test_bad_requests_are_one_line(tmp_path):
    src = _example(tmp_path)
    for args, needle in ((("--model", str(src), "--fix", "-o", str(src)), "overwrite the input"),
                         (("--fix", "some error text"), "--fix needs the model"),
                         (("--model", str(src), "-o", "x.onnx"), "go with --fix"),
                         (("--model", str(src), "--convert-io-types"), "go with --fix"),
                         (("--model", str(tmp_path), "--fix"), "not a folder")):
        proc = run(*args)
        assert proc.returncode == 2 and needle in proc.stderr and len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bf16_add.onnx"]


def test_convert_io_types(tmp_path):
    import ml_dtypes

    w = onnx.numpy_helper.from_array(np.eye(4, dtype=np.float32).astype(ml_dtypes.bfloat16), "w")
    m = model([helper.make_node("MatMul", ["x", "w"], ["y"], name="/mm")], [vi("x", TP.BFLOAT16, [1, 4])], [vi("y", TP.BFLOAT16, [1, 4])], [w])
    src = save(m, tmp_path / "io.onnx")
    io = lambda p: {v.type.tensor_type.elem_type for v in (*onnx.load(str(p)).graph.input, *onnx.load(str(p)).graph.output)}  # noqa: E731
    data = json.loads(run("--model", str(src), "--fix", "--json").stdout)
    assert data["diagnoses"][0]["id"] == "OT0001" and data["fixes"]["remedies"][0]["status"] == "applied"
    assert io(tmp_path / "io.fixed.onnx") == {TP.BFLOAT16}  # kept, behind boundary Casts
    data = json.loads(run("--model", str(src), "--fix", "--convert-io-types", "--json", "-o", str(tmp_path / "f.onnx")).stdout)
    assert data["fixes"]["remedies"][0]["status"] == "applied" and io(tmp_path / "f.onnx") == {TP.FLOAT}
    x = np.array([[1.0, -2.0, 0.5, 3.0]], np.float32)
    np.testing.assert_array_equal(ort_run(tmp_path / "f.onnx", {"x": x})[0], x)


def test_escaping_external_data_refused(tmp_path):
    inner = tmp_path / "m"
    inner.mkdir()
    w = onnx.numpy_helper.from_array(np.ones((4, 4), np.float32), "w")
    m = model([helper.make_node("MatMul", ["x", "w"], ["y"])], [vi("x", TP.FLOAT, [1, 4])], [vi("y", TP.FLOAT, [1, 4])], [w])
    onnx.save(m, str(inner / "m.onnx"), save_as_external_data=True, location="w.bin", size_threshold=0)
    shutil.move(inner / "w.bin", tmp_path / "w.bin")
    loaded = onnx.load(str(inner / "m.onnx"), load_external_data=False)
    loaded.graph.initializer[0].external_data[0].value = "../w.bin"
    onnx.save(loaded, str(inner / "m.onnx"))
    proc = run("--model", str(inner / "m.onnx"), "--fix", "--unsafe-fixes")
    assert proc.returncode == 2 and "refused" in proc.stderr and "Traceback" not in proc.stderr
    assert sorted(p.name for p in inner.iterdir()) == ["m.onnx"]

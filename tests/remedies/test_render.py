"""Golden files for the --fix section in every renderer (regenerate with UPDATE_GOLDENS=1)."""
from __future__ import annotations

import json
import os
from dataclasses import replace
from pathlib import Path

import pytest

from diagnoser.renderers import json as json_renderer
from diagnoser.renderers import markdown, terminal
from diagnoser.report import Change, FixOutcome, OutputError, RemedyRecord, Verification
from kb.termtext import cells
from tests.renderers.sample import sample_report

GOLDEN = Path(__file__).parent / "golden"


def fixed_report():
    ok = Verification(True, "every output within the bfloat16 tolerance of the original (onnx.reference)", "ok", "ran",
                      "onnx.reference", "bfloat16", 0.01, 0.04, {"hidden_states": [1, 64, 16]},
                      (OutputError("out", "float32", 0.0461, 0.00277, True),))
    bad = Verification(False, "output(s) y differ from the original beyond the float16 tolerance", "ok", "ran", "onnxruntime",
                       "float16", 0.001, 0.01, {"x": [1, 3, 16, 16]}, (OutputError("y", "float32", 0.5, 0.25, False),))
    recs = (
        RemedyRecord("bf16-to-fp32", "numerics", ("OT0001",), "applied", "applied and verified",
                     (Change("initializer", "q_proj.weight", "bfloat16 -> float32"), Change("node-retyped", "/self_attn/Cast", "Cast to=bfloat16 -> float32")),
                     ok, "compute in float32 instead of bfloat16", "用 float32 代替 bfloat16 计算"),
        RemedyRecord("fp32-to-fp16", "numerics", ("OT0003",), "failed", "verification failed: " + bad.reason,
                     (Change("initializer", "weights", "4 weights float32 -> float16"),), bad,
                     "convert float32 compute to float16 (for DirectML / NPU)", "把 float32 计算转换为 float16（用于 DirectML / NPU）"),
        RemedyRecord("inference-form", "review", ("OT0425",), "needs-unsafe", "graded 'review': run again with --unsafe-fixes to apply it",
                     (), None, "turn training-mode BatchNormalization/Dropout into their inference form", "把训练模式的 BatchNormalization/Dropout 改为推理形式"),
    )
    return replace(sample_report(), fixes=FixOutcome("m.onnx", "m.fixed.onnx", recs))


CASES = {
    "fix_terminal.txt": lambda r: terminal.render(r, color=False),
    "fix_terminal_zh.txt": lambda r: terminal.render(r, color=False, lang="zh"),
    "fix_report.md": markdown.render,
    "fix_report_zh.md": lambda r: markdown.render(r, lang="zh"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_golden(name):
    out = CASES[name](fixed_report())
    path = GOLDEN / name
    if os.environ.get("UPDATE_GOLDENS"):
        path.write_text(out, encoding="utf-8")
    assert out == path.read_text(encoding="utf-8")
    if name.startswith("fix_terminal"):
        assert max(cells(line) for line in out.splitlines()) <= 80


def test_json_fixes_section():
    data = json.loads(json_renderer.render(fixed_report()))
    fx = data["fixes"]
    assert fx["output"] == "m.fixed.onnx" and [r["status"] for r in fx["remedies"]] == ["applied", "failed", "needs-unsafe"]
    assert fx["remedies"][1]["verification"]["outputs"][0] == {"name": "y", "dtype": "float32", "max_abs": 0.5, "rel": 0.25, "ok": False, "note": ""}
    assert "fixes" not in json.loads(json_renderer.render(sample_report()))  # only with --fix


def test_no_remedy_named_says_so(tmp_path):
    import shutil

    from diagnoser.renderers.fixes import footer

    src = shutil.copy(Path(__file__).resolve().parents[2] / "examples" / "bf16_add.onnx", tmp_path / "m.onnx")
    from diagnoser.api import fix

    rep = fix(text="Execution type OpenVINOExecutionProvider doesn't support memcpy", model=src, probes="static")
    assert rep.fixes.remedies == () and rep.fixes.output is None
    assert footer(rep.fixes, "en") == "no diagnosed problem has an automatic remedy: nothing written"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.onnx"]

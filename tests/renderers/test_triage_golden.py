"""Golden files for the triage section of every renderer (UPDATE_GOLDENS=1 to regenerate)."""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from diagnoser.renderers import json as json_renderer
from diagnoser.renderers import markdown, terminal
from tests.renderers.triage_sample import triage_report

GOLDEN = Path(__file__).parent / "golden"
CASES = {
    "triage_terminal.txt": lambda r: terminal.render(r, color=False),
    "triage_terminal_zh.txt": lambda r: terminal.render(r, color=False, lang="zh"),
    "triage.json": json_renderer.render,
    "triage.md": markdown.render,
    "triage_zh.md": lambda r: markdown.render(r, lang="zh"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_triage_golden(name):
    out = CASES[name](triage_report())
    path = GOLDEN / name
    if os.environ.get("UPDATE_GOLDENS"):
        path.write_text(out, encoding="utf-8")
    assert out == path.read_text(encoding="utf-8")


def test_triage_is_in_the_json_contract():
    data = json.loads(json_renderer.render(triage_report()))
    assert data["schema_version"] == "1.1"
    assert data["triage"]["component"] == "onnxruntime-web" and data["triage"]["stage"] == "load"
    assert data["triage"]["closest"][0]["id"] == "OT0203" and data["triage"]["next_steps"]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_triage_fits_80_columns(lang):
    from unicodedata import east_asian_width

    for line in terminal.render(triage_report(), lang=lang).splitlines():
        cols = sum(2 if east_asian_width(ch) in "WF" else 1 for ch in line)
        assert cols <= 80 or not line.startswith(("  ", "    ")), line


def test_chinese_triage_has_no_english_labels():
    out = terminal.render(triage_report(), lang="zh")
    section = out[out.index("分诊"):]
    for label in ("raised by", "stage", "facts", "closest entries", "tells it apart", "next"):
        assert label + ":" not in section

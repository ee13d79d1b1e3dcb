"""Golden files for every renderer. Regenerate deliberately with UPDATE_GOLDENS=1 and review the diff."""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from diagnoser.renderers import json as json_renderer
from diagnoser.renderers import markdown, terminal
from tests.renderers.sample import sample_report

GOLDEN = Path(__file__).parent / "golden"
CASES = {
    "terminal.txt": lambda r: terminal.render(r, color=False),
    "terminal_color.txt": lambda r: terminal.render(r, color=True),
    "terminal_zh.txt": lambda r: terminal.render(r, color=False, lang="zh"),
    "report.json": json_renderer.render,
    "report.md": markdown.render,
    "report_zh.md": lambda r: markdown.render(r, lang="zh"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_golden(name):
    out = CASES[name](sample_report())
    path = GOLDEN / name
    if os.environ.get("UPDATE_GOLDENS"):
        path.write_text(out, encoding="utf-8")
    assert out == path.read_text(encoding="utf-8")


def test_json_is_valid_and_versioned():
    data = json.loads(json_renderer.render(sample_report()))
    assert list(data)[0] == "schema_version" and data["schema_version"] == "1.1"
    assert data["diagnoses"][0]["evidence"][0] == {"kind": "signature", "detail": data["diagnoses"][0]["evidence"][0]["detail"], "effect": 0.75, "source": "text", "detail_zh": data["diagnoses"][0]["evidence"][0]["detail_zh"]}


def test_colour_only_when_asked():
    assert "\x1b[" not in terminal.render(sample_report(), color=False)
    assert "\x1b[" in terminal.render(sample_report(), color=True)


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("width", [60, 80, 100])
def test_terminal_fits_its_width(lang, width):
    """Every line fits the width asked for, Chinese counted as two columns, and nothing is lost."""
    from kb.termtext import cells

    report = sample_report()
    out = terminal.render(report, color=False, lang=lang, width=width)
    assert max(cells(line) for line in out.splitlines()) <= width
    flat = "".join(out.split())
    d = report.diagnoses[0]
    assert "".join((d.title_zh if lang == "zh" else d.title).split()) in flat


def test_terminal_zh_has_no_english_labels():
    out = terminal.render(sample_report(), color=False, lang="zh", width=80)
    for label in ("confidence", "why:", "fix:", "read:", "facts:", "note:", "Less likely", "Findings"):
        assert label not in out, label

"""`kb show` (like rustc --explain) and `kb list`."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from kb import normalise_id


def kb(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "kb", *args], capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("given", ["OT0005", "ot0005", "ot5", "5", "0005", "OT-0005"])
def test_show_accepts_any_case_with_or_without_prefix(given):
    proc = kb("show", given)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("OT0005: ")
    assert "## Symptom" in proc.stdout and "## Fix" in proc.stdout


def flat(text: str) -> str:
    """Output with its wrapping undone (every space and line break removed)."""
    return "".join(text.split())


def test_show_zh():
    proc = kb("show", "OT0005", "--lang", "zh")
    assert "同一会话" in flat(proc.stdout) and "修复方法" in proc.stdout
    assert "仅有英文原文" in proc.stdout  # the English-only body is labelled as such


def test_show_json():
    data = json.loads(kb("show", "OT0001", "--json").stdout)
    assert data["id"] == "OT0001" and data["category"] == "ort.not-implemented"


def test_show_unknown_is_one_line_error():
    proc = kb("show", "OT9999")
    assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1


def test_list_json(db):
    data = json.loads(kb("list", "--json").stdout)
    ids = [row["id"] for row in data]
    assert ids == sorted(db.documents)
    assert {"OT0001", "OT0002", "OT0003", "OT0004", "OT0005", "OT0006"} <= set(ids)
    assert all(row["category"] in db.categories for row in data)


def test_list_text_filters_by_category():
    out = kb("list", "--category", "ep.dml-feature-level").stdout.splitlines()
    assert [line.split()[0] for line in out if not line.startswith(" ")] == ["OT0003", "OT0004", "OT1757"]


@pytest.mark.parametrize("given,expected", [("OT0001", "OT0001"), ("ot12", "OT0012"), ("7", "OT0007"), ("E0001", None), ("OT12345", None), ("", None)])
def test_normalise_id(given, expected):
    assert normalise_id(given) == expected


@pytest.mark.parametrize("args", [("list",), ("show", "OT0005"), ("show", "5", "--lang", "zh"), ("search", "opset", "downgrade"),
                                  ("search", "内存拷贝"), ("faq", "list"), ("faq", "list", "--lang", "zh"),
                                  ("faq", "show", "FAQ013"), ("faq", "show", "13", "--lang", "zh"), ("faq", "search", "opset")])
@pytest.mark.parametrize("columns", [80, 60])
def test_every_command_fits_the_terminal(args, columns):
    """Every line fits the terminal width (COLUMNS), Chinese counted as two columns."""
    import os

    from kb.termtext import cells

    env = {**os.environ, "COLUMNS": str(columns)}
    proc = subprocess.run([sys.executable, "-m", "kb", *args], capture_output=True, text=True, timeout=120, env=env)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines and max(cells(line) for line in lines) <= columns

"""`kb search` over titles, summaries, symptoms and examples, in English and Chinese."""
from __future__ import annotations

import pytest

from kb.search import search, tokens


def test_chinese_tokens_are_bigrams_and_characters():
    assert {"内存", "存拷", "拷贝", "内"} <= set(tokens("内存拷贝"))


@pytest.mark.parametrize("query,expected", [
    ("memcpy OpenVINO", "OT0005"),
    ("内存拷贝", "OT0005"),
    ("同一设备 导出", "OT0006"),
    ("bfloat16 NOT_IMPLEMENTED kernel", "OT0001"),
    ("887A0004 dml_provider_factory stale DirectML.dll", "OT0004"),
    ("ot3", "OT0003"),
])
def test_queries_find_the_right_entry(db, query, expected):
    hits = search(db, query)
    assert hits and hits[0].id == expected, [(h.id, h.score) for h in hits[:3]]


def test_nonsense_finds_nothing(db):
    assert search(db, "zzzqqq xylophone") == []


def test_kb_search_command():
    import json
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-m", "kb", "search", "内存拷贝"], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and out.stdout.splitlines()[0].startswith("OT0005") and "内存" in out.stdout
    data = json.loads(subprocess.run([sys.executable, "-m", "kb", "search", "memcpy", "--json"], capture_output=True, text=True, timeout=60).stdout)
    assert data[0]["id"] == "OT0005"
    miss = subprocess.run([sys.executable, "-m", "kb", "search", "zzzqqq"], capture_output=True, text=True, timeout=60)
    assert miss.returncode == 1

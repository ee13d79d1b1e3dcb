"""Entry pages show `diagnose --fix` and what the verification checks, only where a remedy exists."""
from __future__ import annotations

from kb import load_faq
from kb.docs.pages import render_all


def test_pages_show_the_remedy_block(db):
    pages = render_all(db, load_faq(db.root, strict=False))
    en = next(v for k, v in pages.items() if k.endswith("en/entries/OT0216.md"))
    assert "### Automatic fix" in en and "--fix" in en and "`rnn-layout` (safe)" in en and "strict shape inference" in en
    zh = next(v for k, v in pages.items() if k.endswith("zh/entries/OT0216.md"))
    assert "### 自动修复" in zh and "`rnn-layout`（安全）" in zh
    plain = next(v for k, v in pages.items() if k.endswith("en/entries/OT0005.md"))
    assert "Automatic fix" not in plain

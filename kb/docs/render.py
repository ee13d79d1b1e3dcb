"""Entry text for the terminal (`kb show`): the same words the site page shows."""
from __future__ import annotations

import re

from kb.schema import Document, FaqDocument
from kb.termtext import fit_markdown

_INFO = re.compile(r"^```python[^\n]*$", re.M)


def entry_text(doc: Document, lang: str = "en", width: int = 80, measured: str = "") -> str:
    """The entry for the terminal, wrapped to width. In Chinese, the translated parts first, then
    the body (written in English only) under a label that says so. `measured` is the compact
    `kb verify` line (kb.measure.verify_matrix.entry_line), shown under the category."""
    e = doc.entry
    zh = lang == "zh"
    title = e.title_zh if zh else e.title
    summary = e.summary_zh if zh else e.summary
    head = [f"{e.id}: {title}", f"{'类别' if zh else 'category'}: {e.category}   {'阶段' if zh else 'stage'}: {e.stage}", "", summary, ""]
    if measured:
        head.insert(2, f"{'实测' if zh else 'measured'}: {measured}")
    if e.retired:
        head.insert(1, f"{'已停用' if zh else 'RETIRED'}: {e.retired}")
    if zh:
        head += ["修复方法:"] + [f"- {f.summary_zh}" for f in e.fixes] + ["", "## 详细说明（仅有英文原文）", ""]
    body = _INFO.sub("```python", doc.body.strip())
    return fit_markdown("\n\n".join(x for x in head if x) + "\n\n" + body, width) + "\n"


def faq_text(doc: FaqDocument, lang: str = "en", width: int = 80) -> str:
    """A FAQ question and its answer for the terminal, in the chosen language."""
    q = doc.question
    question = q.question_zh if lang == "zh" else q.question
    answer = q.answer_zh if lang == "zh" else doc.body
    head = [f"{q.id}: {question}", f"topic: {q.topic}" + (f"   source: {q.source}" if q.source else ""), ""]
    tail = ["", ("相关条目: " if lang == "zh" else "related: ") + ", ".join(q.related)]
    return fit_markdown("\n\n".join(x for x in head if x) + "\n\n" + _INFO.sub("```python", answer.strip()) + "\n" + "\n".join(tail), width) + "\n"

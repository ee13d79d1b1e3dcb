"""Entry text for the terminal (`kb show`): the same words the site page shows."""
from __future__ import annotations

import re

from kb.schema import Document, FaqDocument

_INFO = re.compile(r"^```python[^\n]*$", re.M)


def entry_text(doc: Document, lang: str = "en") -> str:
    e = doc.entry
    title = e.title_zh if lang == "zh" else e.title
    summary = e.summary_zh if lang == "zh" else e.summary
    head = [f"{e.id}: {title}", f"category: {e.category}   stage: {e.stage}", "", summary, ""]
    if e.retired:
        head.insert(1, f"RETIRED: {e.retired}")
    if lang == "zh":
        head += ["修复方法:"] + [f"  - {f.summary_zh}" for f in e.fixes] + [""]
    body = _INFO.sub("```python", doc.body.strip())
    return "\n".join(head) + body + "\n"


def faq_text(doc: FaqDocument, lang: str = "en") -> str:
    """A FAQ question and its answer for the terminal, in the chosen language."""
    q = doc.question
    question = q.question_zh if lang == "zh" else q.question
    answer = q.answer_zh if lang == "zh" else doc.body
    head = [f"{q.id}: {question}", f"topic: {q.topic}" + (f"   source: {q.source}" if q.source else ""), ""]
    tail = ["", ("相关条目: " if lang == "zh" else "related: ") + ", ".join(q.related)]
    return "\n".join(head) + _INFO.sub("```python", answer.strip()) + "\n" + "\n".join(tail) + "\n"

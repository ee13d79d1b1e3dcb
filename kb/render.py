"""Entry text for the terminal (`kb show`): the same words the site page shows."""
from __future__ import annotations

import re

from kb.schema import Document

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

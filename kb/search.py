"""`kb search`: find entries by words, in English or Chinese, over titles, summaries, symptoms
and example texts. BM25 over word tokens and Chinese character bigrams (no segmenter needed:
bigrams find 内存拷贝 inside 内存拷贝不受支持 as well as a dictionary would)."""
from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass

from kb.database import Database, normalise_id

_WORD = re.compile(r"[a-z0-9][a-z0-9_.+-]*[a-z0-9]|[a-z0-9]")
_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]+")
_FIELDS = (("title", 3.0), ("title_zh", 3.0), ("summary", 2.0), ("summary_zh", 2.0), ("body", 1.0))
K1, B = 1.2, 0.75


def tokens(text: str) -> list[str]:
    low = text.lower()
    out = _WORD.findall(low)
    for run in _CJK.findall(low):
        out.extend(run)  # single characters, so a one-character query still matches
        out.extend(run[i : i + 2] for i in range(len(run) - 1))
    return out


@dataclass(frozen=True)
class Hit:
    id: str
    title: str
    title_zh: str
    category: str
    score: float


def _fields(doc) -> dict[str, str]:
    e = doc.entry
    body = "\n".join([doc.sections.get("Symptom", ""), *(x.text for x in e.examples), e.category])
    return {"title": e.title, "title_zh": e.title_zh, "summary": e.summary, "summary_zh": e.summary_zh, "body": body}


def search(db: Database, query: str, limit: int = 10) -> list[Hit]:
    """Entries ranked by BM25F-style relevance to query; an entry ID in the query ranks first."""
    q = [t for t in tokens(query) if t.strip()]
    docs = [d for d in db.documents.values() if not d.entry.retired]
    if not q or not docs:
        return []
    per_doc = []
    for d in docs:
        tf: Counter[str] = Counter()
        length = 0.0
        for name, weight in _FIELDS:
            toks = tokens(_fields(d)[name])
            length += weight * len(toks)
            for t in toks:
                tf[t] += weight
        per_doc.append((d, tf, length))
    avg = sum(l for _, _, l in per_doc) / len(per_doc)
    df = Counter(t for _, tf, _ in per_doc for t in set(tf) if t in q)
    n = len(per_doc)
    wanted = normalise_id(query.strip()) if len(query.strip()) <= 8 else None
    hits = []
    for d, tf, length in per_doc:
        s = 0.0
        for t in set(q):
            f = tf.get(t, 0.0)
            if f:
                idf = math.log(1 + (n - df[t] + 0.5) / (df[t] + 0.5))
                s += idf * f * (K1 + 1) / (f + K1 * (1 - B + B * length / avg))
        if wanted == d.entry.id:
            s += 1000.0
        if s > 0:
            e = d.entry
            hits.append(Hit(e.id, e.title, e.title_zh, e.category, round(s, 3)))
    hits.sort(key=lambda h: (-h.score, h.id))
    return hits[:limit]

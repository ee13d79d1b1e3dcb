"""`kb search`: find entries by words, in English or Chinese, over titles, summaries, category
titles, fixes, symptoms and example texts.

BM25F over word tokens and Chinese character bigrams (no segmenter needed: bigrams find 内存拷贝
inside 内存拷贝不受支持 as well as a dictionary would). Two additions make it find problems rather
than wordings:
- a small bilingual thesaurus (entries/search-terms.yaml, data like the entries): a query word
  also searches the other words of its group at half weight, so `downgrade` reaches the version
  converter's pages and `降级` reaches English text;
- a phrase bonus: the whole query found as written in a title, category title or summary counts
  more than its words scattered over a long example; a word of the query's thesaurus group found
  there counts half as much (`内存不足` finds the page titled "out of memory").
"""
from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from kb.database import Database, normalise_id

_WORD = re.compile(r"[a-z0-9][a-z0-9_.+-]*[a-z0-9]|[a-z0-9]")
_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]+")
_FIELDS = (("title", 3.0), ("title_zh", 3.0), ("category", 2.0), ("summary", 2.0), ("summary_zh", 2.0),
           ("fixes", 1.0), ("body", 1.0))
_PHRASE_FIELDS = ("title", "title_zh", "category", "summary", "summary_zh")
K1, B = 1.2, 0.75
SYNONYM_WEIGHT = 0.5
PHRASE_BONUS = 4.0
TERMS_FILE = "search-terms.yaml"


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


def _fields(doc, db: Database) -> dict[str, str]:
    e = doc.entry
    cat = db.categories.get(e.category, {})
    body = "\n".join([doc.sections.get("Symptom", ""), *(x.text for x in e.examples), e.category])
    fixes = "\n".join(f"{f.summary}\n{f.summary_zh}" for f in e.fixes)
    return {"title": e.title, "title_zh": e.title_zh, "category": f"{cat.get('title', '')}\n{cat.get('title_zh', '')}",
            "summary": e.summary, "summary_zh": e.summary_zh, "fixes": fixes, "body": body}


@lru_cache(maxsize=4)
def _thesaurus(root: Path) -> dict[str, frozenset[str]]:
    """token -> the tokens of every word in its groups (itself excluded)."""
    out: dict[str, set[str]] = {}
    for group in _groups(root):
        words = [str(w) for w in group]
        for w in words:
            key = _key(w)
            others = {t for o in words if _key(o) != key for t in _significant(o)}
            out.setdefault(key, set()).update(others)
    return {k: frozenset(v) for k, v in out.items()}


def _key(word: str) -> str:
    return " ".join(_WORD.findall(word.lower())) or word.strip().lower()


def _significant(word: str) -> list[str]:
    """The tokens a word contributes: words, and for Chinese its bigrams (single characters are too vague)."""
    toks = tokens(word)
    cjk = [t for t in toks if _CJK.fullmatch(t)]
    return [t for t in toks if not _CJK.fullmatch(t) or len(t) > 1 or len(cjk) == 1]


def _query_weights(query: str, thesaurus: dict[str, frozenset[str]]) -> dict[str, float]:
    weights: dict[str, float] = {t: 1.0 for t in tokens(query) if t.strip()}
    pieces = _WORD.findall(query.lower()) + _CJK.findall(query.lower())
    keys = set(pieces) | {" ".join(pieces[i:i + 2]) for i in range(len(pieces) - 1)} | {_key(query)}
    for key in keys:
        for t in thesaurus.get(key, ()):
            weights.setdefault(t, SYNONYM_WEIGHT)
    return weights


_NAME_FIELDS = ("title", "title_zh", "category")


def related_terms(db: Database, doc) -> list[str]:
    """The thesaurus words that belong with an entry: every word of each group one of whose
    words its title or its category's title uses. The site indexes them as the page's (hidden)
    tags, so a search in either language finds the page. Only the names count, not the summary:
    tags weigh more than anything else in the site's index, so they must say what a page is
    about, not every word it mentions (with the summaries, "custom op" tagged 80 pages alike)."""
    fields = _fields(doc, db)
    text = "\n".join(fields[name] for name in _NAME_FIELDS).lower()
    have = set(tokens(text))
    out: list[str] = []
    for group in _groups(Path(db.root)):
        if any((w.lower() in text) if (" " in w or _CJK.search(w)) else (_key(w) in have) for w in group):
            # one-word terms only: the site's index splits a phrase into words, and its common
            # words ("failed", "of") would then match everything at a tag's high weight
            out.extend(w for w in group if w not in out and " " not in w)
    return out


def public_reports(entry) -> int:
    """How many distinct public threads the entry's examples were taken from: a measure of how
    widely users meet the problem (reproductions made here do not count)."""
    return len({x.thread for x in entry.examples if x.source.startswith("https://")})


def prominence(db: Database, explained: Counter[str]) -> dict[str, int]:
    """How canonical each entry is, from the data alone: the public threads that met it, the
    other entries whose `related` list points to it and the FAQ answers that explain it
    (`explained`: entry ID -> questions). The site boosts a page by it, so among pages that share
    the query's words the one most users meet (the named problems, the long-known pages) comes first."""
    links = Counter(r for d in db.documents.values() for r in set(d.entry.related) if r != d.entry.id)
    return {k: public_reports(d.entry) + links[k] + explained[k] for k, d in db.documents.items()}


def page_boost(prominence: int) -> float:
    """Material's per-page search boost: 2 for every entry page (the FAQ, category and finding
    pages stay at 1), growing with the fourth root of the prominence, so the most canonical page
    (prominence ~20) weighs about twice a page no thread and no entry points to."""
    return round(2.0 * (1 + prominence) ** 0.25, 2)


def chinese_words(db: Database) -> list[str]:
    """The thesaurus' Chinese words, for the site's segmenter (jieba) to keep whole."""
    return sorted({w for group in _groups(Path(db.root)) for w in group if _CJK.fullmatch(w)})


@lru_cache(maxsize=4)
def _groups(root: Path) -> tuple[tuple[str, ...], ...]:
    path = root / TERMS_FILE
    if not path.is_file():
        return ()
    import yaml

    return tuple(tuple(str(w) for w in g) for g in yaml.safe_load(path.read_text(encoding="utf-8")) or [])


def _synonym_phrases(query: str, root: Path) -> tuple[str, ...]:
    """The other words of the thesaurus groups that hold the whole query (lower case)."""
    key = _key(query)
    out: list[str] = []
    for group in _groups(root):
        if any(_key(w) == key for w in group):
            out.extend(w.lower() for w in group if _key(w) != key and len(w) > 2 and w.lower() not in out)
    return tuple(out)


def search(db: Database, query: str, limit: int = 10) -> list[Hit]:
    """Entries ranked by BM25F-style relevance to query; an entry ID in the query ranks first."""
    weights = _query_weights(query, _thesaurus(Path(db.root)))
    docs = [d for d in db.documents.values() if not d.entry.retired]
    if not weights or not docs:
        return []
    phrase = query.strip().lower()
    synonyms = _synonym_phrases(query, Path(db.root))
    per_doc = []
    for d in docs:
        fields = _fields(d, db)
        tf: Counter[str] = Counter()
        length = 0.0
        for name, weight in _FIELDS:
            toks = tokens(fields[name])
            length += weight * len(toks)
            for t in toks:
                tf[t] += weight
        heads = [fields[name].lower() for name in _PHRASE_FIELDS]
        bonus = PHRASE_BONUS if len(phrase) > 2 and any(phrase in h for h in heads) else 0.0
        if not bonus and any(w in h for w in synonyms for h in heads):
            bonus = PHRASE_BONUS * SYNONYM_WEIGHT
        per_doc.append((d, tf, length, bonus))
    avg = sum(l for _, _, l, _ in per_doc) / len(per_doc)
    df = Counter(t for _, tf, _, _ in per_doc for t in set(tf) if t in weights)
    n = len(per_doc)
    wanted = normalise_id(query.strip()) if len(query.strip()) <= 8 else None
    hits = []
    for d, tf, length, bonus in per_doc:
        s = 0.0
        for t, w in weights.items():
            f = tf.get(t, 0.0)
            if f:
                idf = math.log(1 + (n - df[t] + 0.5) / (df[t] + 0.5))
                s += w * idf * f * (K1 + 1) / (f + K1 * (1 - B + B * length / avg))
        if s > 0:
            s += bonus
        if wanted == d.entry.id:
            s += 1000.0
        if s > 0:
            e = d.entry
            hits.append(Hit(e.id, e.title, e.title_zh, e.category, round(s, 3)))
    hits.sort(key=lambda h: (-h.score, h.id))
    return hits[:limit]

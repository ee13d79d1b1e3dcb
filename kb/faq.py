"""The interview-style FAQ: load entries/faq/, list by topic, search, and pick quiz questions.

FAQ files are data like entries: YAML front matter (question, Chinese question and answer,
related entries) and an English Markdown answer whose Python blocks run in the tests.
"""
from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from kb.loader import _Loader, _snippets, parse_validated
from kb.paths import entries_dir
from kb.checks.problems import EntryError, Problem, id_normaliser
from kb.schema import FAQ_TOPICS, FaqDocument, FaqQuestion

_WORD = re.compile(r"[a-z0-9_.+-]+|[\u3400-\u9fff]+", re.I)
_CJK = re.compile(r"[\u3400-\u9fff]")


normalise_faq_id = id_normaliser("FAQ", 3)  # `FAQ001`, `faq1` and `1` all name FAQ001


@dataclass(frozen=True)
class Topic:
    key: str
    title: str
    title_zh: str


@dataclass(frozen=True)
class Faq:
    """The loaded FAQ: questions by ID (in ID order) and the topics in display order."""

    questions: dict[str, FaqDocument]
    topics: tuple[Topic, ...]
    root: Path
    problems: tuple[Problem, ...] = field(default=())

    def get(self, ident: str) -> FaqDocument | None:
        key = normalise_faq_id(ident)
        return self.questions.get(key) if key else None

    def by_topic(self, topic: str | None = None) -> list[tuple[Topic, list[FaqDocument]]]:
        """Questions grouped by topic, topics in their declared order, questions by ID."""
        out = []
        for t in self.topics:
            if topic and t.key != topic:
                continue
            docs = [d for d in self.questions.values() if d.question.topic == t.key]
            if docs:
                out.append((t, docs))
        return out

    def search(self, query: str, limit: int = 10) -> list[FaqDocument]:
        """Rank questions by query words (or Chinese characters) found, question text first."""
        words = {w.lower() for w in _WORD.findall(_fold(query))}
        if not words:
            return []
        scored = []
        for doc in self.questions.values():
            q = doc.question
            head = _fold(f"{q.question} {q.question_zh}").lower()
            rest = _fold(f"{doc.body} {q.answer_zh} {' '.join(q.related)}").lower()
            hits = sum(3 * _has(head, w) + _has(rest, w) for w in words)
            found = sum(_has(head, w) or _has(rest, w) for w in words)
            if found == len(words):  # every word must occur somewhere
                scored.append((-hits, doc.question.id, doc))
        return [d for _, _, d in sorted(scored, key=lambda s: (s[0], s[1]))][:limit]


def _has(text: str, word: str) -> bool:
    """A Chinese run matches verbatim or when all its two-character words occur (no segmenter needed)."""
    if word in text:
        return True
    if len(word) > 2 and _CJK.match(word):
        return all(word[i : i + 2] in text for i in range(len(word) - 1))
    return False


def _fold(text: str) -> str:
    return unicodedata.normalize("NFKC", text)


def _topics(path: Path, problems: list[Problem]) -> tuple[Topic, ...]:
    try:
        data = yaml.load(path.read_text(encoding="utf-8"), Loader=_Loader) or {}
    except (OSError, yaml.YAMLError) as exc:
        problems.append(Problem(str(path), 1, f"cannot read: {exc}"))
        return tuple(Topic(k, k, k) for k in FAQ_TOPICS)
    topics = []
    for key in FAQ_TOPICS:
        spec = data.get(key) if isinstance(data, dict) else None
        if not isinstance(spec, dict) or not {"title", "title_zh"} <= set(spec):
            problems.append(Problem(str(path), 1, f"topic '{key}' needs title and title_zh"))
            topics.append(Topic(key, key, key))
        else:
            topics.append(Topic(key, str(spec["title"]), str(spec["title_zh"])))
    for extra in set(data) - set(FAQ_TOPICS) if isinstance(data, dict) else ():
        problems.append(Problem(str(path), 1, f"unknown topic '{extra}'; topics are {list(FAQ_TOPICS)}"))
    return tuple(topics)


def parse_question(path: Path, display: str) -> tuple[FaqDocument | None, list[Problem]]:
    """Parse one FAQ file; bad content becomes problems with lines, never an exception."""
    parsed, problems = parse_validated(path, FaqQuestion, display)
    if parsed is None:
        return None, problems
    question, body, body_line = parsed
    problems = []
    if not body.strip():
        problems.append(Problem(display, body_line, "the English answer (the body) is empty"))
    doc = FaqDocument(question=question, path=display, body=body, snippets=tuple(_snippets(body, body_line)))
    return doc, problems


def load_faq(root: Path | None = None, strict: bool = True) -> Faq:
    """Load entries/faq/ (topics.yaml and FAQnnn.md). With strict, any problem raises EntryError."""
    base = (Path(root) if root is not None else entries_dir()) / "faq"
    problems: list[Problem] = []
    if not base.is_dir():  # a database without a FAQ (an out-of-tree entries folder) is valid
        return Faq(questions={}, topics=(), root=base, problems=())
    topics = _topics(base / "topics.yaml", problems)
    questions: dict[str, FaqDocument] = {}
    for path in sorted(base.glob("FAQ*.md")):
        doc, found = parse_question(path, _display(path))
        problems.extend(found)
        if doc is None:
            continue
        qid = doc.question.id
        if path.stem != qid:
            problems.append(Problem(doc.path, 2, f"file name must be the ID: rename to {qid}.md"))
        if qid in questions:
            problems.append(Problem(doc.path, 2, f"duplicate ID {qid} (also {questions[qid].path})"))
            continue
        questions[qid] = doc
    if strict and problems:
        raise EntryError(problems)
    return Faq(questions=questions, topics=topics, root=base, problems=tuple(problems))


def _display(path: Path) -> str:
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def as_json(doc: FaqDocument) -> dict:
    """The JSON form `kb faq list --json` prints: machine data, the answer included."""
    q = doc.question
    return {**q.model_dump(mode="json"), "answer": doc.body.strip()}

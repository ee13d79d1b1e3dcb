"""Read entry files: YAML front matter + Markdown body, every problem with its line number."""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any, TypeVar

import yaml
from pydantic import BaseModel, ValidationError

from kb.checks.problems import Problem
from kb.schema import SECTIONS, Document, Entry, Snippet

_FENCE = re.compile(r"^```([^\n`]*)\n(.*?)^```[ \t]*$", re.M | re.S)
_HEADING = re.compile(r"^## +(.+?) *$", re.M)
_SnippetRoles = {"reproduce", "fixed"}

try:  # the C loader is several times faster; fall back where libyaml is missing
    _Loader: Any = yaml.CSafeLoader
except AttributeError:  # pragma: no cover - depends on the PyYAML build
    _Loader = yaml.SafeLoader


def split_front_matter(text: str) -> tuple[str, str, int] | None:
    """Return (front matter, body, line where the body starts) or None."""
    if not text.startswith("---\n"):
        return None
    end = text.find("\n---\n", 3)
    if end < 0:
        return None
    front = text[4 : end + 1]
    body = text[end + 5 :]
    body_line = front.count("\n") + 3
    return front, body, body_line


def _node_line(node: yaml.Node | None, loc: tuple[Any, ...]) -> int | None:
    """Follow a pydantic error location through the composed YAML to a 0-based line."""
    line = node.start_mark.line if node is not None else None
    for key in loc:
        if isinstance(node, yaml.MappingNode):
            match = next((v for k, v in node.value if k.value == key), None)
            if match is None:
                break
            node = match
        elif isinstance(node, yaml.SequenceNode) and isinstance(key, int) and key < len(node.value):
            node = node.value[key]
        else:
            break
        line = node.start_mark.line
    return line


def _sections(body: str) -> dict[str, str]:
    """Body sections by `## ` heading; a `## ` line inside a fenced block is code, not a heading."""
    fences = [(m.start(), m.end()) for m in _FENCE.finditer(body)]
    heads = [h for h in _HEADING.finditer(body) if not any(a <= h.start() < b for a, b in fences)]
    out: dict[str, str] = {}
    for i, head in enumerate(heads):
        end = heads[i + 1].start() if i + 1 < len(heads) else len(body)
        out[head.group(1)] = body[head.end() : end].strip("\n")
    return out


def _snippets(body: str, body_line: int) -> list[Snippet]:
    found = []
    for m in _FENCE.finditer(body):
        words = m.group(1).split()
        if not words or words[0] != "python":
            continue
        role = next((w for w in words[1:] if w in _SnippetRoles), "example")
        line = body_line + body.count("\n", 0, m.start())
        found.append(Snippet(language="python", role=role, code=m.group(2), line=line))
    return found


M = TypeVar("M", bound=BaseModel)


def parse_validated(path: Path, model: type[M], display: str, text: str | None = None) -> tuple[tuple[M, str, int] | None, list[Problem]]:
    """Read front matter + body and validate the front matter as `model`.

    Returns ((validated front matter, body, line where the body starts), problems). Never raises
    for bad content: every problem comes back with its line (entries and FAQ files share this).
    """
    if text is None:
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            return None, [Problem(display, 1, f"cannot read: {exc}")]
    parts = split_front_matter(text)
    if parts is None:
        return None, [Problem(display, 1, "missing front matter: the file must start with '---' and close it with '---'")]
    front, body, body_line = parts
    try:
        root = yaml.compose(front, Loader=_Loader)
        data = yaml.load(front, Loader=_Loader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = (mark.line + 2) if mark is not None else 2
        return None, [Problem(display, line, f"front matter is not valid YAML: {getattr(exc, 'problem', exc)}")]
    if not isinstance(data, dict):
        return None, [Problem(display, 2, "front matter must be a mapping")]
    try:
        validated = model.model_validate(data)
    except ValidationError as exc:
        return None, [
            Problem(display, (_node_line(root, tuple(err["loc"])) or 0) + 2,
                    f"{'.'.join(str(p) for p in err['loc']) or '(front matter)'}: {err['msg']}")
            for err in exc.errors()
        ]
    return (validated, body, body_line), []


def parse_entry(path: Path, text: str | None = None, display: str | None = None) -> tuple[Document | None, list[Problem]]:
    """Parse one entry file. Never raises for bad content: returns the problems instead."""
    shown = display or str(path)
    parsed, problems = parse_validated(path, Entry, shown, text)
    if parsed is None:
        return None, problems
    entry, body, body_line = parsed
    doc = Document(entry=entry, path=shown, body=body, sections=_sections(body), snippets=tuple(_snippets(body, body_line)))
    return doc, problems


def section_problems(doc: Document, body_line: int = 1) -> list[Problem]:
    """The body must hold Symptom, Cause, Fix, Verify, in that order, none empty."""
    problems = []
    names = [n for n in doc.sections if n in SECTIONS]
    for name in SECTIONS:
        if name not in doc.sections:
            problems.append(Problem(doc.path, body_line, f"missing section '## {name}'"))
        elif not doc.sections[name].strip():
            problems.append(Problem(doc.path, body_line, f"section '## {name}' is empty"))
    if [n for n in SECTIONS if n in names] != names:
        problems.append(Problem(doc.path, body_line, f"sections out of order: {names}; expected {list(SECTIONS)}"))
    return problems

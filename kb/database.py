"""The loaded knowledge base: entries by ID, categories and the probe finding registry."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import yaml

from kb.loader import _Loader, parse_entry, section_problems
from kb.paths import entries_dir
from kb.checks.problems import EntryError, Problem, id_normaliser
from kb.schema import Document, Entry

normalise_id = id_normaliser("OT", 4)  # `OT0001`, `ot1`, `0001` and `1` all name OT0001


@dataclass(frozen=True)
class Finding:
    """A probe finding code as documented in entries/findings.yaml."""

    code: str
    title: str
    title_zh: str
    severity: str
    description: str


@dataclass(frozen=True)
class Database:
    documents: dict[str, Document]
    categories: dict[str, dict[str, str]]
    findings: dict[str, Finding]
    root: Path
    problems: tuple[Problem, ...] = field(default=())

    @property
    def entries(self) -> list[Entry]:
        return [d.entry for d in self.documents.values()]

    def get(self, ident: str) -> Document | None:
        key = normalise_id(ident)
        return self.documents.get(key) if key else None


def _read_yaml_map(path: Path, problems: list[Problem]) -> dict:
    try:
        data = yaml.load(path.read_text(encoding="utf-8"), Loader=_Loader)
    except (OSError, yaml.YAMLError) as exc:
        problems.append(Problem(str(path), 1, f"cannot read: {exc}"))
        return {}
    if not isinstance(data, dict):
        problems.append(Problem(str(path), 1, "must be a mapping"))
        return {}
    return data


def _findings(path: Path, problems: list[Problem]) -> dict[str, Finding]:
    out = {}
    for code, spec in _read_yaml_map(path, problems).items():
        try:
            out[code] = Finding(code=code, **spec)
        except TypeError as exc:
            problems.append(Problem(str(path), 1, f"finding {code}: {exc}"))
    return out


def load(root: Path | None = None, strict: bool = True) -> Database:
    """Load every entry under root. With strict, any problem raises EntryError listing all."""
    root = Path(root) if root is not None else entries_dir()
    problems: list[Problem] = []
    if not root.is_dir():
        raise EntryError([Problem(str(root), 0, "entries folder not found")])
    categories = _read_yaml_map(root / "categories.yaml", problems)
    findings = _findings(root / "findings.yaml", problems)
    documents: dict[str, Document] = {}
    for path in sorted(root.glob("OT*.md")):
        doc, found = parse_entry(path, display=_display(path, root))
        problems.extend(found)
        if doc is None:
            continue
        problems.extend(section_problems(doc))
        entry = doc.entry
        if path.stem != entry.id:
            problems.append(Problem(doc.path, 2, f"file name must be the ID: rename to {entry.id}.md"))
        if entry.id in documents:
            problems.append(Problem(doc.path, 2, f"duplicate ID {entry.id} (also {documents[entry.id].path}); IDs are never reused"))
            continue
        documents[entry.id] = doc
    if strict and problems:
        raise EntryError(problems)
    return Database(documents=documents, categories=categories, findings=findings, root=root, problems=tuple(problems))


def _display(path: Path, root: Path) -> str:
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)

"""`kb verify`: measure on which releases each entry's reproduction reproduces and its fix works.

The result is data beside the entries (kb/measure/verify_matrix.py), never a hand-written stamp. A new
release costs `kb verify --add 1.33.0`, which measures that release only and returns the diff
against the newest release measured before it, for a maintainer to review.
"""
from __future__ import annotations

import datetime as _dt
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from packaging.version import InvalidVersion, Version

from kb.database import Database
from kb.schema import Document
from kb.measure.verify_envs import Env, EnvError, ensure_env, installed_env
from kb.measure.verify_matrix import (
    ANY, Matrix, code_hash, codes_of, diff, load_all, load_releases, merge, release_key, save_matrix, save_releases,
)
from kb.measure.verify_run import MEMORY_GB, TIMEOUT, Job, depends_on, run_all

Log = Callable[[str], None]


@dataclass
class Outcome:
    """What a run did: the diff lines for review, releases that could not be set up, counts."""

    changes: list[str] = field(default_factory=list)
    env_errors: list[str] = field(default_factory=list)
    runs: int = 0
    entries: int = 0
    releases: list[str] = field(default_factory=list)


def check_release(text: str) -> str:
    """A release name as pip understands it, or ValueError (a bad --add is a user error)."""
    try:
        Version(text)
    except InvalidVersion:
        raise ValueError(f"'{text}' is not a release number such as 1.33.0") from None
    return text


def plan(docs: list[Document], envs: list[Env], axis: str, installed: Env, old: dict[str, Matrix],
         full: bool) -> list[Job]:
    """Jobs grouped by entry. A role whose snippets never import the axis package runs once (ANY),
    and not at all on a partial run (--add) when it is already recorded for the same code."""
    jobs: list[Job] = []
    for doc in docs:
        for role in ("reproduce", "fixed"):
            codes = codes_of(doc, role)
            if not codes:
                continue
            if depends_on(codes, axis):
                jobs.extend(Job(doc, role, env, env.release) for env in envs)
                continue
            known = old.get(doc.entry.id)
            if not full and known and ANY in known.outcomes(role, axis) and known.code.get(role) == code_hash(codes):
                continue
            jobs.append(Job(doc, role, installed, ANY))
    return jobs


def verify(db: Database, axis: str, releases: list[str], only: list[str], jobs: int, use_installed: bool = False,
           envs_root: Path | None = None, timeout: float = TIMEOUT, memory_gb: float = MEMORY_GB,
           log: Log | None = None) -> Outcome:
    """Measure `releases` of `axis` (or the installed runtime) for the chosen entries and save the records."""
    say = log or (lambda _msg: None)
    out = Outcome()
    root = db.root
    today = _dt.date.today().isoformat()
    installed = installed_env()
    envs: list[Env] = []
    if use_installed:
        envs = [installed]
    else:
        for rel in sorted(set(releases), key=release_key):
            try:
                envs.append(ensure_env(axis, rel, envs_root, log=say))
            except (EnvError, OSError) as exc:
                out.env_errors.append(f"{axis} {rel}: {exc}")
    out.releases = [e.release for e in envs]
    docs = [d for d in db.documents.values() if (not only or d.entry.id in only) and any(
        s.role in ("reproduce", "fixed") for s in d.snippets)]
    old = load_all(root)
    recorded = load_releases(root)
    full = not use_installed and set(out.releases) >= set(recorded.get(axis, {})) and bool(recorded.get(axis))
    todo = plan(docs, envs, axis, installed, old, full or not old)
    out.runs, out.entries = len(todo), len({j.doc.entry.id for j in todo})
    left = {}
    for j in todo:
        left[j.doc.entry.id] = left.get(j.doc.entry.id, 0) + 1
    got: dict[str, dict[str, dict[str, str]]] = {}
    new: dict[str, Matrix] = {}
    counter = {"done": 0}

    notes: dict[str, dict[str, str]] = {}

    def done(job: Job, result: str, why: str) -> None:
        ident = job.doc.entry.id
        got.setdefault(ident, {}).setdefault(job.role, {})[job.release] = result
        if why:
            notes.setdefault(ident, {})[f"{axis} {job.role} {job.release}"] = why
        counter["done"] += 1
        left[ident] -= 1
        if left[ident]:
            return
        roles = got[ident]
        using = {k: v for k, v in installed.versions.items() if k in ("onnx", "torch", "onnxruntime") and k != axis}
        fresh = Matrix(id=ident, measured=today, using=using,
                       code={r: code_hash(codes_of(job.doc, r)) for r in roles}, results={axis: roles},
                       notes=notes.get(ident, {}))
        new[ident] = merge(old.get(ident), fresh)
        save_matrix(root, new[ident])
        say(f"kb verify: [{counter['done']}/{len(todo)}] {ident} measured")

    if envs and todo:
        run_all(todo, jobs, timeout, memory_gb, done)
    for env in envs:
        info = {k: v for k, v in env.versions.items() if k != axis}
        recorded.setdefault(axis, {})[env.release] = {**info, "measured": today}
    if envs:
        save_releases(root, recorded)
    out.changes = diff({k: v for k, v in old.items() if k in new}, new, axis)
    return out

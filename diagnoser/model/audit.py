"""Audit a folder of models: the probes on every .onnx in a tree, in parallel worker processes.

Each model gives one result record (a plain dict, written as one JSON line): its status, the
diagnoses and the findings. A model that cannot be read is a record (status "unreadable"), and
so is a worker that crashed or ran out of time on it ("crashed", "timeout"): one bad file never
stops the audit. Workers are long-lived (`python -m diagnoser.model._audit_worker`), so the knowledge
base and onnxruntime are imported once per worker, not once per model; a worker that dies is
replaced. Records are data; diagnoser.renderers.audit prints them.
"""
from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

SEVERITY_RANK = {"info": 0, "note": 0, "warning": 1, "error": 2}
RECORD_VERSION = "1"


@dataclass(frozen=True)
class Options:
    probes: str = "all"
    providers: tuple[str, ...] = ()
    session_timeout: float = 120.0
    timeout: float | None = None  # per model, in the parent; default session_timeout + 90 s

    @property
    def model_timeout(self) -> float:
        return self.timeout if self.timeout else self.session_timeout + 90.0


def find_models(root: str | os.PathLike[str]) -> list[Path]:
    """Every .onnx file under root (root itself if it is a file), hidden folders skipped, sorted."""
    base = Path(root)
    if base.is_file():
        return [base]
    out = []
    for dirpath, dirnames, filenames in os.walk(base):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        out += [Path(dirpath) / f for f in sorted(filenames) if f.lower().endswith(".onnx")]
    return out


def key(path: str | os.PathLike[str]) -> str:
    """The identity of a model across runs (resume): its absolute, normalised path."""
    return os.path.normpath(os.path.abspath(os.fspath(path)))


@lru_cache(maxsize=1)
def _finding_pages() -> dict[str, tuple[str, ...]]:
    from diagnoser.matching.index import default_index

    pages: dict[str, list[str]] = {}
    for ce in default_index().entries:
        for code in ce.entry.findings.confirm:
            pages.setdefault(code, []).append(ce.entry.id)
    return {k: tuple(v) for k, v in pages.items()}


def record(path: str | None, report: Any, seconds: float = 0.0) -> dict[str, Any]:
    """The audit record of one report (also what --format sarif/github render for one model)."""
    from diagnoser.links import doc_url

    pages = _finding_pages()

    def diag(d: Any) -> dict[str, Any]:
        return {"id": d.id, "title": d.title, "confidence": round(d.confidence, 3), "summary": d.summary,
                "fix": d.fix, "doc": d.doc, "explain": d.explain}

    findings = []
    for f in report.findings:
        ids = pages.get(f.code, ())
        findings.append({"code": f.code, "severity": f.severity, "message": f.message, "node": f.node,
                         "entries": list(ids), "doc": doc_url(ids[0]) if ids else None})
    # file.* findings come from a file the loader refused: the probes could not look inside it
    status = "unreadable" if any(f["code"].startswith("file.") for f in findings) else "ok"
    return {"record": RECORD_VERSION, "path": path, "status": status, "seconds": round(seconds, 3),
            "diagnoses": [diag(d) for d in report.diagnoses], "candidates": [diag(c) for c in report.candidates],
            "findings": findings, "error": None}


def problem(path: str, status: str, message: str, code: str, seconds: float = 0.0) -> dict[str, Any]:
    """The record of a model the probes could not look at (unreadable file, crashed worker...)."""
    from diagnoser.links import doc_url

    ids = _finding_pages().get(code, ()) if code.startswith("file.") else ()
    finding = {"code": code, "severity": "error", "message": message, "node": None, "entries": list(ids),
               "doc": doc_url(ids[0]) if ids else None}
    return {"record": RECORD_VERSION, "path": path, "status": status, "seconds": round(seconds, 3),
            "diagnoses": [], "candidates": [], "findings": [finding], "error": message}


def audit_one(path: str | os.PathLike[str], options: Options = Options()) -> dict[str, Any]:
    """Probe one model in this process: a record, whatever the file holds."""
    from diagnoser.api import diagnose
    from diagnoser.errors import UserInputError

    start = time.perf_counter()
    try:
        report = diagnose(model=path, providers=list(options.providers), probes=options.probes,
                          session_timeout=options.session_timeout)
    except UserInputError as exc:
        return problem(str(path), "unreadable", str(exc), exc.code or "audit.unreadable", time.perf_counter() - start)
    except Exception as exc:  # a bug of ours on this file: a record, and the audit goes on
        return problem(str(path), "internal-error", f"{type(exc).__name__}: {exc}", "audit.internal-error", time.perf_counter() - start)
    return record(str(path), report, time.perf_counter() - start)


def worst(rec: dict[str, Any]) -> str | None:
    """The highest severity among a record's findings (None when it has none)."""
    sev = [f["severity"] for f in rec.get("findings", [])]
    return max(sev, key=lambda s: SEVERITY_RANK.get(s, 0)) if sev else None


def fails(records: Iterable[dict[str, Any]], level: str) -> bool:
    """--fail-on: does any record hold a finding of `level` or worse?"""
    need = SEVERITY_RANK[level]
    return any(SEVERITY_RANK.get(f["severity"], 0) >= need for r in records for f in r.get("findings", []))


def read_done(path: str | os.PathLike[str]) -> dict[str, dict[str, Any]]:
    """Records already in a JSONL file (for --resume), by model key; bad lines are skipped (a
    run killed mid-write leaves half a line)."""
    done: dict[str, dict[str, Any]] = {}
    p = Path(path)
    if not p.exists():
        return done
    with p.open(encoding="utf-8", errors="replace") as fh:
        for line in fh:
            try:
                rec = json.loads(line)
            except ValueError:
                continue
            if isinstance(rec, dict) and isinstance(rec.get("path"), str):
                done[key(rec["path"])] = rec
    return done


@dataclass
class _Slot:
    """One worker process and the file its stderr goes to (read back when it dies)."""

    options: Options
    proc: subprocess.Popen | None = None
    err: Any = field(default=None)

    def start(self) -> subprocess.Popen:
        if self.err is None:
            self.err = tempfile.TemporaryFile()
        self.err.seek(0)
        self.err.truncate()
        cfg = json.dumps({"probes": self.options.probes, "providers": list(self.options.providers),
                          "session_timeout": self.options.session_timeout})
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in [_root(), os.environ.get("PYTHONPATH", "")] if p)}
        self.proc = subprocess.Popen([sys.executable, "-m", "diagnoser.model._audit_worker", cfg], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=self.err, env=env, text=True, bufsize=1)
        return self.proc

    def stderr_tail(self) -> str:
        try:
            self.err.seek(0)
            data = self.err.read()[-2000:]
        except (OSError, ValueError):
            return ""
        return data.decode("utf-8", "replace").strip()

    def ask(self, path: str) -> dict[str, Any]:
        proc = self.proc if self.proc is not None and self.proc.poll() is None else self.start()
        start = time.perf_counter()
        timed_out = threading.Event()

        def kill() -> None:
            timed_out.set()
            proc.kill()

        timer = threading.Timer(self.options.model_timeout, kill)
        timer.start()
        try:
            proc.stdin.write(json.dumps({"path": path}) + "\n")
            proc.stdin.flush()
            line = proc.stdout.readline()
        except (BrokenPipeError, OSError):
            line = ""
        finally:
            timer.cancel()
        if line:
            try:
                return json.loads(line)
            except ValueError:
                line = ""
        code = proc.wait()
        self.proc = None
        took = time.perf_counter() - start
        if timed_out.is_set():
            return problem(path, "timeout", f"no result in {self.options.model_timeout:.0f} s; the worker was stopped", "audit.timeout", took)
        tail = self.stderr_tail().splitlines()
        why = f"signal {-code}" if code < 0 else f"exit {code}"
        return problem(path, "crashed", f"the worker died on this model ({why}): {tail[-1][:300] if tail else 'no message'}", "audit.worker-crashed", took)

    def close(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            try:
                self.proc.stdin.close()
                self.proc.wait(timeout=10)
            except (OSError, subprocess.TimeoutExpired):
                self.proc.kill()
        if self.err is not None:
            self.err.close()


def _root() -> str:
    """The folder diagnoser is imported from, so workers import the same code."""
    return str(Path(__file__).resolve().parents[2])


def run(paths: Iterable[str | os.PathLike[str]], options: Options = Options(), jobs: int | None = None,
        on_result: Callable[[dict[str, Any]], None] | None = None) -> list[dict[str, Any]]:
    """Audit the models with `jobs` worker processes (default: CPU count); results come in the
    order they finish (on_result is called for each, in this thread)."""
    todo = [str(p) for p in paths]
    n = max(1, min(jobs or os.cpu_count() or 1, len(todo) or 1))
    work: queue.Queue[str | None] = queue.Queue()
    done: queue.Queue[dict[str, Any]] = queue.Queue()
    for p in todo:
        work.put(p)
    for _ in range(n):
        work.put(None)
    slots = [_Slot(options) for _ in range(n)]

    def serve(slot: _Slot) -> None:
        try:
            while (path := work.get()) is not None:
                try:
                    done.put(slot.ask(path))
                except Exception as exc:  # never lose a model: a record says what went wrong
                    done.put(problem(path, "crashed", f"{type(exc).__name__}: {exc}", "audit.worker-crashed"))
        finally:
            slot.close()

    threads = [threading.Thread(target=serve, args=(s,), daemon=True) for s in slots]
    for t in threads:
        t.start()
    results = []
    try:
        for _ in todo:
            rec = done.get()
            results.append(rec)
            if on_result is not None:
                on_result(rec)
    finally:
        for s in slots:
            if s.proc is not None and s.proc.poll() is None and len(results) < len(todo):
                s.proc.kill()
    for t in threads:
        t.join(timeout=15)
    return results

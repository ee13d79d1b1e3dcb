"""Run entry snippets in measured environments and classify what happened, for `kb verify`.

A reproduction "reproduces" when it exits non-zero and its output matches one of the entry's own
signatures (the documented message), a fix "works" when it exits 0, and exit 77 means the snippet
found its hardware or package absent. Each run is a child process in a fresh temporary folder,
niced, with a timeout and an address-space limit, at most `jobs` at a time.
"""
from __future__ import annotations

import ast
import os
import re
import resource
import subprocess
import tempfile
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path

from kb.schema import Document, Signature
from kb.measure.verify_envs import Env, snippet_env
from kb.measure.verify_matrix import codes_of

SKIP_CODE = 77
TIMEOUT = 300
MEMORY_GB = 8
# Modules through which a snippet may load the axis package without importing it by name.
_USERS = {
    "onnxruntime": {"onnxruntime", "onnxsim", "onnxslim", "onnxconverter_common", "subprocess", "importlib", "diagnoser"},
    "onnx": {"onnx", "onnxruntime", "torch", "onnxscript", "onnx_ir", "onnxsim", "onnxslim", "onnxconverter_common",
             "skl2onnx", "subprocess", "importlib", "diagnoser"},
    "torch": {"torch", "onnxscript", "subprocess", "importlib", "diagnoser"},
}
_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]")
_SPACES = re.compile(r"[ \t]+")
_MISSING = re.compile(r"ModuleNotFoundError: No module named '([\w.]+)'")


def imports(code: str) -> set[str]:
    """Top-level modules a snippet imports."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.Import):
            names.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


def depends_on(codes: Iterable[str], axis: str) -> bool:
    """Whether the snippets can see which release of `axis` is installed (conservative)."""
    return any(imports(c) & _USERS[axis] for c in codes)


def matches_signature(output: str, signatures: Iterable[Signature]) -> bool:
    """The documented message: one of the entry's signatures matches the (lightly normalised) output."""
    text = _SPACES.sub(" ", _ANSI.sub("", output[-200_000:]))
    return any(re.search(s.pattern, text, re.I if s.ignore_case else 0) for s in signatures)


@dataclass(frozen=True)
class Run:
    returncode: int | None  # None: timed out
    output: str


def run_code(code: str, python: Path, timeout: float = TIMEOUT, memory_gb: float = MEMORY_GB) -> Run:
    """One snippet, one child process, one fresh folder (the snippet writes model.onnx there)."""
    limit = int(memory_gb * 1024**3)

    def _limits() -> None:  # runs in the child before exec
        os.nice(10)
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    with tempfile.TemporaryDirectory(prefix="kb-verify-") as tmp:
        script = Path(tmp) / "snippet.py"
        script.write_text(code, encoding="utf-8")
        try:
            proc = subprocess.run([str(python), str(script)], cwd=tmp, capture_output=True, text=True,
                                  errors="replace", timeout=timeout, env=snippet_env(), preexec_fn=_limits)
        except subprocess.TimeoutExpired as exc:
            out = (exc.stdout or b"") + (exc.stderr or b"")
            return Run(None, out.decode("utf-8", "replace") if isinstance(out, bytes) else out)
    return Run(proc.returncode, proc.stdout + proc.stderr)


def _missing(run: Run, codes: list[str]) -> bool:
    """The snippet stopped because a package it imports is absent there: a skip, not a result."""
    found = _MISSING.findall(run.output)  # a missing submodule of an installed package is an API change
    return bool(found) and found[-1] in set().union(*(imports(c) for c in codes))


def classify(role: str, runs: list[Run], codes: list[str], signatures: Iterable[Signature]) -> str:
    """Outcome words of verify_matrix.REPRODUCE / FIXED; several fixed snippets must all work."""
    if any(r.returncode is None for r in runs):
        return "timeout"
    if any(r.returncode == SKIP_CODE or (r.returncode != 0 and _missing(r, codes)) for r in runs):
        return "skipped"
    if role == "fixed":
        return "works" if all(r.returncode == 0 for r in runs) else "fails"
    run = runs[0]
    if run.returncode == 0:
        return "no-error"
    return "reproduced" if matches_signature(run.output, signatures) else "other-error"


@dataclass(frozen=True, eq=False)  # identity hash: a Document holds dicts
class Job:
    """One role of one entry on one environment (or the installed interpreter for ANY)."""

    doc: Document
    role: str
    env: Env
    release: str  # the key recorded: env.release, or verify_matrix.ANY


def reason(output: str) -> str:
    """The last meaningful output line: why a run failed, for the reviewer of a diff."""
    lines = [ln.strip() for ln in _ANSI.sub("", output).splitlines() if ln.strip()]
    return lines[-1][:200] if lines else ""


def run_job(job: Job, timeout: float, memory_gb: float) -> tuple[str, str]:
    """(outcome, reason); the reason is kept only where the outcome is not the expected one."""
    codes = codes_of(job.doc, job.role)
    runs = []
    for code in codes:
        run = run_code(code, job.env.python, timeout, memory_gb)
        runs.append(run)
        if run.returncode != 0:  # the next fixed snippet cannot change a failure
            break
    outcome = classify(job.role, runs, codes, job.doc.entry.signatures)
    expected = outcome in ("reproduced", "works", "no-error")
    return outcome, "" if expected else reason(runs[-1].output)


def run_all(jobs: list[Job], workers: int, timeout: float = TIMEOUT, memory_gb: float = MEMORY_GB,
            done: Callable[[Job, str, str], None] | None = None) -> dict[Job, str]:
    """Every job, `workers` at a time; `done(job, outcome, reason)` is called as each finishes."""
    results: dict[Job, str] = {}
    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        futures = {pool.submit(run_job, j, timeout, memory_gb): j for j in jobs}
        for fut in as_completed(futures):
            job = futures[fut]
            try:
                results[job], why = fut.result()
            except (OSError, SyntaxError, subprocess.SubprocessError) as exc:
                results[job], why = "skipped", str(exc)[:200]
            if done:
                done(job, results[job], why)
    return results

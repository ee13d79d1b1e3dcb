"""Run the Python snippets of entries and FAQ answers in a subprocess, like rustc's doc tests."""
from __future__ import annotations

import ast
import importlib.util
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

SKIP_CODE = 77  # a snippet exits 77 when its hardware or package is absent (autotools' convention)
TIMEOUT = 180


@dataclass(frozen=True)
class Outcome:
    returncode: int
    output: str
    cwd: Path


def missing_modules(code: str) -> list[str]:
    """Top-level modules the snippet imports that are not installed here."""
    tree = ast.parse(code)
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return sorted(n for n in names if importlib.util.find_spec(n) is None)


def run_snippet(code: str, cwd: Path) -> Outcome:
    script = cwd / "snippet.py"
    script.write_text(code, encoding="utf-8")
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    proc = subprocess.run([sys.executable, str(script)], cwd=cwd, capture_output=True, text=True, timeout=TIMEOUT, env=env)
    return Outcome(proc.returncode, proc.stdout + proc.stderr, cwd)


def run_or_skip(code: str, cwd: Path) -> Outcome:
    """Run a snippet; skip the calling test when a module it imports is missing or it exits 77."""
    import pytest

    missing = missing_modules(code)
    if missing:
        pytest.skip(f"needs {', '.join(missing)}")
    outcome = run_snippet(code, cwd)
    if outcome.returncode == SKIP_CODE:
        pytest.skip("snippet says its hardware or package is absent (exit 77)")
    return outcome

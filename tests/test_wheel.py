"""A plain `pip install` of the built wheel into a fresh virtual environment gives a working tool,
with the entries inside the wheel (not read from this checkout)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
MEMCPY = "Execution type OpenVINOExecutionProvider doesn't support memcpy"


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    subprocess.run([sys.executable, "-m", "build", "--wheel", "--outdir", str(out), str(ROOT)], check=True, capture_output=True, timeout=600)
    (whl,) = out.glob("*.whl")
    return whl


def test_wheel_holds_entries_and_code(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    assert "kb/_entries/OT0001.md" in names and "kb/_entries/categories.yaml" in names
    assert "diagnoser/cli.py" in names and "kb/cli.py" in names
    assert not any(n.startswith(("tests/", "entries/")) for n in names)


@pytest.mark.slow
def test_fresh_venv_install_runs(wheel, tmp_path):
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=True)
    bindir = env_dir / ("Scripts" if os.name == "nt" else "bin")
    pip = subprocess.run([str(bindir / "python"), "-m", "pip", "install", "-q", str(wheel)], capture_output=True, text=True, timeout=900)
    assert pip.returncode == 0, pip.stderr[-3000:]
    clean_env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "ONNX_KB_ENTRIES", "VIRTUAL_ENV")}
    proc = subprocess.run([str(bindir / "diagnose"), MEMCPY, "--json"], capture_output=True, text=True, cwd=tmp_path, env=clean_env, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["diagnoses"][0]["id"] == "OT0005"
    where = subprocess.run([str(bindir / "python"), "-c", "import kb.paths; print(kb.paths.entries_dir())"], capture_output=True, text=True, cwd=tmp_path, env=clean_env)
    assert str(env_dir) in where.stdout, where.stdout
    shown = subprocess.run([str(bindir / "kb"), "show", "ot1"], capture_output=True, text=True, cwd=tmp_path, env=clean_env)
    assert shown.returncode == 0 and shown.stdout.startswith("OT0001: ")

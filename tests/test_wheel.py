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

pytestmark = pytest.mark.xdist_group("wheel")  # one worker builds the module's fixture once

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
    assert "diagnoser/frontends/cli.py" in names and "kb/cli.py" in names
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
    # no site built and no public URL configured: the report names `kb show`, never a made-up link
    assert json.loads(proc.stdout)["diagnoses"][0]["doc"] is None


def _ours(site_packages: Path) -> set[tuple[str, int]]:
    """Every file of our two packages (and anything docs-like beside them), with its mtime."""
    found = {(str(p.relative_to(site_packages)), p.stat().st_mtime_ns) for top in ("kb", "diagnoser")
             for p in (site_packages / top).rglob("*") if p.is_file() and "__pycache__" not in p.parts}
    return found | {(p.name, 0) for p in site_packages.iterdir() if p.name in ("docs", "site", "mkdocs.yml", "mkdocs.zh.yml")}


@pytest.mark.slow
def test_docs_from_a_wheel_never_write_into_the_package(wheel, tmp_path):
    """`kb docs build` / `serve` from an installed wheel work in a user cache folder; without the
    docs extra they say in one line what to install; site-packages is left as it was."""
    import re
    import time
    import urllib.request

    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=True)
    bindir = env_dir / "bin"
    py = str(bindir / "python")
    pip = subprocess.run([py, "-m", "pip", "install", "-q", str(wheel)], capture_output=True, text=True, timeout=900)
    assert pip.returncode == 0, pip.stderr[-3000:]
    cache = tmp_path / "cache"
    env = {**{k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "ONNX_KB_ENTRIES", "VIRTUAL_ENV", "ONNX_KB_DOCS_URL")},
           "XDG_CACHE_HOME": str(cache)}
    site_packages = Path(subprocess.run([py, "-c", "import kb, pathlib; print(pathlib.Path(kb.__file__).parent.parent)"],
                                        capture_output=True, text=True, env=env).stdout.strip())
    before = _ours(site_packages)

    missing = subprocess.run([str(bindir / "kb"), "docs", "build"], capture_output=True, text=True, cwd=tmp_path, env=env, timeout=300)
    assert missing.returncode == 1
    last = missing.stderr.strip().splitlines()[-1]
    assert "onnx-troubleshooter[docs]" in last and "Traceback" not in missing.stderr
    assert _ours(site_packages) == before

    pip = subprocess.run([py, "-m", "pip", "install", "-q", f"{wheel}[docs]"], capture_output=True, text=True, timeout=900)
    assert pip.returncode == 0, pip.stderr[-3000:]
    before = _ours(site_packages)
    built = subprocess.run([str(bindir / "kb"), "docs", "build"], capture_output=True, text=True, cwd=tmp_path, env=env, timeout=900)
    assert built.returncode == 0, built.stderr[-3000:]
    project = cache / "onnx-troubleshooter" / "docs"
    assert (project / "site" / "entries" / "OT0005" / "index.html").is_file()
    assert (project / "site" / "zh" / "entries" / "OT0005" / "index.html").is_file()
    assert _ours(site_packages) == before  # nothing written into or beside the installed package

    proc = subprocess.run([str(bindir / "diagnose"), MEMCPY, "--json"], capture_output=True, text=True, cwd=tmp_path, env=env, timeout=120)
    doc = json.loads(proc.stdout)["diagnoses"][0]["doc"]
    assert doc == (project / "site" / "entries" / "OT0005" / "index.html").as_uri()

    server = subprocess.Popen([str(bindir / "kb"), "docs", "serve", "--port", "0"], stderr=subprocess.PIPE, text=True, cwd=tmp_path, env=env)
    try:
        line = server.stderr.readline()
        port = int(re.search(r":(\d+)/", line).group(1))
        deadline = time.time() + 30
        while True:
            try:
                page = urllib.request.urlopen(f"http://127.0.0.1:{port}/zh/entries/OT0005/", timeout=5).read().decode()
                break
            except OSError:
                if time.time() > deadline:
                    raise
                time.sleep(0.3)
        assert "OT0005" in page
    finally:
        server.terminate()
        server.wait(timeout=10)

"""The `diagnose` command as users run it: exit codes, input forms, and bad input without tracebacks."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from diagnoser.report import SCHEMA_VERSION
from tests.models import BF16, add_model, ort_error, save

MEMCPY = "Execution type OpenVINOExecutionProvider doesn't support memcpy"


def run(*args: str, stdin: bytes | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, "ONNX_KB_DOCS_URL": "https://docs.example/"}
    return subprocess.run([sys.executable, "-m", "diagnoser", *args], input=stdin, capture_output=True, env=env, cwd=cwd, timeout=120)


def test_text_argument_diagnoses_and_exits_0():
    proc = run(MEMCPY)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout.decode()
    assert "OT0005" in out and "https://docs.example/entries/OT0005/" in out and "fix:" in out


def test_unknown_text_exits_1():
    proc = run("SyntaxError: invalid syntax in my_script.py line 3")
    assert proc.returncode == 1
    assert "No known problem" in proc.stdout.decode()


def test_stdin_dash():
    proc = run("-", stdin=MEMCPY.encode())
    assert proc.returncode == 0 and "OT0005" in proc.stdout.decode()


def test_log_file(tmp_path):
    log = tmp_path / "run.log"
    log.write_text("INFO starting\n" * 50 + MEMCPY + "\nINFO done\n", encoding="utf-8")
    proc = run("--log", str(log), "--json")
    assert proc.returncode == 0
    assert json.loads(proc.stdout)["diagnoses"][0]["id"] == "OT0005"


def test_json_contract():
    proc = run(MEMCPY, "--json")
    data = json.loads(proc.stdout)
    assert data["schema_version"] == SCHEMA_VERSION
    d = data["diagnoses"][0]
    for key in ("id", "title", "category", "confidence", "evidence", "fix", "doc"):
        assert key in d
    assert 0.0 <= d["confidence"] <= 1.0 and isinstance(d["evidence"], list)
    assert isinstance(data["findings"], list)


def test_json_no_match_has_empty_diagnoses():
    proc = run("pip's dependency resolver does not currently take into account all the packages that are installed", "--json")
    assert proc.returncode == 1
    assert json.loads(proc.stdout)["diagnoses"] == []


def test_markdown():
    proc = run(MEMCPY, "--markdown")
    out = proc.stdout.decode()
    assert out.startswith("## ONNX troubleshooting report") and "### OT0005" in out


def test_providers_only():
    proc = run("--providers", "OpenVINOExecutionProvider,DmlExecutionProvider", "--json")
    assert proc.returncode == 0 and json.loads(proc.stdout)["diagnoses"][0]["id"] == "OT0005"


def test_lang_zh():
    proc = run(MEMCPY, "--lang", "zh")
    text = "".join(line.strip() for line in proc.stdout.decode().splitlines())  # wrapped lines rejoined
    assert "同一会话" in text
    for label in ("confidence", "why:", "fix:", "read:", "Less likely", "Findings"):
        assert label not in proc.stdout.decode(), label


def test_model_with_node_probe(tmp_path):
    path = save(add_model(BF16, BF16), tmp_path / "m.onnx")
    proc = run(ort_error(path), "--model", str(path), "--json")
    data = json.loads(proc.stdout)
    assert data["diagnoses"][0]["id"] == "OT0001"
    assert any(f["code"] == "node.no-kernel-bfloat16" for f in data["findings"])


def _one_line_error(proc: subprocess.CompletedProcess) -> str:
    err = proc.stderr.decode().strip()
    assert proc.returncode == 2, (proc.returncode, err)
    assert "Traceback" not in err and len(err.splitlines()) == 1, err
    assert err.startswith("diagnose: error:")
    return err


BAD_FILES = {
    "missing": None,
    "empty": b"",
    "text": b"hello, this is not a model\n",
    "lfs": b"version https://git-lfs.github.com/spec/v1\noid sha256:abc\nsize 12345\n",
    "zip": b"PK\x03\x04" + b"\x00" * 100,
    "pickle": b"\x80\x02}q\x00." + b"\x00" * 20,
    "truncated": None,
}


# a file that is not a usable model is the diagnosis the user came for: JSON report, exit 0
BAD_FILE_ENTRY = {"empty": "OT0163", "text": "OT0162", "lfs": "OT0162", "zip": "OT0162", "pickle": "OT0400", "truncated": "OT0162"}


@pytest.mark.parametrize("kind", sorted(BAD_FILES))
def test_bad_model_files(kind, tmp_path):
    path = tmp_path / f"{kind}.onnx"
    if kind == "truncated":
        good = save(add_model(BF16, BF16), tmp_path / "good.onnx").read_bytes()
        path.write_bytes(good[: len(good) // 2])
    elif BAD_FILES[kind] is not None:
        path.write_bytes(BAD_FILES[kind])
    if kind == "missing":  # no such path: a usage error
        _one_line_error(run(MEMCPY, "--model", str(path)))
        return
    proc = run("--model", str(path), "--json")
    assert proc.returncode == 0, proc.stderr.decode()
    data = json.loads(proc.stdout)
    assert [f["code"] for f in data["findings"] if f["code"].startswith("file.")]
    assert data["diagnoses"][0]["id"] == BAD_FILE_ENTRY[kind]
    with_text = json.loads(run(MEMCPY, "--model", str(path), "--json").stdout)
    assert BAD_FILE_ENTRY[kind] in [d["id"] for d in with_text["diagnoses"]]


def test_directory_as_model(tmp_path):
    assert "directory" in _one_line_error(run(MEMCPY, "--model", str(tmp_path)))


def test_empty_text():
    assert "empty" in _one_line_error(run(""))


def test_whitespace_stdin():
    assert "empty" in _one_line_error(run("-", stdin=b"  \n\t\n"))


def test_nothing_given():
    _one_line_error(run())


def test_missing_log(tmp_path):
    _one_line_error(run("--log", str(tmp_path / "nope.log")))


def test_binary_garbage_log(tmp_path):
    log = tmp_path / "garbage.bin"
    log.write_bytes(os.urandom(200_000))
    proc = run("--log", str(log))
    assert proc.returncode == 1 and b"Traceback" not in proc.stderr


def test_version_on_both_commands():
    import subprocess
    import sys
    from importlib.metadata import version

    for module, prog in (("diagnoser", "diagnose"), ("kb", "kb")):
        proc = subprocess.run([sys.executable, "-m", module, "--version"], capture_output=True, text=True, timeout=60)
        assert proc.returncode == 0 and proc.stdout.strip() == f"{prog} {version('onnx-troubleshooter')}"


def test_env_alone_on_a_healthy_machine_exits_0_and_says_so():
    proc = run("--env")
    out = proc.stdout.decode()
    assert proc.returncode == 0, out
    assert out.startswith("The environment looks healthy")
    assert "No known problem matches" not in out

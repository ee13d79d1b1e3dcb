"""`diagnose audit DIR`: a generated folder of real models (some broken), in worker processes."""
from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from diagnoser.model import audit
from kb.termtext import cells
from tests.model_folder import build

pytestmark = pytest.mark.xdist_group("audit")  # one worker builds the module's fixture once

ROOT = Path(__file__).resolve().parents[2]
COUNT = 13  # one model of each kind in tests.model_folder


def diagnose(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "80"}
    return subprocess.run([sys.executable, "-m", "diagnoser", *args], capture_output=True, text=True, cwd=cwd, env=env, timeout=600)


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    base = tmp_path_factory.mktemp("audit")
    build(base / "models", COUNT)
    return base


@pytest.fixture(scope="module")
def first_run(folder):
    proc = diagnose("audit", "models", "--jsonl", "--jobs", "2", "--resume", "audit.jsonl", cwd=folder)
    return proc, [json.loads(line) for line in proc.stdout.splitlines()]


def test_one_json_line_per_model(first_run):
    proc, records = first_run
    assert proc.returncode == 0, proc.stderr
    assert len(records) == COUNT and len({r["path"] for r in records}) == COUNT
    by_kind = {Path(r["path"]).name.rsplit("-", 1)[0]: r for r in records}
    for kind, rec in by_kind.items():
        serious = {f["code"] for f in rec["findings"] if f["severity"] != "info"}
        if kind.startswith("ok-"):  # healthy models: no false alarm
            assert rec["status"] == "ok" and not serious and not rec["diagnoses"], rec
    assert [d["id"] for d in by_kind["bf16-add"]["diagnoses"]] == ["OT0001"]
    assert by_kind["mixed-add"]["diagnoses"][0]["id"] == "OT0002"
    broken = {(k, by_kind[k]["status"], f["code"]) for k in ("broken-truncated", "broken-lfs", "broken-empty")
              for f in by_kind[k]["findings"] if f["severity"] == "error"}
    assert broken == {("broken-truncated", "unreadable", "file.truncated"), ("broken-lfs", "unreadable", "file.git-lfs-pointer"),
                      ("broken-empty", "unreadable", "file.empty")}


def test_summary_on_stderr_fits_80_columns(first_run):
    proc, _ = first_run
    err = proc.stderr
    assert err.startswith(f"{COUNT} models: 10 ok, 3 unreadable in ")  # no progress bar in a pipe
    assert "kernel.cpu-missing" in err and "OT0001" in err and "file.truncated" in err
    assert max(cells(line) for line in err.splitlines()) <= 80


def test_resume_skips_models_already_done(folder, first_run):
    lines = (folder / "audit.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(lines) == COUNT
    kept = lines[:-3]
    (folder / "audit.jsonl").write_text("\n".join(kept) + "\n" + lines[-3][:20], encoding="utf-8")  # a run killed mid-line
    proc = diagnose("audit", "models", "--jsonl", "--jobs", "2", "--resume", "audit.jsonl", cwd=folder)
    assert proc.returncode == 0
    again = {json.loads(line)["path"] for line in proc.stdout.splitlines()}
    assert again == {json.loads(line)["path"] for line in lines[-3:]}
    assert f"resumed: {COUNT - 3} models already in audit.jsonl, 3 audited now" in proc.stderr
    assert f"{COUNT} models:" in proc.stderr  # the summary covers the whole folder


def test_text_report_and_fail_on(folder):
    proc = diagnose("--model", "models/", "--probes", "static", "--fail-on", "error", cwd=folder)
    assert proc.returncode == 1
    out = proc.stdout
    assert "bf16-add-0008.onnx  [error]" in out and "= OT0001" in out and "[unreadable]" in out
    assert "ok-add-0000.onnx" not in out  # a clean model has nothing to say
    assert max(cells(line) for line in out.splitlines()) <= 80
    clean = diagnose("audit", "models/part00/ok-add-0000.onnx", "models/part00/ok-conv-0005.onnx", "--fail-on", "warning", cwd=folder)
    assert clean.returncode == 0 and "no warning, error or known problem" in clean.stdout


def test_timeout_is_a_record(folder):
    proc = diagnose("audit", "models/part00/ok-add-0000.onnx", "--jsonl", "--timeout", "0.05", cwd=folder)
    rec = json.loads(proc.stdout)
    assert proc.returncode == 0 and rec["status"] == "timeout" and rec["findings"][0]["code"] == "audit.timeout"


def test_crashed_worker_is_a_record_and_the_audit_goes_on(folder, tmp_path, monkeypatch):
    """A worker that dies (here: a real process killed by SIGSEGV) costs one record, not the audit."""
    fake = tmp_path / "python"
    fake.write_text("#!/bin/sh\necho 'Fatal Python error: Segmentation fault' >&2\nkill -SEGV $$\n")
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setattr(sys, "executable", str(fake))
    paths = sorted((folder / "models").rglob("ok-*.onnx"))[:3]
    records = audit.run(paths, jobs=2)
    assert len(records) == 3
    assert {r["status"] for r in records} == {"crashed"}
    assert "signal 11" in records[0]["error"] and "Segmentation fault" in records[0]["error"]


def test_missing_folder_is_one_line(tmp_path):
    proc = diagnose("audit", "nowhere", cwd=tmp_path)
    assert proc.returncode == 2 and proc.stderr.strip() == "diagnose: error: no such file or folder: nowhere"


def test_a_folder_with_no_model_is_a_one_line_usage_error(tmp_path):
    """`diagnose --model DIR/` and `diagnose audit DIR` on a folder holding no .onnx file: exit 2."""
    import subprocess
    import sys

    (tmp_path / "notes.txt").write_text("not a model")
    for args in (["--model", str(tmp_path)], ["audit", str(tmp_path)]):
        proc = subprocess.run([sys.executable, "-m", "diagnoser", *args], capture_output=True, text=True, timeout=120)
        assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1 and "Traceback" not in proc.stderr

"""--providers names the target, not this machine: a provider missing here never becomes a
diagnosis about another provider's package, and the target device is part of the input."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from diagnoser import diagnose
from diagnoser.matching.index import default_index
from tests.fixtures.build_broken_models import good
from tests.models import save

ROOT = Path(__file__).resolve().parents[1]
TARGETS = ["DmlExecutionProvider", "DmlExecutionProvider:npu", "OpenVINOExecutionProvider", "OpenVINOExecutionProvider:npu",
           "TensorrtExecutionProvider", "CUDAExecutionProvider"]


def _install_entries() -> set[str]:
    """Entries about this machine's packages and CUDA libraries (what a missing provider used to trigger)."""
    out = set()
    for ce in default_index().entries:
        e = ce.entry
        if e.category in ("ep.cuda-setup", "env.install") or set(e.findings.confirm) & {"env.provider-unavailable", "env.cuda-libs-missing", "env.ort-packages-conflict"}:
            out.add(e.id)
    return out


@pytest.mark.parametrize("provider", TARGETS)
def test_a_target_absent_here_is_never_an_install_diagnosis(tmp_path, provider):
    report = diagnose(model=save(good(), tmp_path / "m.onnx"), providers=[provider, "CPUExecutionProvider"])
    named = {d.id for d in (*report.diagnoses, *report.candidates)}
    assert not named & _install_entries(), named
    assert any("support tables" in n for n in report.notes)
    assert not report.diagnoses  # a healthy model: nothing confident about it on any target


def test_cli_names_the_target_device_and_reports_it(tmp_path):
    path = save(good(), tmp_path / "m.onnx")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, "-m", "diagnoser", "--model", str(path), "--providers", "DmlExecutionProvider:npu,CPUExecutionProvider",
                           "--probes", "static", "--json"], capture_output=True, text=True, env=env, timeout=300)
    report = json.loads(proc.stdout)
    assert report["input"]["providers"] == ["DmlExecutionProvider", "CPUExecutionProvider"]
    assert report["input"]["targets"] == {"DmlExecutionProvider": "npu"}
    ids = {d["id"] for d in report["diagnoses"] + report["candidates"]}
    assert not ids & _install_entries() and "OT0003" in ids  # float32 on an NPU: a candidate, not a diagnosis
    assert not report["diagnoses"]
    bad = subprocess.run([sys.executable, "-m", "diagnoser", "--model", str(path), "--providers", "DmlExecutionProvider:tpu"],
                         capture_output=True, text=True, env=env, timeout=300)
    assert bad.returncode == 2 and bad.stderr.strip().count("\n") == 0 and "one of gpu, npu" in bad.stderr

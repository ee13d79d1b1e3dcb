from __future__ import annotations

import sys

from click.testing import CliRunner

from diagnoser import diagnose
from diagnoser.frontends.cli import command
from diagnoser.probes import environment


def _codes(report):
    return {f.code for f in report.findings}


def test_env_alone_reports_versions_and_packages():
    report = diagnose(env=True)
    f = next(f for f in report.findings if f.code == "env.versions")
    assert "onnxruntime" in f.details["onnxruntime"] and "CPUExecutionProvider" in f.details["providers"]
    assert "env.ort-packages-conflict" not in _codes(report)


def test_two_runtime_packages_side_by_side(tmp_path, monkeypatch):
    info = tmp_path / "onnxruntime_gpu-1.31.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: onnxruntime-gpu\nVersion: 1.31.1\n")
    monkeypatch.setattr(sys, "path", [str(tmp_path), *sys.path])
    assert set(environment.runtime_distributions()) >= {"onnxruntime", "onnxruntime-gpu"}
    report = diagnose(env=True)
    assert "env.ort-packages-conflict" in _codes(report)


def test_requested_provider_not_available():
    report = diagnose(env=True, providers=["CUDAExecutionProvider"])
    found = _codes(report)
    assert "env.provider-unavailable" in found
    if any(v is None for v in environment.find_cuda_libraries().values()):
        assert "env.cuda-libs-missing" in found


def test_cli_env_flag():
    result = CliRunner().invoke(command, ["--env", "--json"])
    assert result.exit_code in (0, 1) and '"env.versions"' in result.output


def test_a_target_provider_missing_here_is_a_note_not_a_diagnosis(tmp_path):
    """--providers without --env names where the model will run; this machine lacking it is no problem."""
    from tests.fixtures.build_broken_models import good
    from tests.models import save

    path = save(good(), tmp_path / "m.onnx")
    report = diagnose(model=path, providers=["CUDAExecutionProvider"], probes="static")
    assert "env.target-not-here" in _codes(report) and not {"env.provider-unavailable", "env.cuda-libs-missing"} & _codes(report)
    assert any("support tables" in n for n in report.notes)
    assert not [d.id for d in (*report.diagnoses, *report.candidates) if d.category == "ep.cuda-setup"]


def test_error_text_from_this_machine_makes_it_about_this_machine(tmp_path):
    from diagnoser.model import runtime
    from tests.fixtures.build_broken_models import good
    from tests.models import save

    here = ", ".join(runtime.snapshot().providers)
    text = f"UserWarning: Specified provider 'CUDAExecutionProvider' is not in available provider names.Available providers: '{here}'"
    report = diagnose(text=text, model=save(good(), tmp_path / "m.onnx"), providers=["CUDAExecutionProvider"], probes="static")
    assert "env.provider-unavailable" in _codes(report) and report.diagnoses[0].id == "OT0301"
    other = text.replace(here, "CPUExecutionProvider, FakeExecutionProvider")
    assert "env.provider-unavailable" not in _codes(diagnose(text=other, model=save(good(), tmp_path / "m.onnx"), providers=["CUDAExecutionProvider"], probes="static"))


def test_env_with_another_provider_never_points_at_the_cuda_package():
    """--env with DirectML requested: its absence is reported with its own package, not as OT0301."""
    report = diagnose(env=True, providers=["DmlExecutionProvider:npu"])
    f = next(f for f in report.findings if f.code == "env.provider-not-installed")
    assert "onnxruntime-directml" in f.message and "env.provider-unavailable" not in _codes(report)
    assert not [d.id for d in (*report.diagnoses, *report.candidates) if d.category == "ep.cuda-setup"]

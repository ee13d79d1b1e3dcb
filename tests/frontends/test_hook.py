"""The exception hook, `python -m diagnoser.run`, the IPython extension and the pytest plugin,
each on a real onnxruntime failure in a real process."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import diagnoser
from diagnoser.frontends import hook
from tests.models import BF16, add_model, save

ROOT = Path(__file__).resolve().parents[2]
ORT_FAIL = "import onnxruntime as ort\nort.InferenceSession('bf16.onnx', providers=['CPUExecutionProvider'])\n"


def python(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, cwd=cwd, env=env, timeout=180)


@pytest.fixture
def bf16(tmp_path: Path) -> Path:
    save(add_model(BF16, BF16), tmp_path / "bf16.onnx")
    return tmp_path


def test_install_diagnoses_uncaught_onnxruntime_error(bf16):
    (bf16 / "s.py").write_text("import diagnoser\ndiagnoser.install()\ndiagnoser.install()\n" + ORT_FAIL, encoding="utf-8")
    proc = python("s.py", cwd=bf16)
    assert proc.returncode == 1
    err = proc.stderr
    assert err.startswith("Traceback") and "NotImplemented" in err
    assert err.count("OT0001  NOT_IMPLEMENTED") == 1  # installed twice, printed once
    assert err.index("NotImplemented:") < err.index("OT0001")


def test_install_leaves_other_errors_alone(tmp_path):
    (tmp_path / "s.py").write_text("import diagnoser\ndiagnoser.install()\nraise ValueError('my own bug')\n", encoding="utf-8")
    proc = python("s.py", cwd=tmp_path)
    assert proc.returncode == 1 and "ValueError: my own bug" in proc.stderr and "diagnoser" not in proc.stderr.split("ValueError")[-1]


def test_uninstall_restores_the_previous_hook():
    before = sys.excepthook
    diagnoser.install()
    assert hook.installed() and sys.excepthook is not before
    diagnoser.uninstall()
    assert sys.excepthook is before and not hook.installed()


def test_python_m_diagnoser_run(bf16):
    (bf16 / "s.py").write_text("import sys\nprint('args', sys.argv[1:])\n" + ORT_FAIL, encoding="utf-8")
    proc = python("-m", "diagnoser.run", "s.py", "--flag", "x", cwd=bf16)
    assert proc.returncode == 1
    assert proc.stdout == "args ['--flag', 'x']\n"
    lines = proc.stderr.splitlines()
    assert lines[0] == "Traceback (most recent call last):" and 's.py", line 4, in <module>' in lines[1]  # no frame of ours
    assert "runpy" not in proc.stderr and "OT0001" in proc.stderr and "kernel.cpu-missing" in proc.stderr


def test_python_m_diagnoser_run_success_and_exit(tmp_path):
    (tmp_path / "ok.py").write_text("print('ok')\n", encoding="utf-8")
    (tmp_path / "exit.py").write_text("import sys\nsys.exit(4)\n", encoding="utf-8")
    assert python("-m", "diagnoser.run", "ok.py", cwd=tmp_path).stdout == "ok\n"
    assert python("-m", "diagnoser.run", "exit.py", cwd=tmp_path).returncode == 4
    missing = python("-m", "diagnoser.run", "nope.py", cwd=tmp_path)
    assert missing.returncode == 2 and missing.stderr.strip() == "diagnoser.run: error: script not found: nope.py"


def test_is_onnx_error_judges_by_module_and_frames(bf16):
    import onnxruntime as ort

    try:
        ort.InferenceSession(str(bf16 / "bf16.onnx"), providers=["CPUExecutionProvider"])
    except Exception as exc:
        assert hook.is_onnx_error(exc)
        wrapped = RuntimeError("export failed")
        wrapped.__cause__ = exc
        assert hook.is_onnx_error(wrapped)
    try:
        int("x")
    except ValueError as exc:
        assert not hook.is_onnx_error(exc) and hook.explain(exc) is None


def test_ipython_extension(bf16, monkeypatch, capsys):
    """%load_ext diagnoser in a real IPython shell: the traceback, then the diagnosis."""
    pytest.importorskip("IPython")
    from IPython.core.interactiveshell import InteractiveShell

    monkeypatch.chdir(bf16)
    shell = InteractiveShell.instance()
    try:
        shell.run_cell("%load_ext diagnoser")
        shell.run_cell(ORT_FAIL)
        out = capsys.readouterr().out
        assert "NotImplemented" in out and "OT0001" in out and out.index("NotImplemented") < out.index("OT0001")
        shell.run_cell("1/0")
        assert "OT0" not in capsys.readouterr().out  # not an ONNX error: IPython's traceback only
        shell.run_cell("%unload_ext diagnoser")
        shell.run_cell(ORT_FAIL)
        assert "OT0001" not in capsys.readouterr().out
    finally:
        InteractiveShell.clear_instance()


TEST_FILE = f"""
import onnxruntime as ort

def test_onnx(tmp_path):
    {ORT_FAIL.splitlines()[1].strip()}

def test_plain():
    assert 1 == 2
"""


def test_pytest_plugin_adds_a_section(bf16):
    (bf16 / "test_x.py").write_text(TEST_FILE, encoding="utf-8")
    base = ["-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly", "test_x.py"]
    proc = python(*base, "-p", "diagnoser.pytest_plugin", cwd=bf16)
    assert proc.returncode == 1, proc.stdout
    out = proc.stdout
    assert out.count("- diagnoser -") == 1  # one section, on the ONNX failure only
    onnx_part = out.split("test_plain")[0] if out.index("test_onnx") < out.index("test_plain") else out
    assert "OT0001" in onnx_part and "2 failed" in out
    plain = python(*base, cwd=bf16)
    assert "diagnoser" not in plain.stdout  # not loaded, not asked for: nothing added


def test_pytest_plugin_loaded_is_inert_until_asked(bf16, monkeypatch):
    """Loaded without -p (as the installed entry point loads it), the plugin adds nothing until
    --onnx-diagnose or the ini option asks for it."""
    (bf16 / "test_x.py").write_text(TEST_FILE, encoding="utf-8")
    env_run = ["-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly", "test_x.py"]
    monkeypatch.setenv("PYTEST_PLUGINS", "diagnoser.pytest_plugin")
    assert "- diagnoser -" not in python(*env_run, cwd=bf16).stdout
    assert python(*env_run, "--onnx-diagnose", cwd=bf16).stdout.count("- diagnoser -") == 1
    (bf16 / "pytest.ini").write_text("[pytest]\nonnx_diagnose = true\n", encoding="utf-8")
    assert python(*env_run, cwd=bf16).stdout.count("- diagnoser -") == 1


def test_torch_onnx_export_error_is_diagnosed(tmp_path):
    """A real torch.onnx exporter failure (no symbolic for aten::fft_fft) under python -m diagnoser.run."""
    pytest.importorskip("torch")
    (tmp_path / "export.py").write_text(
        "import torch\n\nclass M(torch.nn.Module):\n    def forward(self, x):\n        return torch.fft.fft(x).real\n\n"
        "torch.onnx.export(M(), (torch.randn(4),), 'fft.onnx', dynamo=False, opset_version=17)\n", encoding="utf-8")
    proc = python("-m", "diagnoser.run", "export.py", cwd=tmp_path)
    assert proc.returncode == 1
    err = proc.stderr
    assert "torch.onnx.errors.UnsupportedOperatorError: Exporting the operator 'aten::fft_fft'" in err
    assert err.index("UnsupportedOperatorError") < err.index("OT0101")

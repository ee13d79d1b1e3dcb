"""`diagnose run -- CMD`: real commands, real failures; output streamed, exit code kept."""
from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from diagnoser.frontends.capture import Tail, model_paths
from tests.models import BF16, add_model, save

ROOT = Path(__file__).resolve().parents[2]


def diagnose(*args: str, cwd: Path, timeout: float = 120) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "ONNX_KB_DOCS_URL": "https://docs.example/"}
    return subprocess.run([sys.executable, "-m", "diagnoser", *args], capture_output=True, text=True, cwd=cwd, env=env, timeout=timeout)


def bf16_script(folder: Path) -> Path:
    save(add_model(BF16, BF16), folder / "bf16.onnx")
    script = folder / "infer.py"
    script.write_text("import onnxruntime as ort\nprint('loading the model', flush=True)\n"
                      "ort.InferenceSession('bf16.onnx', providers=['CPUExecutionProvider'])\n", encoding="utf-8")
    return script


def test_failing_script_is_diagnosed_after_its_output(tmp_path):
    bf16_script(tmp_path)
    proc = diagnose("run", "--", sys.executable, "infer.py", cwd=tmp_path)
    assert proc.returncode == 1  # python's own exit code for an uncaught exception
    assert proc.stdout == "loading the model\n"  # the command's stdout, untouched
    err = proc.stderr
    assert "NOT_IMPLEMENTED : Could not find an implementation for Add(14)" in err
    assert err.index("NotImplemented") < err.index("OT0001")  # the diagnosis comes after the traceback
    assert f"(model {tmp_path / 'bf16.onnx'})" in err  # the model named in the traceback was probed
    assert "kernel.cpu-missing" in err


def test_succeeding_command_prints_no_diagnosis(tmp_path):
    proc = diagnose("run", "--", sys.executable, "-c", "print('fine')", cwd=tmp_path)
    assert proc.returncode == 0 and proc.stdout == "fine\n" and proc.stderr == ""


def test_exit_code_and_signal_are_the_commands(tmp_path):
    proc = diagnose("run", "--", sys.executable, "-c", "import sys; print('Load model from nowhere.onnx failed: boom', file=sys.stderr); sys.exit(7)", cwd=tmp_path)
    assert proc.returncode == 7
    assert proc.stderr.startswith("Load model from nowhere.onnx failed: boom\n")
    assert "diagnoser: " in proc.stderr and "(model" not in proc.stderr  # the named file does not exist
    proc = diagnose("run", "--", sys.executable, "-c", "import os, signal; os.kill(os.getpid(), signal.SIGTERM)", cwd=tmp_path)
    assert proc.returncode == 128 + 15
    assert "killed by SIGTERM" in proc.stderr


def test_unknown_command_is_one_line(tmp_path):
    proc = diagnose("run", "--", "no-such-command-xyz", cwd=tmp_path)
    assert proc.returncode == 127
    assert proc.stderr.strip() == "diagnose: error: command not found: no-such-command-xyz"


def test_output_is_live_not_held_until_exit(tmp_path):
    """The child prints a line, then waits for a file the test writes only after reading that
    line through `diagnose run`: if the output were held back, this would time out."""
    flag = tmp_path / "go"
    code = f"import os, time\nprint('waiting')\nwhile not os.path.exists({str(flag)!r}): time.sleep(0.05)\nprint('done')\n"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-m", "diagnoser", "run", "--", sys.executable, "-c", code],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=tmp_path)
    try:
        start = time.monotonic()
        assert proc.stdout.readline() == "waiting\n"
        assert time.monotonic() - start < 60
        flag.write_text("")
        assert proc.stdout.readline() == "done\n"
        assert proc.wait(timeout=60) == 0
    finally:
        proc.kill()
        proc.wait()


def test_text_argument_still_diagnoses(tmp_path):
    """`diagnose TEXT` keeps working beside the subcommands."""
    proc = diagnose("Execution type OpenVINOExecutionProvider doesn't support memcpy", cwd=tmp_path)
    assert proc.returncode == 0 and "OT0005" in proc.stdout


def test_model_paths_found_in_what_programs_print(tmp_path):
    (tmp_path / "models").mkdir()
    a, b = tmp_path / "models" / "a.onnx", tmp_path / "b.onnx"
    a.write_bytes(b"x")
    b.write_bytes(b"x")
    ort = "[ONNXRuntimeError] : 1 : FAIL : Load model from models/a.onnx failed:Protobuf parsing failed."
    assert model_paths(ort, cwd=tmp_path) == [tmp_path / "models/a.onnx"]
    tb = '  File "x.py", line 3, in <module>\n    sess = ort.InferenceSession("b.onnx", providers=p)\n'
    assert model_paths(tb, cwd=tmp_path) == [tmp_path / "b.onnx"]
    assert model_paths("exported to missing.onnx and models/a.onnx", cwd=tmp_path) == [tmp_path / "models/a.onnx"]
    assert model_paths("no model here: model.onnxruntime.so", cwd=tmp_path) == []
    assert model_paths("Failed to load b.onnx.", cwd=tmp_path) == [tmp_path / "b.onnx"]  # a sentence's full stop


def test_chinese_diagnosis_has_chinese_frame(tmp_path):
    bf16_script(tmp_path)
    proc = diagnose("run", "--lang", "zh", "--", sys.executable, "infer.py", cwd=tmp_path)
    assert proc.returncode == 1
    assert "失败（退出码 1）（模型 " in proc.stderr and "置信度" in proc.stderr and "confidence" not in proc.stderr


def test_tail_keeps_the_end():
    tail = Tail(limit=10)
    for chunk in (b"0123456789", b"abc", b"defgh"):
        tail.add(chunk)
    assert tail.bytes() == b"89abcdefgh" and tail.truncated
    for _ in range(100):
        tail.add(b"xyz")
    assert tail.bytes() == b"zxyzxyzxyz" and sum(map(len, tail._chunks)) < 20  # memory stays bounded

"""Run one of our child scripts in its own process with a time and memory limit, and read back
the JSON records it prints one per line. The session probe and the fix verification both load
models into onnxruntime this way, so a crash, a hang or an out-of-memory stays outside our
process and becomes data (a missing record, return code None on timeout)."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys


def _limits(limit: int):
    """A pre-exec hook: a session of its own (so a timeout kills the whole group), at most
    `limit` bytes of address space, no core dumps."""
    def apply() -> None:
        import resource

        os.setsid()
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    return apply


def run_child(script: str, args: dict, timeout: float, limit: int, tail: int = 2000) -> tuple[list[dict], int | None, str]:
    """Run `python -I script ARGS_JSON`; return its records, its return code (None on timeout)
    and the last `tail` characters of its stderr. onnxruntime's own environment switches
    (ORT_*, ONNXRUNTIME_*) are not passed on: the child sees a default runtime."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ORT_", "ONNXRUNTIME_"))}
    proc = subprocess.Popen([sys.executable, "-I", script, json.dumps(args)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, preexec_fn=_limits(limit) if os.name == "posix" else None, env=env)
    try:
        out, err = proc.communicate(timeout=timeout)
        code: int | None = proc.returncode
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL) if os.name == "posix" else proc.kill()
        out, err = proc.communicate()
        code = None
    records = []
    for line in out.splitlines():
        try:
            records.append(json.loads(line))
        except ValueError:
            continue
    return records, code, err[-tail:]

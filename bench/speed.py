"""Speed of text diagnosis: cold start of the CLI, in-process throughput, and huge inputs.

Run: .venv/bin/python bench/speed.py
Targets (issue 3): `diagnose "text" --json` cold start <= 0.25 s; >= 2,000 messages/s in-process;
a 50 MB log or 50 MB of binary junk in about a second.
"""
from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
DIAGNOSE = [sys.executable, "-m", "diagnoser"]
TEXT = "onnxruntime.capi.onnxruntime_pybind11_state.NotImplemented: [ONNXRuntimeError] : 9 : NOT_IMPLEMENTED : Could not find an implementation for Add(14) node with name '/self_attn/q_proj/Add'"


def _time(cmd: list[str], env: dict[str, str] | None = None, runs: int = 7) -> tuple[float, float]:
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        subprocess.run(cmd, capture_output=True, env=env, check=False)
        times.append(time.perf_counter() - t)
    return statistics.median(times), min(times)


def cold_start() -> None:
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "XDG_CACHE_HOME": cache}
        t = time.perf_counter()
        subprocess.run([*DIAGNOSE, TEXT, "--json"], capture_output=True, env=env)
        first = time.perf_counter() - t
        med, best = _time([*DIAGNOSE, TEXT, "--json"], env)
    nocache = _time([*DIAGNOSE, TEXT, "--json"], {**os.environ, "ONNX_KB_CACHE": "0"}, runs=3)[0]
    baseline = _time([sys.executable, "-c", "pass"])[0]
    print(f"python -c pass:                          {baseline * 1000:7.0f} ms (interpreter start, for scale)")
    print(f"diagnose TEXT --json, cached index:      {med * 1000:7.0f} ms median, {best * 1000:.0f} ms best  (target <= 250 ms)")
    print(f"  first run (builds the index cache):    {first * 1000:7.0f} ms")
    print(f"  with the cache disabled:               {nocache * 1000:7.0f} ms")


def throughput() -> None:
    from diagnoser.index import default_index
    from diagnoser.matcher import score
    from diagnoser.text import prepare
    from kb import load

    texts = [ex.text for d in load(strict=False).documents.values() for ex in d.entry.examples]
    index = default_index()
    for t in texts[:20]:
        score(index, prepare(t).text)
    rounds = max(1, 4000 // len(texts))
    start = time.perf_counter()
    for _ in range(rounds):
        for t in texts:
            score(index, prepare(t).text)
    elapsed = time.perf_counter() - start
    n = rounds * len(texts)
    print(f"in-process: {n} messages over {len(index.entries)} entries in {elapsed:.2f} s = {n / elapsed:,.0f} messages/s  (target >= 2,000)")


def huge_inputs() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "big.log"
        line = "2026-11-22 10:00:00.000 [I:onnxruntime:, session_state.cc:1234] Saving initialized tensors. some ordinary progress output here\n"
        with log.open("w") as fh:
            n = 50_000_000 // len(line)
            for i in range(n):
                fh.write(line)
                if i == n // 2:
                    fh.write(TEXT + "\n")
        med, _ = _time([*DIAGNOSE, "--log", str(log), "--json"], runs=3)
        print(f"50 MB log with one error in the middle:  {med:5.2f} s")
        junk = Path(tmp) / "junk.bin"
        junk.write_bytes(os.urandom(50_000_000))
        med, _ = _time([*DIAGNOSE, "--log", str(junk), "--json"], runs=3)
        print(f"50 MB of random bytes:                   {med:5.2f} s")


if __name__ == "__main__":
    cold_start()
    throughput()
    huge_inputs()

"""Memory: peak RSS of the static probes on a model with several GB of external data.

    .venv/bin/python bench/probe_memory.py [--gib 6]

The weights file is created sparse in a temporary folder under /tmp (instant, no disk used);
the probes read only its size, so peak memory must stay far below the weight size. Each
contender runs in a fresh process; peak RSS is that child's ru_maxrss.
"""
from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PROBES = ("import sys; from diagnoser import modelfile; from diagnoser.probes import ProbeContext, run_all, static; "
          "ctx = ProbeContext(model=modelfile.load(sys.argv[1]), mode='static'); fs = run_all(ctx, static()); "
          "print(sorted({f.code for f in fs}))")


def build(folder: Path, gib: float) -> Path:
    """A Gather-based model whose 256 MiB embedding tables live in one sparse external file."""
    import onnx
    from onnx import TensorProto, helper

    chunk = 64 * 2**20  # float32 elements per table = 256 MiB
    tables = max(1, int(gib * 4))
    inits, nodes, offset = [], [], 0
    for i in range(tables):
        t = TensorProto()
        t.name, t.data_type = f"table{i}", TensorProto.FLOAT
        t.dims.extend([chunk // 64, 64])
        t.data_location = TensorProto.EXTERNAL
        for k, v in (("location", "weights.bin"), ("offset", str(offset)), ("length", str(chunk * 4))):
            t.external_data.add(key=k, value=v)
        offset += chunk * 4
        inits.append(t)
        nodes.append(helper.make_node("Gather", [f"table{i}", "ids"], [f"e{i}"], name=f"gather{i}"))
    nodes.append(helper.make_node("Sum", [f"e{i}" for i in range(tables)], ["y"], name="sum"))
    g = helper.make_graph(nodes, "embeddings", [helper.make_tensor_value_info("ids", TensorProto.INT64, ["n"])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["n", 64])], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    with (folder / "weights.bin").open("wb") as fh:
        fh.truncate(offset)
    path = folder / "model.onnx"
    onnx.save(m, path)
    return path


def peak(cmd: list[str]) -> tuple[float, float, str]:
    """(peak RSS MiB, seconds, last output line) of one fresh child process."""
    t0 = time.perf_counter()
    cp = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
    rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024  # max over children so far
    tail = (cp.stdout.strip().splitlines() or [""])[-1][:160] if cp.returncode in (0, 1) else f"exit {cp.returncode}: {cp.stderr.strip()[-200:]}"
    return rss, time.perf_counter() - t0, tail


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--gib", type=float, default=6.0)
    args = ap.parse_args()
    py = sys.executable
    with tempfile.TemporaryDirectory(dir="/tmp") as tmp:
        path = build(Path(tmp), args.gib)
        weights = (Path(tmp) / "weights.bin").stat().st_size
        print(f"model: {path.stat().st_size} bytes of graph, {weights / 2**30:.2f} GiB of external weights (sparse file)")
        # each measurement in its own grandchild so ru_maxrss is that process's alone
        for label, cmd in (("baseline: import onnx, onnxruntime", [py, "-c", "import onnx, onnxruntime"]),
                           ("static probes", [py, "-c", PROBES, str(path)]),
                           ("diagnose --model M --probes static", [py, "-m", "diagnoser", "--model", str(path), "--probes", "static", "--json"])):
            wrapper = ("import resource, subprocess, sys, time; t=time.perf_counter(); "
                       "cp = subprocess.run(sys.argv[1:], capture_output=True, text=True); "
                       "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, time.perf_counter()-t, cp.returncode, (cp.stdout.strip().splitlines() or [''])[-1][:150])")
            cp = subprocess.run([py, "-c", wrapper, *cmd], capture_output=True, text=True, cwd=ROOT)
            kb, secs, code, tail = cp.stdout.split(" ", 3)
            print(f"  {label:40s} peak RSS {int(kb) / 1024:7.1f} MiB  ({float(secs):.2f} s, exit {code})  {tail.strip()[:110]}")
        print(f"weights {weights / 2**20:.0f} MiB; the probes never read them (external data is checked by file size only)")


if __name__ == "__main__":
    main()

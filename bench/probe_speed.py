"""Speed: the static probes on a 50,000-node model vs onnx.load + check_model(full_check=True).

    .venv/bin/python bench/probe_speed.py [--nodes 50000] [--repeat 3] [--tools-venv /tmp/benchvenv]

Every contender runs in a fresh interpreter, so imports count on both sides. The goal: the
static probes take at most 1.5x the onnx baseline. The probes read what the installed
onnxruntime registers (and the data tables) from the on-disk cache after their first run; the
"first run" row times them with the cache off (ONNX_KB_CACHE=0), importing onnxruntime and yaml. Polygraphy and onnx-doctor are timed on the
same model when they are installed in a separate venv (never the project's):
    python3 -m venv /tmp/benchvenv && /tmp/benchvenv/bin/pip install polygraphy onnx-doctor onnxruntime
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BASELINE = "import onnx, sys; m = onnx.load(sys.argv[1]); onnx.checker.check_model(m, full_check=True)"
PROBES = ("import sys; from diagnoser.model import modelfile; from diagnoser.probes import ProbeContext, run_all, static; "
          "ctx = ProbeContext(model=modelfile.load(sys.argv[1]), mode='static'); fs = run_all(ctx, static()); "
          "assert not [f for f in fs if f.code == 'probe.failed'], fs")


def build(path: Path, nodes: int) -> None:
    """A chain of MatMul -> Add -> Relu -> Mul blocks with small weights: many nodes, few bytes."""
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(0)
    inits = [numpy_helper.from_array(rng.random((16, 16), dtype=np.float32) * 0.1, "w"),
             numpy_helper.from_array(np.full((16,), 0.01, dtype=np.float32), "b"),
             numpy_helper.from_array(np.array(0.5, dtype=np.float32), "s")]
    graph_nodes, cur = [], "x"
    for i in range(nodes // 4):
        graph_nodes += [helper.make_node("MatMul", [cur, "w"], [f"m{i}"], name=f"/blk{i}/MatMul"),
                        helper.make_node("Add", [f"m{i}", "b"], [f"a{i}"], name=f"/blk{i}/Add"),
                        helper.make_node("Relu", [f"a{i}"], [f"r{i}"], name=f"/blk{i}/Relu"),
                        helper.make_node("Mul", [f"r{i}", "s"], [f"o{i}"], name=f"/blk{i}/Mul")]
        cur = f"o{i}"
    g = helper.make_graph(graph_nodes, "big", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 16])],
                          [helper.make_tensor_value_info(cur, TensorProto.FLOAT, ["batch", 16])], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    onnx.save(m, path)


def timed(cmd: list[str], env: dict[str, str] | None = None) -> tuple[float, float] | None:
    """(wall seconds, CPU seconds of the child) for one fresh run; None when it failed."""
    import resource

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    cp = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, env=env)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if cp.returncode not in (0, 1):
        print(f"   ({cmd[0]} ... exit {cp.returncode}: {(cp.stderr or cp.stdout).strip().splitlines()[-1:]})")
        return None
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--nodes", type=int, default=50_000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--tools-venv", default="/tmp/benchvenv")
    args = ap.parse_args()
    py = sys.executable
    tools = Path(args.tools_venv) / "bin"
    with tempfile.TemporaryDirectory() as tmp:
        model = Path(tmp) / "big.onnx"
        build(model, args.nodes)
        print(f"model: {args.nodes} nodes, {model.stat().st_size / 2**20:.1f} MiB; best of {args.repeat} interleaved runs, fresh interpreter each")
        cold = {**os.environ, "ONNX_KB_CACHE": "0"}
        rows = [("onnx.load + check_model(full_check=True)", [py, "-c", BASELINE, str(model)], None),
                ("diagnoser static probes", [py, "-c", PROBES, str(model)], None),
                ("diagnoser static probes, first run (no cache)", [py, "-c", PROBES, str(model)], cold),
                ("diagnose --model M --probes static (whole CLI)", [py, "-m", "diagnoser", "--model", str(model), "--probes", "static", "--json"], None)]
        if (tools / "polygraphy").exists():
            rows.append(("polygraphy inspect model", [str(tools / "polygraphy"), "inspect", "model", str(model)], None))
        if (tools / "onnx-doctor").exists():
            rows.append(("onnx-doctor check", [str(tools / "onnx-doctor"), "check", str(model)], None))
        runs: dict[str, list[tuple[float, float]]] = {label: [] for label, _, _ in rows}
        timed(rows[1][1])  # fills the cache the warm rows read
        for _ in range(args.repeat):  # interleaved, so a busy machine hurts every contender alike
            for label, cmd, env in rows:
                r = timed(cmd, env)
                if r is not None:
                    runs[label].append(r)
        best = {}
        for label, _, _ in rows:
            if runs[label]:
                wall = min(r[0] for r in runs[label])
                cpu = min(r[1] for r in runs[label])
                best[label] = (wall, cpu)
                print(f"  {label:48s} wall {wall:6.2f} s   cpu {cpu:6.2f} s")
            else:
                print(f"  {label:48s} failed")
        base = best.get(rows[0][0])
        for label, what in ((rows[1][0], "static probes"), (rows[2][0], "static probes, first run")):
            probes = best.get(label)
            if base and probes:
                print(f"ratio {what} / onnx baseline: wall {probes[0] / base[0]:.2f}, cpu {probes[1] / base[1]:.2f} (goal <= 1.5)")


if __name__ == "__main__":
    main()

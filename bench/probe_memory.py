"""Memory: peak RSS of the static probes on a model with several GB of external data, and on a
model whose weights are embedded in the .onnx file.

    .venv/bin/python bench/probe_memory.py [--gib 6] [--embedded-mib 512]

External: the weights file is created sparse in a temporary folder under /tmp (instant, no disk
used); the probes read only its size, so peak memory must stay far below the weight size.
Embedded: every tool must parse the weights, so the bar is onnx.load itself; onnx's checker and
shape inference each copy a serialised model, so the probes give them a copy without the big
weights (diagnoser.model.weights). Each contender runs in a fresh process; peak RSS is that child's
ru_maxrss.
"""
from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PROBES = ("import sys; from diagnoser.model import modelfile; from diagnoser.probes import ProbeContext, run_all, static; "
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


def build_embedded(folder: Path, mib: int, side: int = 4096) -> Path:
    """A MatMul chain whose side x side float32 weights (64 MiB for 4096) are stored inside the .onnx file."""
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(0)
    inits, nodes, cur = [], [], "x"
    for i in range(max(1, mib * 2**20 // (side * side * 4))):
        inits.append(numpy_helper.from_array(rng.random((side, side), dtype=np.float32), f"w{i}"))
        nodes.append(helper.make_node("MatMul", [cur, f"w{i}"], [f"m{i}"], name=f"mm{i}"))
        cur = f"m{i}"
    g = helper.make_graph(nodes, "embedded", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", side])],
                          [helper.make_tensor_value_info(cur, TensorProto.FLOAT, ["n", side])], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    path = folder / f"embedded-{mib}-{side}.onnx"
    onnx.save(m, path)
    return path


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--gib", type=float, default=6.0)
    ap.add_argument("--embedded-mib", type=int, default=512)
    args = ap.parse_args()
    py = sys.executable
    with tempfile.TemporaryDirectory(dir="/tmp") as tmp:
        path = build(Path(tmp), args.gib)
        weights = (Path(tmp) / "weights.bin").stat().st_size
        print(f"model: {path.stat().st_size} bytes of graph, {weights / 2**30:.2f} GiB of external weights (sparse file)")
        for label, cmd in (("baseline: import onnx, onnxruntime", [py, "-c", "import onnx, onnxruntime"]),
                           ("static probes", [py, "-c", PROBES, str(path)]),
                           ("diagnose --model M --probes static", [py, "-m", "diagnoser", "--model", str(path), "--probes", "static", "--json"])):
            measure(label, cmd)
        print(f"weights {weights / 2**20:.0f} MiB; the probes never read them (external data is checked by file size only)")
        for mib, side in ((args.embedded_mib, 4096), (60, 512)) if args.embedded_mib else ():
            path = build_embedded(Path(tmp), mib, side)
            print(f"model: {path.stat().st_size / 2**20:.0f} MiB with its weights embedded ({side}x{side} float32 each)")
            for label, cmd in (("baseline: onnx.load", [py, "-c", "import onnx, sys; onnx.load(sys.argv[1])", str(path)]),
                               ("onnx.load + check_model(full_check=True)", [py, "-c", "import onnx, sys; onnx.checker.check_model(onnx.load(sys.argv[1]), full_check=True)", str(path)]),
                               ("static probes", [py, "-c", PROBES, str(path)])):
                measure(label, cmd)


def measure(label: str, cmd: list[str]) -> None:
    """Run cmd in its own grandchild, so ru_maxrss is that process's alone, and print the figures."""
    py = sys.executable
    wrapper = ("import resource, subprocess, sys, time; t=time.perf_counter(); "
               "cp = subprocess.run(sys.argv[1:], capture_output=True, text=True); "
               "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, time.perf_counter()-t, cp.returncode, (cp.stdout.strip().splitlines() or [''])[-1][:150])")
    cp = subprocess.run([py, "-c", wrapper, *cmd], capture_output=True, text=True, cwd=ROOT)
    kb, secs, code, tail = cp.stdout.split(" ", 3)
    print(f"  {label:40s} peak RSS {int(kb) / 1024:7.1f} MiB  ({float(secs):.2f} s, exit {code})  {tail.strip()[:110]}")


if __name__ == "__main__":
    main()

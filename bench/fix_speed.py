"""Speed of `diagnose --fix`: a 50,000-node model and a 512 MiB model with external weights.

    .venv/bin/python bench/fix_speed.py [--nodes 50000] [--gib 0.5]

Both models need the reinfer-shapes remedy (the big graph's nodes are stored in reverse order, and
the text given is onnx's checker error for it; the external-weights model carries a stale
value_info), which rewrites no weight. Each run is a fresh
interpreter calling diagnoser.fix (static probes): wall time, this process's peak RSS (the
external weights must never be read here) and the time spent in the verification child, which
does load the weights to run both models. `diagnose --fix` as a whole CLI is timed too.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

DRIVER = """
import json, resource, sys, time
t0 = time.perf_counter()
from diagnoser.api import fix
from diagnoser.remedies import verify
spent = []
real = verify.verify
def timed(*a, **k):
    t = time.perf_counter(); v = real(*a, **k); spent.append(time.perf_counter() - t); return v
verify.verify = timed
import diagnoser.remedies.engine as engine
engine.verify = timed
rep = fix(text=sys.argv[2] or None, model=sys.argv[1], probes="static")
recs = [(r.name, r.status) for r in rep.fixes.remedies]
print(json.dumps({"wall": time.perf_counter() - t0, "verify": sum(spent), "rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "remedies": recs, "output": rep.fixes.output}))
"""


def build_graph(path: Path, nodes: int) -> None:
    import onnx
    from probe_speed import build

    build(path, nodes)
    m = onnx.load(str(path))
    reversed_nodes = list(m.graph.node)[::-1]
    del m.graph.node[:]
    m.graph.node.extend(reversed_nodes)
    onnx.save(m, str(path))


def build_external(folder: Path, gib: float) -> Path:
    import onnx
    from onnx import TensorProto, helper
    from probe_memory import build

    path = build(folder, gib)
    m = onnx.load(str(path), load_external_data=False)
    m.graph.value_info.append(helper.make_tensor_value_info("e0", TensorProto.FLOAT, [7, 7, 7]))  # stale
    onnx.save(m, str(path))
    return path


def checker_error(path: Path) -> str:
    """What the user would paste: onnx's checker on the file (the diagnosis names the remedy)."""
    import onnx

    try:
        onnx.checker.check_model(str(path))
    except Exception as exc:
        return f"onnx.onnx_cpp2py_export.checker.ValidationError: {exc}"
    return ""


def drive(path: Path, text: str = "") -> dict:
    cp = subprocess.run([sys.executable, "-c", DRIVER, str(path), text], capture_output=True, text=True, cwd=ROOT)
    if cp.returncode != 0:
        raise SystemExit(cp.stderr[-2000:])
    return json.loads(cp.stdout.strip().splitlines()[-1])


def cli(path: Path, text: str) -> float:
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-m", "diagnoser", text, "--model", str(path), "--fix", "--probes", "static", "--no-color"],
                   capture_output=True, text=True, cwd=ROOT)
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--nodes", type=int, default=50000)
    ap.add_argument("--gib", type=float, default=0.5)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        big = folder / "big.onnx"
        build_graph(big, args.nodes)
        text = checker_error(big)
        r = drive(big, text)
        (folder / "big.fixed.onnx").unlink(missing_ok=True)
        print(f"{args.nodes} nodes ({big.stat().st_size / 2**20:.1f} MiB): fix {r['wall']:.2f} s "
              f"(verification {r['verify']:.2f} s), peak RSS {r['rss_mib']:.0f} MiB; {r['remedies']}")
        print(f"  whole CLI `diagnose \"<checker error>\" --model big.onnx --fix --probes static`: {cli(big, text):.2f} s")
        ext_dir = folder / "ext"
        ext_dir.mkdir()
        ext = build_external(ext_dir, args.gib)
        weights = (ext_dir / "weights.bin").stat().st_size
        r = drive(ext)
        print(f"{weights / 2**20:.0f} MiB of external weights: fix {r['wall']:.2f} s (verification {r['verify']:.2f} s), "
              f"peak RSS of this process {r['rss_mib']:.0f} MiB (weights not read here); {r['remedies']}")
        written = sorted(p.name for p in ext_dir.iterdir())
        print(f"  files after the fix: {written} (the fixed model refers to the same weights.bin)")


if __name__ == "__main__":
    main()

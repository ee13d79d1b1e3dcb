"""Validation (b): static kernel-availability prediction vs what onnxruntime does on session creation.

    .venv/bin/python bench/validate_node_tests.py [--limit N]

Builds the node-test models from onnx's shipped test cases (onnx.backend.test.case.node; the
wheel no longer ships them as files), predicts with the static probes whether a CPU session can
be created, then creates every session for real in worker subprocesses (a crash costs one model,
not the run) and prints precision and recall:
  - kernels: predicted `kernel.cpu-missing*` vs the runtime's NOT_IMPLEMENTED, over the models
    the runtime got past its IR/opset check;
  - load: any predicted load failure (kernels, IR/opset, checker, custom op, mixed dtypes) vs any
    session-creation failure.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
import warnings
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

_WORKER = r"""
import json, sys
import onnxruntime as ort
so = ort.SessionOptions(); so.log_severity_level = 4
for line in sys.stdin:
    path = line.strip()
    print(json.dumps({"path": path, "stage": "start"}), flush=True)
    try:
        ort.InferenceSession(path, sess_options=so, providers=["CPUExecutionProvider"])
        print(json.dumps({"path": path, "ok": True}), flush=True)
    except Exception as exc:
        print(json.dumps({"path": path, "ok": False, "error": str(exc)[:600]}), flush=True)
"""
LOAD_CODES = {"kernel.cpu-missing", "kernel.cpu-missing-op-version", "kernel.cpu-rnn-batchwise", "node.attribute-unknown-to-runtime", "ir.newer-than-runtime", "opset.newer-than-runtime",
              "checker.invalid", "domain.custom-op", "dtype.mixed-on-node", "shape.inference-error"}


def actual(paths: list[str], workers: int = 2) -> dict[str, dict]:
    """Create a session for every model in worker processes; a crash marks that model and restarts."""
    results: dict[str, dict] = {}
    chunks = [paths[i::workers] for i in range(workers)]
    pending = [list(c) for c in chunks]
    while any(pending):
        procs = []
        for chunk in pending:
            if chunk:
                p = subprocess.Popen([sys.executable, "-c", _WORKER], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
                p.stdin.write("\n".join(chunk) + "\n")
                p.stdin.close()
                procs.append((p, chunk))
        pending = []
        for p, chunk in procs:
            started = None
            for line in p.stdout:
                rec = json.loads(line)
                if rec.get("stage") == "start":
                    started = rec["path"]
                else:
                    results[rec["path"]] = rec
                    started = None
            p.wait()
            if started is not None:  # died on this model
                results[started] = {"path": started, "ok": False, "error": f"crash (exit {p.returncode})"}
                pending.append(chunk[chunk.index(started) + 1:])
    return results


def kind(rec: dict) -> str:
    if rec["ok"]:
        return "ok"
    err = rec["error"]
    if "NOT_IMPLEMENTED" in err or "Could not find an implementation" in err:
        return "not-implemented"
    if "IR version" in err or "opset" in err.lower() and ("under development" in err or "is till opset" in err):
        return "version"
    if err.startswith("crash"):
        return "crash"
    return "other"


def predicted(path: Path) -> set[str]:
    from diagnoser.model import modelfile
    from diagnoser.probes import (ProbeContext, checker, cpu_kernels, domains, dtypes, run_all,
                                  runtime_schema, shape_inference, versions)

    ctx = ProbeContext(model=modelfile.load(path), mode="static")
    return {f.code for f in run_all(ctx, (versions, checker, shape_inference, dtypes, cpu_kernels, runtime_schema, domains))}


def _gist(error: str) -> str:
    """The runtime's message without the model-specific parts, to group misses by cause."""
    import re

    text = error.split(" : ", 3)[-1] if " : " in error else error
    text = re.sub(r"Load model from \S+ failed:", "", text)
    text = re.sub(r"/onnxruntime_src/\S+ ", "", text)
    text = re.sub(r"'[^']*'|\([^()]*\)|\d+", "_", text)
    return text.strip()[:110]


def pr(tp: int, fp: int, fn: int) -> str:
    p = tp / (tp + fp) if tp + fp else 1.0
    r = tp / (tp + fn) if tp + fn else 1.0
    return f"precision {p:.3f}  recall {r:.3f}  (tp {tp}, fp {fp}, fn {fn})"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--limit", type=int, default=0)
    ap.add_argument("--show", type=int, default=8, help="print this many disagreements of each kind")
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    import numpy as np
    from onnx.backend.test.case.node import collect_testcases

    np.seterr(all="ignore")
    t0 = time.perf_counter()
    cases = collect_testcases(None)
    if args.limit:
        cases = cases[: args.limit]
    with tempfile.TemporaryDirectory() as tmp:
        paths = []
        for c in cases:
            p = Path(tmp) / f"{c.name}.onnx"
            p.write_bytes(c.model.SerializeToString())
            paths.append(str(p))
        t1 = time.perf_counter()
        preds = {p: predicted(Path(p)) for p in paths}
        t2 = time.perf_counter()
        real = actual(paths)
        t3 = time.perf_counter()
    kinds = Counter(kind(real[p]) for p in paths)
    print(f"{len(paths)} node-test models (onnx {__import__('onnx').__version__}, onnxruntime {__import__('onnxruntime').__version__})")
    print(f"build {t1 - t0:.1f} s, static probes {t2 - t1:.1f} s, real sessions {t3 - t2:.1f} s")
    print("session creation:", ", ".join(f"{k} {n}" for k, n in kinds.most_common()))
    tp = fp = fn = 0
    fps, fns = [], []
    for p in paths:
        k = kind(real[p])
        if k == "version":
            continue
        pred = bool(preds[p] & {"kernel.cpu-missing", "kernel.cpu-missing-op-version"})
        act = k == "not-implemented"
        tp += pred and act
        fp += pred and not act
        fn += act and not pred
        if pred and not act:
            fps.append((Path(p).stem, k))
        if act and not pred:
            fns.append((Path(p).stem, real[p]["error"][-160:]))
    print("kernels (models past the IR/opset check):", pr(tp, fp, fn))
    ltp = lfp = lfn = 0
    load_missed: Counter[str] = Counter()
    for p in paths:
        pred = bool(preds[p] & LOAD_CODES)
        act = not real[p]["ok"]
        ltp += pred and act
        lfp += pred and not act
        lfn += act and not pred
        if act and not pred:
            load_missed[_gist(real[p]["error"])] += 1
    print("load failure (all models):", pr(ltp, lfp, lfn))
    for gist, n in load_missed.most_common(args.show):
        print(f"  load failure not predicted ({n}): {gist}")
    for name, k in fps[: args.show]:
        print(f"  false alarm: {name} (runtime: {k})")
    for name, err in fns[: args.show]:
        print(f"  missed: {name}: {err}")


if __name__ == "__main__":
    main()

"""Precision of the provider predictions on real exported models (issue 10, item 6).

    XDG_CACHE_HOME=/tmp/cache nice .venv/bin/python bench/provider_precision.py [--quick]

Builds bench/provider_corpus.py's models (cached), runs each on onnxruntime's CPU provider for
the truth, then diagnoses each for every target as a user on this machine would
(`diagnose --model m.onnx --providers P`): CPU with every probe (the session included), the other
targets with the static probes (their session cannot run here). Prints per target: the healthy
models, warnings per healthy model, notes per healthy model (fallback predictions), confident
diagnoses on healthy models (goal 0), and every distinct warning with the table row (source file
and line, revision) that justifies it. For CPU: the failures found, and false alarms.
"""
from __future__ import annotations

import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

from diagnoser import diagnose  # noqa: E402

TARGETS = ["CPUExecutionProvider", "CUDAExecutionProvider", "DmlExecutionProvider:gpu", "DmlExecutionProvider:npu",
           "OpenVINOExecutionProvider:cpu", "OpenVINOExecutionProvider:npu", "TensorrtExecutionProvider"]
_TARGET_CODES = ("provider.", "model.float32-compute", "model.head-only-graph", "env.")


def cpu_truth(path: Path, other: int = 1) -> str | None:
    """None when a CPU session loads the model and runs it once, with every dynamic dimension at
    `other` (1: the export size of these models); else the error's first line."""
    import numpy as np
    import onnxruntime as ort

    kinds = {"tensor(float)": np.float32, "tensor(float16)": np.float16, "tensor(int64)": np.int64, "tensor(int32)": np.int32, "tensor(double)": np.float64}
    try:
        sess = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
        feeds = {}
        for i in sess.get_inputs():
            shape = [d if isinstance(d, int) else (other if n == 0 else (7 if other > 1 else 12)) for n, d in enumerate(i.shape)]
            if i.type == "tensor(bfloat16)":
                return "bfloat16 input (numpy cannot feed it; the session was created)"
            dtype = kinds.get(i.type, np.float32)
            feeds[i.name] = (np.random.default_rng(0).integers(1, 90, shape) if np.issubdtype(dtype, np.integer) else np.random.default_rng(0).random(shape)).astype(dtype)
        sess.run(None, feeds)
    except Exception as exc:
        return str(exc).splitlines()[0][:160]
    return None


def judge(path: Path, target: str) -> dict:
    cpu = target == "CPUExecutionProvider"
    report = diagnose(model=path, providers=[] if cpu else [target], probes="all" if cpu else "static")
    warns = [f for f in report.findings if f.severity in ("warning", "error") and f.code != "probe.failed"]
    return {"diagnoses": [d.id for d in report.diagnoses], "candidates": [d.id for d in report.candidates],
            "warnings": warns, "target_warnings": [f for f in warns if f.code.startswith(_TARGET_CODES)],
            "notes": [f for f in report.findings if f.severity == "info" and f.code.startswith("provider.")],
            "errors": [f for f in report.findings if f.severity == "error"],
            "probe_failed": [f for f in report.findings if f.code == "probe.failed"]}


def justification(f) -> list[str]:
    """Each warning's source: the table rows it rests on, or the rule it applies."""
    d = f.details
    if "rows" in d:
        file = d["source"].split("/")[-1].split("#")[0]
        return [f"{f.code} {d['provider']}:{d['target']} {op} ({r['why']}) <- {file}:{r['line'] or 'no row'} @ {d['revision']}" for op, r in sorted(d["rows"].items())]
    if "rule" in d:
        return [f"{f.code} {d['provider']}:{d['target']} <- {d['rule'][-90:]}"]
    if f.probe == "dml_npu":
        return [f"{f.code} <- {d['source']}"]
    if "source" in d:
        return [f"{f.code} {d.get('provider')}:{d.get('target')} <- {d['source']} @ {d.get('revision')}"]
    return [f"{f.code} <- rule of probe {f.probe}"]


def main(argv: list[str]) -> int:
    import provider_corpus

    t0 = time.perf_counter()
    corpus = provider_corpus.build()
    if "--quick" in argv:
        corpus = corpus[::4]
    truth = {label: cpu_truth(path) for label, path in corpus}
    resized = {label: cpu_truth(path, 2) for label, path in corpus if truth[label] is None}
    healthy = [label for label, _ in corpus if truth[label] is None]
    print(f"corpus: {len(corpus)} models built from torch; {len(healthy)} run on onnxruntime's CPU provider, {len(corpus) - len(healthy)} fail there")
    rows, why, noted = [], defaultdict(Counter), defaultdict(Counter)
    cpu_found, cpu_missed, probe_failures, other = [], [], Counter(), Counter()
    for target in TARGETS:
        w = n = t = conf = 0
        for label, path in corpus:
            r = judge(path, target)
            probe_failures[target] += len(r["probe_failed"])
            if truth[label] is None:
                w += len(r["warnings"])
                other.update(f"{target}:{f.code}" for f in r["warnings"] if f not in r["target_warnings"])
                t += len(r["target_warnings"])
                n += len(r["notes"])
                conf += bool(r["diagnoses"])
                if r["diagnoses"]:
                    print(f"  confident diagnosis on healthy {label} for {target}: {r['diagnoses']}")
                for f in r["target_warnings"]:
                    for line in justification(f):
                        why[target][line] += 1
                for f in r["notes"]:
                    for line in justification(f):
                        noted[target][line] += 1
            elif target == "CPUExecutionProvider":
                (cpu_found if (r["diagnoses"] or r["errors"]) else cpu_missed).append(label)
        k = max(1, len(healthy))
        rows.append((target, len(healthy), w / k, t / k, n / k, conf))
    print(f"\n{'target':32s} {'healthy':>7s} {'warn/model':>10s} {'target warn':>11s} {'notes/model':>11s} {'confident':>9s}")
    for target, h, w, t, n, conf in rows:
        print(f"{target:32s} {h:7d} {w:10.2f} {t:11.2f} {n:11.2f} {conf:9d}")
    failing = len(corpus) - len(healthy)
    print(f"\nCPU: {len(cpu_found)} of {failing} failures found (a diagnosis or an error finding); missed: {', '.join(cpu_missed) or 'none'}")
    for label in cpu_found + cpu_missed:
        print(f"  {label}: {truth[label]}")
    baked = {k: v for k, v in resized.items() if v}
    print(f"healthy at the export size but failing at batch 2 / sequence 7 (issue 10 item 4, the session probe's second run): {', '.join(baked) or 'none'}")
    print(f"other probes' warnings on healthy models (not about the target): {dict(other)}")
    print(f"probe.failed findings (other probes' crashes, counted apart): {dict(probe_failures)}")
    print("\nwarnings on healthy models and the source each rests on (models affected):")
    for target in TARGETS:
        for line, count in why[target].most_common():
            print(f"  [{count:2d}] {line}")
    print("\nnotes (fallback predictions) on healthy models and their source (models affected):")
    for target in TARGETS:
        for line, count in noted[target].most_common():
            print(f"  [{count:2d}] {line}")
    print(f"\n{time.perf_counter() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

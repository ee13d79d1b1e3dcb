"""The session probe's second run at other sizes, on real exported models (issue 10, item 4).

    XDG_CACHE_HOME=/tmp/cache nice .venv/bin/python bench/fixed_size.py

Builds bench/provider_corpus.py's models (cached) and diagnoses each with every probe on CPU.
For each model with declared dynamic dimensions it prints whether the second run (batch 2, the
other dynamic dims at another size) passed or found a fixed size, and checks every
session.fixed-size finding against an independent CPU session at the two shapes the finding
names (it must run at the first and fail at the second). Prints the count of fixed sizes found,
of confirmed ones, and the time the second run adds.
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

from diagnoser import diagnose  # noqa: E402


def runs(path: Path, shapes: dict[str, list[int]]) -> bool:
    """An independent session: does the model run at these input shapes?"""
    import numpy as np
    import onnxruntime as ort

    kinds = {"tensor(float)": np.float32, "tensor(float16)": np.float16, "tensor(int64)": np.int64, "tensor(int32)": np.int32}
    sess = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    feeds = {i.name: np.ones(shapes[i.name], dtype=kinds.get(i.type, np.float32)) for i in sess.get_inputs()}
    try:
        sess.run(None, feeds)
        return True
    except Exception:
        return False


def main() -> int:
    import provider_corpus

    corpus = provider_corpus.build()
    found = confirmed = dynamic = 0
    t0 = time.perf_counter()
    for label, path in corpus:
        report = diagnose(model=path)
        ok = next((f for f in report.findings if f.code == "session.ok"), None)
        fixed = [f for f in report.findings if f.code == "session.fixed-size"]
        other = ok.details.get("other_sizes") if ok else None
        if other:
            dynamic += 1
        for f in fixed:
            found += 1
            real = runs(path, f.details["worked"]) and not runs(path, f.details["failed"])
            confirmed += real
            print(f"FIXED {label:38s} {f.severity:7s} {'confirmed' if real else 'NOT CONFIRMED'}: {f.message[:150]}")
        if ok and not fixed:
            print(f"ok    {label:38s} second run: {other or 'no dynamic dims'}")
        elif not ok:
            print(f"-     {label:38s} no session.ok: {[x.code for x in report.findings if x.code.startswith('session.')]}")
    print(f"\n{len(corpus)} models, {dynamic} with dynamic dims tried at another size; fixed sizes found {found}, "
          f"confirmed by an independent session {confirmed} ({time.perf_counter() - t0:.0f} s with every probe)")
    return 0 if found == confirmed else 1


if __name__ == "__main__":
    sys.exit(main())

"""Speed of the folder audit: `diagnose audit DIR --jobs N` against a serial loop over
`diagnoser.diagnose(model=...)`, on a generated folder of small real models (tests.model_folder:
varied ops and dtypes, 3 in 13 broken).

    .venv/bin/python bench/audit_speed.py [--models 208] [--jobs 2] [--probes all|static|both]

Each contender runs in a fresh interpreter and is timed end to end (imports included), so the
figures are what a user waits. Both do the same work per model; the audit adds worker processes
(imports paid once per worker) and the JSON records. Prints models per second.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

SERIAL = """
import sys
from pathlib import Path
from diagnoser import diagnose
from diagnoser.model.audit import find_models
from diagnoser.errors import UserInputError
ok = bad = 0
for p in find_models(sys.argv[1]):
    try:
        report = diagnose(model=p, probes=sys.argv[2])
    except UserInputError:
        bad += 1
        continue
    if any(f.code.startswith("file.") for f in report.findings):  # a file the loader refused
        bad += 1
    else:
        ok += 1
print(ok, bad)
"""


def timed(argv: list[str], env: dict[str, str]) -> tuple[float, str]:
    start = time.perf_counter()
    proc = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=7200)
    took = time.perf_counter() - start
    if proc.returncode not in (0, 1):
        raise SystemExit(f"failed ({proc.returncode}): {' '.join(argv[:4])}...\n{proc.stderr[-2000:]}")
    return took, proc.stdout


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", type=int, default=208)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--probes", choices=["all", "static", "both"], default="both")
    args = ap.parse_args()
    from tests.model_folder import build

    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    with tempfile.TemporaryDirectory(prefix="audit-bench-") as tmp:
        folder = Path(tmp) / "models"
        paths = build(folder, args.models)
        print(f"{len(paths)} models in {folder} ({sum(p.stat().st_size for p in paths) / 1024:.0f} KiB); "
              f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}; python {sys.version.split()[0]}")
        for probes in (["all", "static"] if args.probes == "both" else [args.probes]):
            serial, out = timed([sys.executable, "-c", SERIAL, str(folder), probes], env)
            print(f"probes={probes:6}  serial loop over diagnoser.diagnose: {serial:7.1f} s  {len(paths) / serial:6.2f} models/s  (ok, unreadable: {out.strip()})")
            for jobs in sorted({1, args.jobs}):
                took, out = timed([sys.executable, "-m", "diagnoser", "audit", str(folder), "--jsonl", "--jobs", str(jobs),
                                   "--probes", probes, "--no-progress"], env)
                records = [json.loads(line) for line in out.splitlines()]
                assert len(records) == len(paths), (len(records), len(paths))
                status = {s: sum(r["status"] == s for r in records) for s in sorted({r["status"] for r in records})}
                print(f"probes={probes:6}  diagnose audit --jobs {jobs}:            {took:7.1f} s  {len(paths) / took:6.2f} models/s  "
                      f"x{serial / took:.2f} vs serial  {status}")


if __name__ == "__main__":
    main()

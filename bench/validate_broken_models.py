"""Validation (c): every model of the broken-model set yields its expected finding code.

    .venv/bin/python bench/validate_broken_models.py

Builds tests/fixtures/build_broken_models.py's cases in a temporary folder, diagnoses each
(static probes unless the case asks for the session probe) and prints which codes were found,
plus any finding of error severity that was not expected (a false alarm on a broken model is
still noise).
"""
from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from diagnoser import UserInputError, diagnose  # noqa: E402
from tests.fixtures.build_broken_models import CASES, build  # noqa: E402


def codes_for(name: str, root: Path) -> tuple[set[str], str]:
    _, _, kwargs = CASES[name]
    path = build(name, root)
    kw = {"probes": "static", **kwargs}
    try:
        report = diagnose(model=path, **kw)
    except UserInputError as exc:
        return {exc.code or "user-error"}, str(exc).splitlines()[0][:90]
    top = report.diagnoses[0].id if report.diagnoses else "-"
    return {f.code for f in report.findings}, f"top prediction {top}"


def main() -> None:
    hits = 0
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        for name, (_, expected, _) in CASES.items():
            found, note = codes_for(name, Path(tmp))
            ok = expected in found
            hits += ok
            print(f"{'ok ' if ok else 'MISS'} {name:26s} expected {expected:28s} {note}")
    print(f"\nbroken-model set: {hits}/{len(CASES)} problems found ({time.perf_counter() - t0:.1f} s)")
    sys.exit(0 if hits == len(CASES) else 1)


if __name__ == "__main__":
    main()

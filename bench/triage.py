"""How well triage names the stage, measured on the entries' own example texts.

Each entry states the stage its problem happens at (export, convert, quantize, load, run,
install); triage never sees the entry, only the text. Printed: stage agreement overall and per
stage, the component counts, what the blind set's texts with no entry and out-of-scope texts
(bench/data/blind.yaml, bench/data/out_of_scope.yaml) get (diagnosis, triage, nothing: a triage on
an out-of-scope text is a false alarm), and with --verbose every disagreement. (Component labels are the
blind sets' job: entries carry categories, not components.)

Run: .venv/bin/python bench/triage.py [--verbose]
"""
from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import yaml  # noqa: E402

from diagnoser import diagnose  # noqa: E402
from diagnoser.matching.text import prepare  # noqa: E402
from diagnoser.triage import triage  # noqa: E402
from kb import load  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--verbose", action="store_true")
    args = ap.parse_args()
    db = load(strict=False)
    rows = []
    for doc in db.documents.values():
        e = doc.entry
        if e.retired:
            continue
        for ex in e.examples:
            t = triage(prepare(ex.text).text)
            rows.append((e.id, e.stage, t.stage if t else None, t.component if t else None, ex.text))
    ok = [r for r in rows if r[1] == r[2]]
    none = [r for r in rows if r[2] is None]
    print(f"entry examples: {len(rows)}; triaged {len(rows) - len(none)} ({(len(rows) - len(none)) / len(rows):.1%}); "
          f"stage agrees with the entry's on {len(ok)} ({len(ok) / len(rows):.1%})")
    for stage in sorted({r[1] for r in rows}):
        sel = [r for r in rows if r[1] == stage]
        print(f"  {stage:9s} {sum(1 for r in sel if r[2] == stage):4d}/{len(sel):<4d}")
    print("components named: " + ", ".join(f"{k} {v}" for k, v in Counter(r[3] for r in rows).most_common()))
    blind = yaml.safe_load((ROOT / "bench/data/blind.yaml").read_text(encoding="utf-8"))
    oos = yaml.safe_load((ROOT / "bench/data/out_of_scope.yaml").read_text(encoding="utf-8"))
    for label, items in (("blind texts no entry covers", [it for it in blind if it["expected"] == "missing"]),
                         ("blind out-of-scope texts", [it for it in blind if it["expected"] is None]),
                         ("out_of_scope.yaml texts", oos)):
        reports = [diagnose(text=it["text"]) for it in items]
        tri = [r.triage for r in reports if r.triage is not None]
        print(f"{label}: {len(items)}; diagnosed {sum(1 for r in reports if r.diagnoses)}, triaged {len(tri)}"
              + (": " + ", ".join(f"{c}/{st} {n}" for (c, st), n in Counter((t.component, t.stage) for t in tri).most_common()) if tri else ""))
    if args.verbose:
        for eid, want, got, comp, text in rows:
            if want != got:
                print(f"{eid} want {want} got {got} ({comp}) <- {text.strip().splitlines()[-1][:120]!r}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

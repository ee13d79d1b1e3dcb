"""Blind evaluation: how `diagnose` does on real error texts it has never seen.

bench/data/blind.yaml holds real texts copied verbatim from public issues, none of them in entries/
when they were collected. Each has `expected`:
  - an entry ID (OTxxxx): the entry that should rank first;
  - `missing`: an ONNX problem no entry covers yet (the tool should ideally abstain);
  - null: not about ONNX at all (the tool must abstain).

Figures printed:
  - top-1 accuracy (r.diagnoses[0].id == expected) and top-3 (expected among the first three of
    r.diagnoses + r.candidates) on texts labelled with an existing entry;
  - abstention rate (no r.diagnoses) on out-of-scope texts, and on `missing` texts;
  - every miss with its key line, expected vs got and the top three.

Entries keep growing; a text copied into an entry after collection is no longer blind. Each ONNX
text is compared with entries/*.md (share of its 40-character windows found in one entry file);
texts at or above SEEN_AT are listed and the figures are repeated without them.

Run: .venv/bin/python bench/blind.py [--quiet]
"""
from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from diagnoser import diagnose  # noqa: E402
from kb import load  # noqa: E402

DATA = ROOT / "bench/data/blind.yaml"
SEEN_AT = 0.8  # at collection time every ONNX text was below 0.75
KEY = re.compile(r"error|fail|exception|invalid|unexpected|required|cannot|could not|not supported|unable|"
                 r"no op|not a registered|is not|what\(\)|warning|exceeds|out of|no matching|not found|missing",
                 re.IGNORECASE)


def key_line(text: str, width: int = 150) -> str:
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    pick = next((ln for ln in lines if KEY.search(ln) and not ln.startswith("File ")), None)
    pick = pick or max(lines, key=len, default="")
    return pick if len(pick) <= width else pick[:width - 1] + "…"


def entry_texts() -> dict[str, str]:
    out = {}
    for p in sorted((ROOT / "entries").glob("*.md")):
        t = p.read_text(encoding="utf-8")
        unescaped = t.replace("\\\\", "\\").replace('\\"', '"')  # YAML-quoted examples
        out[p.stem] = " ".join(t.split()) + " " + " ".join(unescaped.split())
    return out


def seen_share(text: str, entries: dict[str, str]) -> tuple[float, str]:
    flat = " ".join(text.split())
    wins = [flat[i:i + 40] for i in range(0, max(1, len(flat) - 39), 4)]
    return max(((sum(w in body for w in wins) / len(wins), eid) for eid, body in entries.items()), default=(0.0, ""))


def run(item: dict) -> dict:
    r = diagnose(text=item["text"])
    ranked = [(d.id, round(d.confidence, 2)) for d in (*r.diagnoses, *r.candidates)]
    return {
        "top1": r.diagnoses[0].id if r.diagnoses else None,
        "top3": [i for i, _ in ranked[:3]],
        "ranked": ranked[:3],
    }


def pct(n: int, d: int) -> str:
    return f"{n}/{d} = {100 * n / d:.1f}%" if d else "n/a"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quiet", action="store_true", help="figures only, no per-text listing")
    args = ap.parse_args()

    items = yaml.safe_load(DATA.read_text(encoding="utf-8"))
    known = set(load(strict=False).documents)
    bad = [it["expected"] for it in items if it["expected"] not in (None, "missing") and it["expected"] not in known]
    if bad:
        print(f"labels that name no existing entry: {sorted(set(bad))}", file=sys.stderr)
        return 2

    labelled = [it for it in items if it["expected"] not in (None, "missing")]
    missing = [it for it in items if it["expected"] == "missing"]
    oos = [it for it in items if it["expected"] is None]
    for it in items:
        it["_r"] = run(it)

    def figures(lab: list[dict], mis: list[dict], out: list[dict], tag: str = "") -> None:
        top1 = [it for it in lab if it["_r"]["top1"] == it["expected"]]
        top3 = [it for it in lab if it["expected"] in it["_r"]["top3"]]
        abstained = [it for it in lab if it["_r"]["top1"] is None]
        wrong = [it for it in lab if it["_r"]["top1"] not in (None, it["expected"])]
        oos_abst = [it for it in out if it["_r"]["top1"] is None]
        miss_abst = [it for it in mis if it["_r"]["top1"] is None]
        print(f"blind set{tag}: {len(lab) + len(mis) + len(out)} texts = {len(lab)} labelled with an entry, "
              f"{len(mis)} `missing`, {len(out)} out-of-scope ({len(known)} entries loaded)")
        print(f"top-1 accuracy (labelled):          {pct(len(top1), len(lab))}")
        print(f"top-3 accuracy (labelled):          {pct(len(top3), len(lab))}")
        print(f"  misses: abstained {len(abstained)}, confidently wrong {len(wrong)}")
        print(f"abstention on out-of-scope texts:   {pct(len(oos_abst), len(out))}")
        print(f"`missing` (no entry fits):          {len(mis)}; tool abstained on {pct(len(miss_abst), len(mis))}")

    figures(labelled, missing, oos)
    bodies = entry_texts()
    seen = []
    for it in labelled + missing:
        share, eid = seen_share(it["text"], bodies)
        if share >= SEEN_AT:
            seen.append((it, share, eid))
    if seen:
        print(f"\n{len(seen)} ONNX text(s) now appear in entries (no longer blind):")
        for it, share, eid in seen:
            print(f"  {share:.2f} {eid}  {it['source']}")
        gone = {id(it) for it, _, _ in seen}
        print()
        figures([it for it in labelled if id(it) not in gone], [it for it in missing if id(it) not in gone], oos,
                " without them")
    else:
        print("(no ONNX text of the set appears in entries: still blind)")

    if args.quiet:
        return 0

    def show(title: str, rows: list[dict]) -> None:
        print(f"\n== {title} ({len(rows)})")
        for it in rows:
            r = it["_r"]
            print(f"- expected {it['expected'] or 'null'} | got {r['top1'] or 'abstain'} | ranked {r['ranked']}")
            print(f"  {it['source']}")
            print(f"  key: {key_line(it['text'])}")
            if it.get("note"):
                print(f"  note: {it['note']}")

    show("labelled, top-1 wrong or abstained", [it for it in labelled if it["_r"]["top1"] != it["expected"]])
    show("out-of-scope texts given a diagnosis", [it for it in oos if it["_r"]["top1"] is not None])
    show("`missing` texts given a diagnosis", [it for it in missing if it["_r"]["top1"] is not None])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

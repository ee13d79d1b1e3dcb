"""Round-3 blind evaluation: `diagnose` on real error texts whose source and wording it has never seen.

bench/data/blind_r3_a.yaml (set A) and blind_r3_b.yaml (set B, scored untouched, never tuned on)
hold real texts collected with the protocol in their headers, each labelled from its thread before
scoring: in_scope, category, entry (an entry ID or null), component, stage (and optional provider,
binding, op, note). Figures (issue 11):
  - share of in-scope texts that an existing entry describes;
  - top-1 / top-3 by entry on those (top-3 = among diagnoses + candidates);
  - category top-1 on all in-scope texts (category of the first diagnosis; an abstention is a miss);
  - confident wrong answers: a top diagnosis whose category is not the label's (for an out-of-scope
    text, any diagnosis), as a share of in-scope texts and of all texts;
  - out-of-scope abstention (no diagnoses);
  - triage: on in-scope texts with no diagnosis, the share whose report.triage names the labelled
    component and stage (a report without `triage` counts as no triage); and triage given on
    out-of-scope texts (a false alarm: the text is not about ONNX).
Contaminated texts (source URL now in entries/, or core line at partial_ratio >= 90 with an entry
example) are flagged and the figures repeated without them.

Run: PYTHONPATH=. python bench/blind_r3.py --set a [--misses] [--json]
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from blind_r3_fresh import core_line, known, stale  # noqa: E402

# every bench/data/blind_r3_X.yaml is set X (a new round's set needs no code)
SETS = {p.stem.removeprefix("blind_r3_"): p for p in sorted((ROOT / "bench/data").glob("blind_r3_*.yaml"))}
COMPONENTS = {"onnxruntime", "torch.onnx", "onnx", "converter", "quantization", "optimizer", "onnxruntime-web", "install"}
STAGES = {"export", "convert", "quantize", "load", "run", "install"}


def check_labels(items: list[dict]) -> list[str]:
    """Labels that cannot be scored: an unknown category, entry, component or stage."""
    from kb import load

    cats = set(yaml.safe_load((ROOT / "entries/categories.yaml").read_text(encoding="utf-8")))
    ids = set(load(strict=False).documents)
    bad = []
    for n, it in enumerate(items):
        lab = it["labels"]
        if lab["in_scope"]:
            if lab.get("category") not in cats:
                bad.append(f"#{n} category {lab.get('category')!r}")
            if lab.get("entry") is not None and lab["entry"] not in ids:
                bad.append(f"#{n} entry {lab['entry']!r}")
            if lab.get("component") not in COMPONENTS or lab.get("stage") not in STAGES:
                bad.append(f"#{n} component/stage {lab.get('component')!r}/{lab.get('stage')!r}")
    return bad


def _field(obj: Any, name: str) -> Any:
    return obj.get(name) if isinstance(obj, dict) else getattr(obj, name, None)


def run(item: dict) -> dict:
    from diagnoser import diagnose

    r = diagnose(text=item["text"])
    ranked = [d.id for d in (*r.diagnoses, *r.candidates)]
    tri = getattr(r, "triage", None)
    return {
        "top1": r.diagnoses[0].id if r.diagnoses else None,
        "cat1": r.diagnoses[0].category if r.diagnoses else None,
        "conf": round(r.diagnoses[0].confidence, 2) if r.diagnoses else None,
        "top3": ranked[:3],
        "triage": None if tri is None else (_field(tri, "component"), _field(tri, "stage")),
    }


def pct(n: int, d: int) -> dict:
    return {"n": n, "of": d, "pct": round(100 * n / d, 1) if d else None}


def figures(items: list[dict]) -> dict:
    ins = [it for it in items if it["labels"]["in_scope"]]
    oos = [it for it in items if not it["labels"]["in_scope"]]
    known_ = [it for it in ins if it["labels"].get("entry")]
    wrong = [it for it in items if it["_r"]["cat1"] is not None and it["_r"]["cat1"] != it["labels"].get("category")]
    silent = [it for it in ins if it["_r"]["top1"] is None]

    def tri_ok(it: dict, part: slice = slice(0, 2)) -> bool:
        got = it["_r"]["triage"]
        want = (it["labels"]["component"], it["labels"]["stage"])
        return got is not None and got[part] == want[part]

    return {
        "texts": len(items), "in_scope": len(ins), "out_of_scope": len(oos),
        "in_scope_with_entry": pct(len(known_), len(ins)),
        "entry_top1": pct(sum(it["_r"]["top1"] == it["labels"]["entry"] for it in known_), len(known_)),
        "entry_top3": pct(sum(it["labels"]["entry"] in it["_r"]["top3"] for it in known_), len(known_)),
        "category_top1": pct(sum(it["_r"]["cat1"] == it["labels"]["category"] for it in ins), len(ins)),
        "confident_wrong_of_in_scope": pct(sum(it["labels"]["in_scope"] for it in wrong), len(ins)),
        "confident_wrong_of_all": pct(len(wrong), len(items)),
        "out_of_scope_abstention": pct(sum(it["_r"]["top1"] is None for it in oos), len(oos)),
        "triage_right": pct(sum(tri_ok(it) for it in silent), len(silent)),
        "triage_component_right": pct(sum(tri_ok(it, slice(0, 1)) for it in silent), len(silent)),
        "triage_stage_right": pct(sum(tri_ok(it, slice(1, 2)) for it in silent), len(silent)),
        "triage_given": pct(sum(it["_r"]["triage"] is not None for it in silent), len(silent)),
        "triage_on_out_of_scope": pct(sum(it["_r"]["triage"] is not None for it in oos), len(oos)),
    }


def show(fig: dict, title: str) -> None:
    print(f"== {title}: {fig['texts']} texts, {fig['in_scope']} in scope, {fig['out_of_scope']} out of scope")
    for key, val in fig.items():
        if isinstance(val, dict):
            p = "n/a" if val["pct"] is None else f"{val['pct']:5.1f}%"
            print(f"  {key.replace('_', ' '):32} {val['n']:4}/{val['of']:<4} {p}")


def misses(items: list[dict]) -> None:
    print("\n== misses (label | got)")
    for it in items:
        lab, r = it["labels"], it["_r"]
        if not lab["in_scope"]:
            ok = r["top1"] is None
        else:
            tri = (lab["component"], lab["stage"])
            ok = r["cat1"] == lab["category"] and (not lab.get("entry") or r["top1"] == lab["entry"])
            ok = ok if r["top1"] is not None else r["triage"] == tri
        if ok:
            continue
        want = f"{lab.get('entry') or '-'} {lab.get('category') or 'out-of-scope'}"
        if lab["in_scope"]:
            want += f" [{lab['component']}/{lab['stage']}]"
        got = f"{r['top1'] or 'abstain'} {r['cat1'] or ''} {r['conf'] or ''} top3={r['top3']} triage={r['triage']}"
        print(f"- {it['source']}{' (contaminated)' if it['_stale'] else ''}\n  want {want}\n  got  {got}")
        print(f"  core: {core_line(it['text'], it.get('core'))[:150]}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--set", choices=sorted(SETS), default="a")
    ap.add_argument("--misses", action="store_true", help="list every text the tool got wrong")
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = ap.parse_args()

    items = yaml.safe_load(SETS[args.set].read_text(encoding="utf-8")) or []
    bad = check_labels(items)
    if bad:
        print("labels that cannot be scored: " + "; ".join(bad), file=sys.stderr)
        return 2
    entries = known(bench=False)
    for it in items:
        it["_r"] = run(it)
        it["_stale"] = stale(it, entries)
    clean = [it for it in items if not it["_stale"]]
    out = {"set": args.set, "all": figures(items), "contaminated": [it["source"] for it in items if it["_stale"]]}
    if len(clean) < len(items):
        out["without_contaminated"] = figures(clean)
    if args.json:
        print(json.dumps(out, indent=2))
        return 0
    show(out["all"], f"set {args.set.upper()}")
    if out["contaminated"]:
        print(f"\n{len(out['contaminated'])} contaminated text(s) (source or wording now in entries/):")
        for it in items:
            if it["_stale"]:
                print(f"  {it['source']}: {'; '.join(it['_stale'])}")
        show(out["without_contaminated"], f"set {args.set.upper()} without contaminated texts")
    else:
        print("(no text of the set is in entries/: still blind)")
    if args.misses:
        misses(items)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Accuracy of text diagnosis on real example texts, and abstention on real non-ONNX texts.

Held-out examples (`holdout: true` in the entries) are excluded from the index the matcher
compares against and were not used to tune signatures or weights. Tuning examples are scored
leave-one-out (the example removed from its own entry first), so neither number is inflated by
an example matching itself.

Run: .venv/bin/python bench/accuracy.py [--verbose]
"""
from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass, replace
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from diagnoser.api import CANDIDATE_THRESHOLD, DIAGNOSIS_THRESHOLD  # noqa: E402
from diagnoser.index import build, example_key  # noqa: E402
from diagnoser.matcher import score  # noqa: E402
from diagnoser.text import prepare  # noqa: E402
from kb import load  # noqa: E402


@dataclass
class Result:
    entry: str
    text: str
    top: list[tuple[str, float]]  # (id, confidence) most likely first

    @property
    def top1(self) -> bool:
        return bool(self.top) and self.top[0][0] == self.entry and self.top[0][1] >= DIAGNOSIS_THRESHOLD

    @property
    def top3(self) -> bool:
        return self.entry in [i for i, c in self.top[:3] if c >= CANDIDATE_THRESHOLD]


def _rank(index, text: str, drop: tuple[str, str] | None = None) -> list[tuple[str, float]]:
    if drop is not None:
        eid, key = drop
        index = replace(index, entries=tuple(
            replace(ce, examples=tuple(x for x in ce.examples if x != key)) if ce.entry.id == eid else ce
            for ce in index.entries))
    return [(c.id, c.confidence) for c in score(index, prepare(text).text)]


def evaluate(verbose: bool = False) -> dict[str, float]:
    db = load(strict=False)
    index = build(db)  # holdout examples are not in it
    held, tuned = [], []
    for doc in db.documents.values():
        if doc.entry.retired:
            continue
        for ex in doc.entry.examples:
            if ex.holdout:
                held.append(Result(doc.entry.id, ex.text, _rank(index, ex.text)))
            else:
                tuned.append(Result(doc.entry.id, ex.text, _rank(index, ex.text, drop=(doc.entry.id, example_key(ex.text)))))
    oos = yaml.safe_load((ROOT / "bench/data/out_of_scope.yaml").read_text(encoding="utf-8"))
    abst = [(o.get("holdout", False), _rank(index, o["text"])) for o in oos]

    def rate(xs, f):
        return sum(1 for x in xs if f(x)) / len(xs) if xs else float("nan")

    figures = {
        "entries": len(db.documents),
        "held_out_examples": len(held),
        "held_out_top1": rate(held, lambda r: r.top1),
        "held_out_top3": rate(held, lambda r: r.top3),
        "tuning_examples": len(tuned),
        "tuning_top1_loo": rate(tuned, lambda r: r.top1),
        "tuning_top3_loo": rate(tuned, lambda r: r.top3),
        "out_of_scope_texts": len(abst),
        "abstention_all": rate(abst, lambda a: not any(c >= DIAGNOSIS_THRESHOLD for _, c in a[1])),
        "abstention_held_out": rate([a for a in abst if a[0]], lambda a: not any(c >= DIAGNOSIS_THRESHOLD for _, c in a[1])),
    }
    calib = calibration([*held, *tuned])
    print(f"entries: {figures['entries']}")
    print(f"held-out examples: {figures['held_out_examples']:4d}  top-1 {figures['held_out_top1']:.1%}  top-3 {figures['held_out_top3']:.1%}")
    print(f"tuning examples:   {figures['tuning_examples']:4d}  top-1 {figures['tuning_top1_loo']:.1%}  top-3 {figures['tuning_top3_loo']:.1%}  (leave-one-out)")
    print(f"out-of-scope texts: {figures['out_of_scope_texts']:3d}  abstained {figures['abstention_all']:.1%}  (held-out part {figures['abstention_held_out']:.1%})")
    print("calibration of the top diagnosis (all examples): confidence bin -> accuracy (n)")
    for lo, hi, n, acc, mean in calib:
        print(f"  [{lo:.1f}, {hi:.1f})  mean conf {mean:.2f}  accuracy {acc:.2f}  (n={n})")
    if verbose:
        for r in [*held, *tuned]:
            if not r.top1:
                print(f"MISS {r.entry}: {r.top[:3]} <- {r.text.strip().splitlines()[-1][:140]!r}")
        for (h, top), o in zip(abst, oos):
            if any(c >= DIAGNOSIS_THRESHOLD for _, c in top):
                print(f"FALSE ALARM {top[:2]} <- {o['source']}")
    return figures


def calibration(results: list[Result]) -> list[tuple[float, float, int, float, float]]:
    bins = [(0.0, 0.5), (0.5, 0.7), (0.7, 0.85), (0.85, 0.95), (0.95, 1.01)]
    rows = []
    for lo, hi in bins:
        sel = [r for r in results if r.top and lo <= r.top[0][1] < hi]
        if sel:
            acc = sum(1 for r in sel if r.top[0][0] == r.entry) / len(sel)
            mean = sum(r.top[0][1] for r in sel) / len(sel)
            rows.append((lo, min(hi, 1.0), len(sel), acc, mean))
    return rows


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--verbose", action="store_true", help="list every miss and false alarm")
    evaluate(parser.parse_args().verbose)

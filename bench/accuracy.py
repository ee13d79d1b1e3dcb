"""Accuracy of text diagnosis on real example texts, and abstention on real non-ONNX texts.

Held-out examples (`holdout: true` in the entries) are excluded from the index the matcher
compares against and were not used to tune signatures or weights. Tuning examples are scored
leave-one-out (the example removed from its own entry first), so neither number is inflated by
an example matching itself.

Leave-one-out still lets an example lean on its siblings: the same thread or the same project
pasted in another comment, or the same binding's wrapper. The source-held-out scores remove every
example of one group from every entry at once, then score that group's examples: grouped by
thread (the source URL), by repository (github owner/name, else the site), and by binding (C#,
Java, JS, Rust, C++, Python, as the text shows it). Signatures cannot be held out (they were
written from these examples), so the same groupings are also scored for the similarity fallback
alone, signatures off: the entry whose examples the text most resembles, ranked first or not.
That figure is what a wording no signature knows would meet.

Run: .venv/bin/python bench/accuracy.py [--verbose]
"""
from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from diagnoser.api import CANDIDATE_THRESHOLD, DIAGNOSIS_THRESHOLD  # noqa: E402
from diagnoser.matching.index import build, example_key  # noqa: E402
from diagnoser.matching.leaveout import Holdout  # noqa: E402
from diagnoser.matching.matcher import score  # noqa: E402
from diagnoser.matching.text import prepare  # noqa: E402
from kb import load  # noqa: E402
from kb.schema import source_thread  # noqa: E402


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
        index = _holdout(index).index_without(next(i for i, ce in enumerate(index.entries) if ce.entry.id == eid), key)
    return [(c.id, c.confidence) for c in score(index, prepare(text).text)]


_HOLDOUTS: dict[int, Holdout] = {}


def _holdout(index) -> Holdout:
    """The index ready to leave examples out without rebuilding it (diagnoser.matching.leaveout)."""
    if id(index) not in _HOLDOUTS:
        _HOLDOUTS[id(index)] = Holdout(index)
    return _HOLDOUTS[id(index)]


_REPO = re.compile(r"https?://(?:www\.)?github\.com/([\w.-]+/[\w.-]+)")
_SITE = re.compile(r"https?://(?:www\.)?([^/\s]+)")
_BINDINGS = (
    ("csharp", re.compile(r"Microsoft\.ML\.OnnxRuntime|OnnxRuntimeException|\.cs:line \d")),
    ("java", re.compile(r"ai\.onnxruntime|OrtException|\.java:\d|java\.lang\.")),
    ("js", re.compile(r"onnxruntime-(?:web|node|react-native)|ort(?:\.min)?\.js|\.m?js:\d|Uncaught|\bwasm\b|WebGPU|WebGL", re.I)),
    ("rust", re.compile(r"\bort::|Result::unwrap|panicked at|\.rs:\d")),
    ("cpp", re.compile(r"Ort::Exception|terminate called|what\(\)|libc\+\+abi|\.cpp\(\d")),
    ("python", re.compile(r"Traceback|\.py\W|onnxruntime_pybind11_state|\b\w+Error: ")),
)


def source_groups(source: str, text: str) -> dict[str, str]:
    """The thread, repository and binding an example belongs to."""
    repo = _REPO.search(source) or _SITE.search(source)
    binding = next((name for name, rx in _BINDINGS if rx.search(text)), "other")
    return {
        "thread": source_thread(source) or "reproduction",
        "repository": repo.group(1).lower() if repo else "reproduction",
        "binding": binding,
    }


def fallback_rank(index, text: str) -> list[tuple[str, float]]:
    """The similarity fallback alone: entries by their examples' similarity to the text."""
    from diagnoser.matching.matcher import _example_similarity, decisive_text
    try:
        from diagnoser.matching.text import core_view
    except ImportError:  # releases before the wrapper-free view
        def core_view(t: str) -> str:
            return t
    prepared = prepare(text).text
    try:
        decisive = decisive_text(core_view(prepared), set(), prepared)
    except TypeError:  # releases whose decisive_text takes no raw text
        decisive = decisive_text(core_view(prepared), set())
    sims = _example_similarity(index, decisive)
    ids = [ce.entry.id for ce in index.entries]
    return [(ids[i], 1.0) for i, _ in sorted(sims.items(), key=lambda kv: -kv[1])]


def held_out_by(index, examples: list[tuple[str, str, dict[str, str]]], kind: str, rank=None) -> list[Result]:
    """Score each example with every example of its group (thread, repository, binding, or
    itself for "example") removed from every entry first."""
    by: dict[str, list[tuple[str, str]]] = {}
    for n, (eid, text, groups) in enumerate(examples):
        by.setdefault(groups[kind] if kind != "example" else str(n), []).append((eid, text))
    out = []
    for members in by.values():
        reduced = _holdout(index).index_without_keys({example_key(t) for _, t in members})
        rank = rank or (lambda idx, t: [(c.id, c.confidence) for c in score(idx, prepare(t).text)])
        out += [Result(eid, text, rank(reduced, text)) for eid, text in members]
    return out


def evaluate(verbose: bool = False) -> dict[str, float]:
    db = load(strict=False)
    index = build(db)  # holdout examples are not in it
    held, tuned, grouped = [], [], []
    for doc in db.documents.values():
        if doc.entry.retired:
            continue
        for ex in doc.entry.examples:
            if not ex.holdout:
                grouped.append((doc.entry.id, ex.text, source_groups(ex.source, ex.text)))
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
    by_source = {kind: held_out_by(index, grouped, kind) for kind in ("thread", "repository", "binding")}
    for kind, results in by_source.items():
        figures[f"source_held_out_{kind}_top1"] = rate(results, lambda r: r.top1)
        figures[f"source_held_out_{kind}_top3"] = rate(results, lambda r: r.top3)
    wrapper_only = wrapper_alarms(index, db)
    figures["wrapper_only_texts"] = len(wrapper_only)
    figures["wrapper_only_diagnosed"] = sum(1 for _, top in wrapper_only if top)
    calib = calibration([*held, *tuned])
    print(f"entries: {figures['entries']}")
    print(f"held-out examples: {figures['held_out_examples']:4d}  top-1 {figures['held_out_top1']:.1%}  top-3 {figures['held_out_top3']:.1%}")
    print(f"tuning examples:   {figures['tuning_examples']:4d}  top-1 {figures['tuning_top1_loo']:.1%}  top-3 {figures['tuning_top3_loo']:.1%}  (leave-one-out)")
    groups = {kind: len({g[kind] for _, _, g in grouped}) for kind in by_source}
    for kind in by_source:
        print(f"  held out by {kind + ':':11s} top-1 {figures[f'source_held_out_{kind}_top1']:.1%}  top-3 "
              f"{figures[f'source_held_out_{kind}_top3']:.1%}  ({groups[kind]} groups, each removed from every entry)")
    fallback = {kind: held_out_by(index, grouped, kind, fallback_rank) for kind in ("example", "thread", "repository", "binding")}
    for kind, results in fallback.items():
        figures[f"fallback_{kind}_top1"] = rate(results, lambda r: bool(r.top) and r.top[0][0] == r.entry)
    print("  similarity fallback alone (signatures off), ranks own entry first: " + ", ".join(
        f"held out by {kind} {figures[f'fallback_{kind}_top1']:.1%}" for kind in fallback))
    bindings: dict[str, int] = {}
    for _, _, g in grouped:
        bindings[g["binding"]] = bindings.get(g["binding"], 0) + 1
    print("  bindings: " + ", ".join(f"{k} {v}" for k, v in sorted(bindings.items(), key=lambda kv: -kv[1])))
    print(f"wrapper-only texts (an example's wrapper line, cut after 'Status Message:' / 'failed:'): {figures['wrapper_only_texts']}  "
          f"diagnosed {figures['wrapper_only_diagnosed']} (only a node whose name says who made it should be: an execution provider's "
          f"partition node, CoreML_*/TRTKernel_*, or quantize_static's calibrator node <tensor>_ReduceMax(_Reshape))")
    print(f"out-of-scope texts: {figures['out_of_scope_texts']:3d}  abstained {figures['abstention_all']:.1%}  (held-out part {figures['abstention_held_out']:.1%})")
    print("calibration of the top diagnosis (all examples): confidence bin -> accuracy (n)")
    for lo, hi, n, acc, mean in calib:
        print(f"  [{lo:.2f}, {hi:.2f})  mean conf {mean:.2f}  accuracy {acc:.2f}  (n={n})")
    if verbose:
        for text, top in wrapper_only:
            if top:
                print(f"WRAPPER ALONE {top[:1]} <- {text[-140:]!r}")
        for r in [*held, *tuned]:
            if not r.top1:
                print(f"MISS {r.entry}: {r.top[:3]} <- {r.text.strip().splitlines()[-1][:140]!r}")
        for (h, top), o in zip(abst, oos):
            if any(c >= DIAGNOSIS_THRESHOLD for _, c in top):
                print(f"FALSE ALARM {top[:2]} <- {o['source']}")
    return figures


_CUT = re.compile(r"^.*?(?:Status Message:|Load model from \S+ failed:)", re.S)


def wrapper_alarms(index, db) -> list[tuple[str, list[tuple[str, float]]]]:
    """Each example cut just after onnxruntime's shared wrapper ('... running X node. Name:'n'
    Status Message:', 'Load model from p failed:'), with the diagnoses it still gets: the
    wrapper names no problem, so any diagnosis there is a confident answer from nothing."""
    out, seen = [], set()
    for doc in db.documents.values():
        if doc.entry.retired:
            continue
        for ex in doc.entry.examples:
            m = _CUT.match(ex.text)
            if not m or m.group(0) in seen or "NO_SUCHFILE" in m.group(0):  # that status names the problem
                continue
            line = m.group(0).rsplit("\n", 1)[-1]  # the wrapper's own line, nothing before it
            seen.add(m.group(0))
            top = [(i, c) for i, c in _rank(index, line) if c >= DIAGNOSIS_THRESHOLD]
            out.append((line, top))
    return out


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

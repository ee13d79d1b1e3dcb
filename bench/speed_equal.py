"""A speed change must not change any answer: diagnose every text on old and new code, compare.

The texts: every example of every entry (holdout ones too), every text of
bench/data/blind_r3_*.yaml and bench/data/out_of_scope.yaml. For each, the full ranked result is
recorded: every candidate score() returns (ID, probability, confidence, line, evidence, facts),
and the report diagnose() makes of it (diagnoses, candidates, notes, facts, triage), as JSON.

Run: .venv/bin/python bench/speed_equal.py --against main
  exports the code of REF (git archive) to a temporary folder, runs the same collection there
  on this tree's entries/ (ONNX_KB_ENTRIES), runs it here twice (building the disk caches, then
  reading them), and lists every text whose result differs; exit 1 if any does. Every run hashes
  alike (PYTHONHASHSEED=0), so results are compared to the last bit. --write FILE only writes this tree's results (JSON lines).
"""
from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def texts(root: Path = ROOT) -> list[tuple[str, str]]:
    """(label, text) of every entry example, blind-set text and out-of-scope text."""
    import yaml

    out = []
    for path in sorted((root / "entries").glob("*.md")):
        head = re.match(r"---\n(.*?)\n---\n", path.read_text(encoding="utf-8"), re.S)
        if not head:
            continue
        front = yaml.safe_load(head.group(1)) or {}
        for n, ex in enumerate(front.get("examples") or []):
            out.append((f"{path.stem}#{n}", ex["text"] if isinstance(ex, dict) else ex))
    data = root / "bench" / "data"
    for path in [*sorted(data.glob("blind_r3_*.yaml")), data / "out_of_scope.yaml"]:
        for n, item in enumerate(yaml.safe_load(path.read_text(encoding="utf-8")) or []):
            out.append((f"{path.stem}#{n}", item["text"]))
    return out


def result(text: str) -> dict:
    """Everything an answer is made of, as plain data (no timing, no versions)."""
    from dataclasses import asdict

    from diagnoser.api import diagnose
    from diagnoser.matching.index import default_index
    from diagnoser.matching.matcher import score
    from diagnoser.renderers import json as renderer
    from diagnoser.matching.text import prepare

    ranked = [
        {"id": c.id, "p": c.probability, "confidence": c.confidence, "line": c.line, "facts": c.facts,
         "evidence": [asdict(e) for e in c.evidence]}
        for c in score(default_index(), prepare(text).text)
    ]
    report = json.loads(renderer.render(diagnose(text=text)))
    report.get("input", {}).pop("versions", None)
    return {"score": ranked, "report": report}


def collect(out: Path) -> None:
    with out.open("w", encoding="utf-8") as fh:
        for label, text in texts():
            fh.write(json.dumps({"label": label, "result": result(text)}, ensure_ascii=False, sort_keys=True) + "\n")


def _read(path: Path) -> dict[str, dict]:
    rows = [json.loads(ln) for ln in path.read_text(encoding="utf-8").splitlines() if ln]
    return {r["label"]: r["result"] for r in rows}


def compare(old: dict[str, dict], new: dict[str, dict]) -> list[str]:
    """Labels whose results differ (or that only one side has)."""
    return sorted(k for k in old.keys() | new.keys() if old.get(k) != new.get(k))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--against", metavar="REF", help="git ref of the old code (e.g. main)")
    ap.add_argument("--write", metavar="FILE", help="only write this tree's results")
    args = ap.parse_args()
    if args.write:
        sys.path.insert(0, os.environ.get("SPEED_EQUAL_CODE", str(ROOT)))
        collect(Path(args.write))
        return 0
    if not args.against:
        ap.error("give --against REF or --write FILE")
    with tempfile.TemporaryDirectory() as tmp:
        old_code = Path(tmp) / "old"
        old_code.mkdir()
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", args.against, "diagnoser", "kb"],
                                 check=True, capture_output=True).stdout
        archive_path = Path(tmp) / "old.tar"
        archive_path.write_bytes(archive)
        with tarfile.open(archive_path) as tar:
            tar.extractall(old_code)
        runs = {}
        # the new code twice: once building its disk caches, once reading them
        for name, code, cache in (("old", old_code, "old"), ("new", ROOT, "new"), ("new, caches warm", ROOT, "new")):
            out = Path(tmp) / f"{name}.jsonl"
            env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(code), *sys.path[1:]]), "SPEED_EQUAL_CODE": str(code),
                   "ONNX_KB_ENTRIES": str(ROOT / "entries"), "XDG_CACHE_HOME": str(Path(tmp) / f"cache-{cache}"),
                   "PYTHONDONTWRITEBYTECODE": "1",
                   # set iteration order follows string hashes, and some sums run over sets: the
                   # last bits of a probability differ from process to process unless both
                   # processes hash alike
                   "PYTHONHASHSEED": "0"}
            subprocess.run([sys.executable, str(Path(__file__).resolve()), "--write", str(out)], env=env, check=True)
            runs[name] = _read(out)
    bad = 0
    for name in ("new", "new, caches warm"):
        differ = compare(runs["old"], runs[name])
        print(f"{len(runs[name])} texts; old code {args.against}, {name} (this tree): {len(differ)} differ")
        for label in differ[:50]:
            print(f"  {label}")
        bad += len(differ)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

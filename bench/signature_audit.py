"""Signatures no example of their own entry shows: strong claims the database cannot back.

A signature weighted at or above --min-weight diagnoses on its own. When none of its entry's
real example texts matches it, nothing in the database shows that the line it reads belongs to
that problem alone; that is how TensorRT's `getPluginCreator` line (printed while deserialising
an engine too) and onnxruntime's `disabled_optimizers` skew came to be read as one cause each
(round 9). Printed: one row per such signature (weight, entry, category, pattern), strongest
first, and the count. Each row wants a real example, a lower weight, or context.

Run: .venv/bin/python bench/signature_audit.py [--min-weight 0.5]
"""
from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from diagnoser.matching.text import prepare, unwrapped_views  # noqa: E402
from kb import load  # noqa: E402


def unbacked(min_weight: float) -> tuple[list[tuple[float, str, str, str]], int]:
    """(weight, entry id, category, pattern) of each active signature at or above min_weight
    that no example of its own entry matches (as the matcher reads it: prepared, wraps joined),
    and how many active signatures are at or above min_weight."""
    db = load(strict=False)
    rows, total = [], 0
    for doc in db.documents.values():
        entry = doc.entry
        if entry.retired:
            continue
        texts = []
        for ex in entry.examples:
            text = prepare(ex.text).text
            texts += [text, *(view for view, _ in unwrapped_views(text))]
        for sig in entry.signatures:
            if sig.weight < min_weight:
                continue
            total += 1
            rx = re.compile(sig.pattern, re.I if sig.ignore_case else 0)
            if not any(rx.search(t) for t in texts):
                rows.append((sig.weight, entry.id, entry.category, sig.pattern))
    return sorted(rows, key=lambda r: (-r[0], r[1])), total


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--min-weight", type=float, default=0.5, help="audit signatures at or above this weight")
    args = ap.parse_args()
    rows, total = unbacked(args.min_weight)
    for weight, eid, category, pattern in rows:
        print(f"{weight:.2f}  {eid}  {category:28}  {pattern[:100]}")
    print(f"{len(rows)} of {total} signatures weighted >= {args.min_weight} match no example of their own entry")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

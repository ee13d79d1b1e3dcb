"""Is a blind text fresh? The round-3 collection protocol (issue 11), as a check that can fail.

A text is not fresh when its source URL already appears anywhere in entries/ or bench/data/
(other than the blind_r3 sets themselves), or when its core error line is at rapidfuzz
fuzz.partial_ratio >= 90 with an example text of an entry (front matter `examples`, body included)
or a text of another bench/data set. The same test flags texts of the blind sets that later
became contaminated (an entry written afterwards took their source or wording).

Run: python bench/blind_r3_fresh.py [--rev REV] [--set f] [bench/data/blind_r3_a.yaml ...]  (exit 1 when one is stale)
--set X checks bench/data/blind_r3_X.yaml (the same as naming that path).
--also DIR (repeatable) adds the entries/ and bench/data/ of another checkout, e.g. the helpers'
worktrees whose entries are being written while a set is collected.
--with-blind also counts the texts of the other blind_r3 sets (those not being checked), so a new
set repeats no wording of an earlier one.
--rev REV checks against entries/ and bench/data/ as they were at git revision REV (for instance the
commit the sets were collected on), instead of the working tree.
"""
from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
THRESHOLD = 90
OURS = re.compile(r"blind_r3_[a-z]\.yaml$")
MARK = re.compile(r"error|exception|fail|invalid|unexpected|cannot|can't|could not|couldn't|not supported|"
                  r"unsupported|unable|not implemented|what\(\)|not found|missing|no such|illegal|abort|"
                  r"segmentation|refused|denied|mismatch|错误|失败|异常", re.IGNORECASE)
NOISE = re.compile(r'^(File "|at |Traceback|\^|~|[-=*#]{3,}$|return |raise )')
URL = re.compile(r"https?://[^\s\"'<>)\]]+")


def norm(s: str) -> str:
    return " ".join(s.split())


def core_line(text: str, override: str | None = None) -> str:
    """The line that carries the error: the longest marked line (traceback frames skipped)."""
    if override:
        return norm(override)
    lines = [norm(ln) for ln in text.splitlines() if ln.strip()]
    marked = [ln for ln in lines if MARK.search(ln) and not NOISE.match(ln)]
    pick = max(marked or lines or [""], key=len)
    return pick[:400]


@dataclass(frozen=True)
class Known:
    texts: list[tuple[str, str]]  # (where, example text)
    corpus: str  # every entry and bench file, flattened, for URL look-ups


def _entry_examples(path: Path) -> list[str]:
    raw = path.read_text(encoding="utf-8")
    out = []
    parts = raw.split("---", 2)
    if len(parts) == 3:
        try:
            front = yaml.safe_load(parts[1]) or {}
        except yaml.YAMLError:
            front = {}
        out += [str(e.get("text", "")) for e in front.get("examples") or [] if isinstance(e, dict)]
        body = parts[2]
        out += re.findall(r"```(?:text|console|pytb|python-traceback)?\n(.*?)```", body, re.DOTALL)
    return [t for t in out if t.strip()]


def _bench_texts(path: Path) -> list[str]:
    data = yaml.safe_load(path.read_text(encoding="utf-8")) or []
    items = data if isinstance(data, list) else data.get("items", [])
    return [str(it.get("text", "")) for it in items if isinstance(it, dict) and it.get("text")]


def known(root: Path = ROOT, bench: bool = True) -> Known:
    """Every example text of the project; bench=False: the entries only (contamination check)."""
    texts, chunks = [], []
    for p in sorted((root / "entries").rglob("*.md")):
        chunks.append(p.read_text(encoding="utf-8"))
        texts += [(p.stem, t) for t in _entry_examples(p)]
    for p in sorted((root / "bench/data").glob("*.yaml")) if bench else ():
        if OURS.search(p.name):
            continue
        chunks.append(p.read_text(encoding="utf-8"))
        texts += [(p.name, t) for t in _bench_texts(p)]
    return Known(texts=[(w, norm(t)) for w, t in texts], corpus="\n".join(chunks))


def stale(item: dict, k: Known) -> list[str]:
    """Why the item is not fresh (empty list: fresh)."""
    from rapidfuzz import fuzz

    why = []
    src = str(item.get("source", "")).strip()
    if src and re.search(re.escape(src.rstrip("/")) + r"(?![0-9A-Za-z_-])", k.corpus):
        why.append(f"source already in the project: {src}")
    core = core_line(item.get("text", ""), item.get("core"))
    if len(core) >= 12:
        for where, t in k.texts:
            s = fuzz.partial_ratio(core, t, score_cutoff=THRESHOLD)
            if s:
                why.append(f"core line at {s:.0f} with an example of {where}")
                break
    return why


def _args(argv: list[str]) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description="Check that blind texts are fresh (exit 1 when one is stale).")
    ap.add_argument("paths", nargs="*", type=Path, help="blind set files (default: every blind_r3_*.yaml)")
    ap.add_argument("--set", action="append", default=[], metavar="X", help="bench/data/blind_r3_X.yaml")
    ap.add_argument("--also", action="append", default=[], type=Path, metavar="DIR",
                    help="another checkout whose entries/ and bench/data/ count as known")
    ap.add_argument("--with-blind", action="store_true", help="count the other blind sets' texts as known")
    ap.add_argument("--rev", help="check against entries/ and bench/data/ at this git revision")
    ap.add_argument("--line", nargs="+", metavar="TEXT", help="probe candidate core lines and exit")
    return ap.parse_args(argv)


def main(argv: list[str]) -> int:
    a = _args(argv)
    if a.line:  # probe candidate core lines before copying a text
        k = known()
        for line in a.line:
            print(stale({"text": line}, k) or "fresh", "|", line[:80])
        return 0
    rev, also, with_blind = a.rev, a.also, a.with_blind
    paths = [*a.paths, *(ROOT / f"bench/data/blind_r3_{x}.yaml" for x in a.set)]
    paths = paths or sorted((ROOT / "bench/data").glob("blind_r3_*.yaml"))
    if missing := [str(q) for q in paths if not q.is_file()]:
        raise SystemExit(f"blind_r3_fresh: no such set file: {', '.join(missing)}")
    if rev:  # the project as it was at that revision
        tmp = tempfile.mkdtemp(prefix="blind-rev-")
        tar = subprocess.run(["git", "-C", str(ROOT), "archive", rev, "entries", "bench/data"],
                             check=True, capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", tmp], input=tar, check=True)
        k = known(Path(tmp))
    else:
        k = known()
    for extra in also:
        if (extra / "entries").is_dir():
            x = known(extra)
            k = Known(texts=list(dict.fromkeys(k.texts + x.texts)), corpus=k.corpus + "\n" + x.corpus)
    if with_blind:
        checked = {q.resolve() for q in paths}
        for q in sorted((ROOT / "bench/data").glob("blind_r3_*.yaml")):
            if q.resolve() not in checked:
                k = Known(texts=k.texts + [(q.name, norm(t)) for t in _bench_texts(q)], corpus=k.corpus)
    bad = 0
    seen: dict[str, str] = {}
    for p in paths:
        items = yaml.safe_load(p.read_text(encoding="utf-8")) or []
        for n, it in enumerate(items):
            why = stale(it, k)
            core = core_line(it.get("text", ""), it.get("core"))
            if core in seen:  # allowed (one line, two problems), but worth a look
                print(f"note: {p.name}#{n} has the same core line as {seen[core]}")
            seen.setdefault(core, f"{p.name}#{n}")
            if why:
                bad += 1
                print(f"{p.name}#{n} {it.get('source')}: " + "; ".join(why))
        print(f"{p.name}: {len(items)} texts checked")
    print(f"{bad} not fresh" if bad else "all fresh")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

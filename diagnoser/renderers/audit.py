"""The folder audit in a terminal: one line per model that has something to say, then a summary
by status, by finding code and by entry, all within the width given (80 columns included).

Reads audit records (plain dicts, see diagnoser.model.audit); info findings (versions, dtype census)
are left out of the tables: every model has them.
"""
from __future__ import annotations

from collections import Counter
from typing import Any

from kb.termtext import cells, wrap

_RANK = {"info": 0, "warning": 1, "error": 2}


def _clip(text: str, room: int) -> str:
    if cells(text) <= room:
        return text
    out, used = "", 0
    for ch in text:
        if used + cells(ch) > room - 1:
            break
        out, used = out + ch, used + cells(ch)
    return out + "…"


def _pad(text: str, n: int) -> str:
    return text + " " * max(0, n - cells(text))


def model_line(rec: dict[str, Any], width: int = 80) -> list[str]:
    """What one model needs said: its path and status, then its diagnoses and its
    warning/error findings (nothing for a clean model)."""
    serious = [f for f in rec["findings"] if _RANK.get(f["severity"], 0) >= 1]
    if rec["status"] == "ok" and not serious and not rec["diagnoses"]:
        return []
    worst = max((f["severity"] for f in serious), key=lambda s: _RANK[s], default="ok")
    head = f"{rec['path']}  [{rec['status'] if rec['status'] != 'ok' else worst}]"
    out = wrap(head, width, "", "    ")
    for d in rec["diagnoses"]:
        out += wrap(f"{d['id']} {d['title']} ({d['confidence']:.0%})", width, "  = ", "    ")
    for f in serious:
        out += wrap(f"{f['code']}: {f['message']}", width, "  * ", "    ")
    return out


def summary(records: list[dict[str, Any]], width: int = 80, seconds: float | None = None) -> str:
    """The end-of-audit tables: models by status, models by finding code, models by entry."""
    width = max(40, width)
    status = Counter(r["status"] for r in records)
    lines = [f"{len(records)} models: " + ", ".join(f"{n} {s}" for s, n in sorted(status.items(), key=lambda x: (x[0] != "ok", x[0])))
             + (f" in {seconds:.1f} s ({len(records) / seconds:.2f}/s)" if seconds and records else "")]
    by_code: Counter[tuple[str, str]] = Counter()
    pages: dict[str, str] = {}
    for r in records:
        for code, sev, ids in {(f["code"], f["severity"], tuple(f.get("entries") or ())) for f in r["findings"] if _RANK.get(f["severity"], 0) >= 1}:
            by_code[(code, sev)] += 1
            if ids:
                pages.setdefault(code, ids[0])
    if by_code:
        lines += ["", _pad("finding", 36) + _pad("severity", 10) + _pad("models", 8) + "entry"]
        lines.append("-" * min(width, 62))
        for (code, sev), n in sorted(by_code.items(), key=lambda x: (-_RANK[x[0][1]], -x[1], x[0][0])):
            lines.append(_pad(_clip(code, 35), 36) + _pad(sev, 10) + _pad(str(n), 8) + pages.get(code, ""))
    by_entry: Counter[str] = Counter()
    titles: dict[str, str] = {}
    for r in records:
        for d in r["diagnoses"]:
            by_entry[d["id"]] += 1
            titles[d["id"]] = d["title"]
    if by_entry:
        lines += ["", _pad("entry", 8) + _pad("models", 8) + "title", "-" * min(width, 62)]
        for eid, n in sorted(by_entry.items(), key=lambda x: (-x[1], x[0])):
            lines.append(_pad(eid, 8) + _pad(str(n), 8) + _clip(titles[eid], width - 16))
        lines += ["", f"read an entry: kb show {sorted(by_entry, key=lambda e: -by_entry[e])[0]}"]
    if not by_code and not by_entry:
        lines += ["", "no warning, error or known problem in these models"]
    return "\n".join(lines) + "\n"

"""GitHub Actions workflow commands: one `::error file=...::message` line per problem, so a
model-linting step annotates the files it checked. Reads audit records (diagnoser.model.audit)."""
from __future__ import annotations

from typing import Any

_LEVEL = {"error": "error", "warning": "warning", "info": "notice"}


def _data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _prop(text: str) -> str:
    return _data(text).replace(":", "%3A").replace(",", "%2C")


def _line(level: str, path: str | None, title: str, message: str) -> str:
    props = ",".join(p for p in (f"file={_prop(path)}" if path else "", f"title={_prop(title)}") if p)
    return f"::{level} {props}::{_data(message)}"


def render(records: list[dict[str, Any]], include_info: bool = False) -> str:
    lines = []
    for rec in records:
        path = rec.get("path")
        for d in rec.get("diagnoses", []):
            read = d.get("doc") or d.get("explain") or f"kb show {d['id']}"
            lines.append(_line("error", path, f"{d['id']} {d['title']}", f"{d['title']} (confidence {d['confidence']:.0%}). Fix: {d.get('fix', '')} Read: {read}"))
        for f in rec.get("findings", []):
            if f["severity"] == "info" and not include_info:
                continue
            entry = (f.get("entries") or [None])[0]
            more = f" (see {f.get('doc') or 'kb show ' + entry})" if entry else ""
            lines.append(_line(_LEVEL.get(f["severity"], "notice"), path, f["code"], f["message"] + more))
    return "\n".join(lines) + ("\n" if lines else "")

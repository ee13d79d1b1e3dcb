"""SARIF 2.1.0 for code scanning: rules are the finding codes and the entries, results point
at the model files. Reads audit records (diagnoser.model.audit.record), one per model.

A rule's help links to its entry's page when one is built or configured (diagnoser.links);
otherwise its help text says `kb show ID`, which always works offline.
"""
from __future__ import annotations

import json
from pathlib import PurePath
from typing import Any

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
_LEVEL = {"error": "error", "warning": "warning", "info": "note"}
_STATUS_HELP = {
    "audit.unreadable": "The model file could not be read as ONNX.",
    "audit.worker-crashed": "The audit worker died while probing this model (a crash in a library it loads).",
    "audit.timeout": "Probing this model took longer than the audit's time limit.",
    "audit.internal-error": "The diagnoser failed on this model: please report it as a bug.",
}


def _uri(path: str) -> str:
    p = PurePath(path)
    return p.as_posix() if not p.is_absolute() else p.as_uri()


def _rule(rule_id: str, short: str, full: str | None, doc: str | None, explain: str | None) -> dict[str, Any]:
    rule: dict[str, Any] = {"id": rule_id, "shortDescription": {"text": short}}
    if full:
        rule["fullDescription"] = {"text": full}
    if doc:
        rule["helpUri"] = doc
    if explain:
        rule["help"] = {"text": f"Run `{explain}` for the cause and the fix" + (f", or read {doc}" if doc else "") + "."}
    return rule


def render(records: list[dict[str, Any]], version: str = "0") -> str:
    rules: dict[str, dict[str, Any]] = {}
    results: list[dict[str, Any]] = []
    for rec in records:
        where = [{"physicalLocation": {"artifactLocation": {"uri": _uri(rec["path"])}}}] if rec.get("path") else []
        for d in rec.get("diagnoses", []):
            rules.setdefault(d["id"], _rule(d["id"], d["title"], d.get("summary"), d.get("doc"), d.get("explain") or f"kb show {d['id']}"))
            text = f"{d['id']} {d['title']} (confidence {d['confidence']:.0%}). Fix: {d.get('fix', '')}".rstrip(". ") + "."
            results.append({"ruleId": d["id"], "level": "error", "message": {"text": text}, "locations": where})
        for f in rec.get("findings", []):
            if f["severity"] == "info":
                continue
            entry = (f.get("entries") or [None])[0]
            short = _STATUS_HELP.get(f["code"], f"Probe finding {f['code']}" + (f", explained by {', '.join(f['entries'])}" if f.get("entries") else ""))
            rule = _rule(f["code"], short, None, f.get("doc"), f"kb show {entry}" if entry else None)
            if not entry and f["code"] not in _STATUS_HELP:  # no entry is confirmed by this code alone
                rule["help"] = {"text": "Run `diagnose --model FILE` for the full report: the entries this finding supports and their fixes."}
            rules.setdefault(f["code"], rule)
            msg = f["message"] + (f" (node {f['node']})" if f.get("node") else "")
            results.append({"ruleId": f["code"], "level": _LEVEL.get(f["severity"], "note"), "message": {"text": msg}, "locations": where})
    index = {rid: i for i, rid in enumerate(rules)}
    for r in results:
        r["ruleIndex"] = index[r["ruleId"]]
    log = {
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "onnx-troubleshooter", "version": version, "rules": list(rules.values())}},
            "results": results,
        }],
    }
    return json.dumps(log, indent=2, ensure_ascii=False) + "\n"

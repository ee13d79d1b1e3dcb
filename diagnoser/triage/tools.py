"""The tool registry (diagnoser/data/triage_tools.yaml): the ONNX ecosystem's tools, each with
the component and stage its failures belong to and the marks only that tool leaves in a text.

A tool is recognised by its own invariant marks (module paths, source files, log prefixes,
exception classes, binaries), never by one thread's wording, so that a wording not yet seen is
still triaged. classify.py turns each tool into phrase groups; this module also says which tool
a text names (the triage's `tool` fact), the tool's own next step, and whether a log ends with
the tool's own line that the run succeeded.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from diagnoser.model.datafiles import table
from diagnoser.triage.vocabulary import COMPONENTS, STAGES


@dataclass(frozen=True)
class Tool:
    """One registry row, compiled: `rx` its marks (its frame patterns included), `install` the
    marks of its own package failing to load, `frames` its files in a traceback."""

    name: str
    title: str
    component: str
    stage: str | None
    onnx_only: bool
    rx: re.Pattern[str]
    install: re.Pattern[str] | None
    frames: re.Pattern[str] | None
    unless: re.Pattern[str] | None
    over_frames: bool
    steps: tuple[str, str] | None
    writes_onnx: bool = False  # a converter from another framework to ONNX (else a converter row reads ONNX)

    @property
    def reads_onnx(self) -> bool:
        """An importer or compiler of ONNX files (its step is about the ops it supports)."""
        return self.component == "converter" and self.stage == "convert" and not self.writes_onnx


def _either(patterns: list[str]) -> re.Pattern[str] | None:
    return re.compile("|".join(f"(?:{p})" for p in patterns), re.I) if patterns else None


@lru_cache(maxsize=1)
def tools() -> tuple[Tool, ...]:
    """The registry's tools in file order (most specific first where two could match)."""
    out = []
    for row in table("triage_tools")["tools"]:
        markers, frames = list(row.get("markers", [])), list(row.get("frames", []))
        rx = _either(markers + frames)
        steps = row.get("steps")
        if (rx is None or row.get("component") not in COMPONENTS or row.get("stage") not in (None, *STAGES)
                or not row.get("source") or (steps is not None and len(steps) != 2)):
            raise ValueError(f"triage_tools.yaml: tool {row.get('name')!r} is malformed")
        out.append(Tool(row["name"], row.get("title", row["name"]), row["component"], row.get("stage"),
                        bool(row.get("onnx_only", False)), rx, _either(row.get("install", [])), _either(frames),
                        _either([row["unless"]]) if row.get("unless") else None, bool(row.get("over_frames", False)),
                        tuple(steps) if steps else None, bool(row.get("writes_onnx", False))))
    return tuple(out)


def named(text: str, component: str | None = None) -> Tool | None:
    """The first tool whose marks are in the text (and, given one, that belongs to component)."""
    for t in tools():
        if (component is None or t.component == component) and t.rx.search(text) and not (t.unless and t.unless.search(text)):
            return t
    return None


def by_name(name: str) -> Tool | None:
    return next((t for t in tools() if t.name == name), None)


@lru_cache(maxsize=1)
def _succeeded() -> re.Pattern[str]:
    return re.compile("|".join(f"(?:{p})" for p in table("triage_tools")["succeeded"]["patterns"]), re.I)


def succeeded(text: str) -> bool:
    """Whether the log's last line is a tool's own word that the whole run ended well: the ERROR
    lines before it were attempts the tool recovered from, not a failure to triage."""
    lines = [ln for ln in text.strip().split("\n") if ln.strip()]
    return bool(lines) and bool(_succeeded().search(lines[-1]))


def frame_packages() -> tuple[tuple[str, re.Pattern[str]], ...]:
    """(component, pattern) for the tools' files in traceback frames, as classify._PACKAGES."""
    return tuple((t.component, t.frames) for t in tools() if t.frames is not None)

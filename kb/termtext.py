"""Text for terminals: display width (a Chinese character takes two columns), wrapping that never
cuts a word it can wrap and may break between Chinese characters, and the width to wrap to.

Shared by `kb` and `diagnose` (the diagnoser may import kb; kb never imports the diagnoser).
textwrap counts characters and breaks only at spaces, so Chinese lines came out twice as wide
as asked and unbreakable; this module counts columns and treats each Chinese character as a
place to break, keeping closing punctuation (，。） …) with the character before it.
"""
from __future__ import annotations

import os
import re
import shutil
import unicodedata

DEFAULT_WIDTH = 80
MAX_WIDTH = 100  # long lines read badly even in wide terminals

_CJK = "\u2e80-\u2fff\u3000-\u303f\u3040-\u30ff\u3100-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\ufe30-\ufe4f\uff00-\uffef"
_TOKEN = re.compile(rf"\s+|[{_CJK}]|[^\s{_CJK}]+")
_NO_LINE_START = set("，。、；：！？）」』》〉】〕’”%,.;:!?)]}")
_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def cells(text: str) -> int:
    """Columns the text takes in a terminal (ANSI colour codes take none)."""
    text = _ANSI.sub("", text)
    return sum(0 if unicodedata.combining(ch) else 2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def width(requested: int | None = None) -> int:
    """The width to wrap to: as asked, else the terminal's (COLUMNS honoured), at most MAX_WIDTH."""
    if requested:
        return requested
    cols = shutil.get_terminal_size((DEFAULT_WIDTH, 24)).columns if os.environ.get("COLUMNS") is None else int(os.environ["COLUMNS"])
    return max(40, min(cols, MAX_WIDTH))


def wrap(text: str, width: int, indent: str = "", hang: str | None = None) -> list[str]:
    """Wrap text to `width` columns; the first line starts with indent, the others with hang
    (default: indent). Words longer than a line are cut (paths, URLs); nothing else is."""
    hang = indent if hang is None else hang
    lines: list[str] = []
    line, used = indent, cells(indent)
    fresh = True  # nothing but the indent on this line yet
    for tok in _TOKEN.findall(" ".join(text.split()) if "\n" in text or "\t" in text else text):
        if tok.isspace():
            if not fresh:
                line, used = line + tok, used + len(tok)
            continue
        w = cells(tok)
        limit = width
        if used + w > limit and not fresh and not (tok in _NO_LINE_START and used + w <= limit + 2):
            lines.append(line.rstrip())
            line, used, fresh = hang, cells(hang), True
        while used + w > limit and fresh and len(tok) > 1:  # a word longer than a whole line
            cut = _fit(tok, limit - used)
            lines.append(line + tok[:cut])
            tok, w = tok[cut:], cells(tok[cut:])
            line, used = hang, cells(hang)
        line, used, fresh = line + tok, used + w, False
    lines.append(line.rstrip())
    return lines if any(x.strip() for x in lines) else [indent.rstrip()]


def _fit(tok: str, room: int) -> int:
    """How many characters of tok fit in room columns (at least one)."""
    used = 0
    for i, ch in enumerate(tok):
        used += cells(ch)
        if used > room:
            return max(1, i)
    return len(tok)


def tidy_zh(text: str) -> str:
    """Drop the spaces that YAML line folding leaves inside Chinese text ('拷贝， 于是' -> '拷贝，于是'):
    after full-width punctuation, and between two Chinese characters. A space between Chinese
    and Latin text ('使用 OpenVINO') is kept: it is how the entries are written."""
    text = re.sub(r"([，。、；：！？）」』》】])[ \t]+", r"\1", text)
    return re.sub(rf"(?<=[\u3400-\u9fff])[ \t]+(?=[\u3400-\u9fff（「『《【])", "", text)

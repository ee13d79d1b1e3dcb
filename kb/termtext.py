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
_NO_LINE_END = set("（「『《〈【〔‘“")
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
    (default: indent). Words longer than a line are cut (paths, URLs); nothing else is. Closing
    punctuation never starts a line: the character before it moves down with it."""
    hang = indent if hang is None else hang
    lines: list[str] = []
    toks: list[str] = []  # the current line's tokens, after its indent
    lead = indent

    def used() -> int:
        return cells(lead) + sum(cells(t) for t in toks)

    def push() -> None:
        nonlocal toks, lead
        lines.append((lead + "".join(toks)).rstrip())
        toks, lead = [], hang

    for tok in _TOKEN.findall(" ".join(text.split()) if "\n" in text or "\t" in text else text):
        if tok.isspace():
            if toks:
                toks.append(tok)
            continue
        if toks and used() + cells(tok) > width:
            carry = []
            if tok in _NO_LINE_START:
                while toks and toks[-1].isspace():
                    toks.pop()
                if len(toks) > 1:
                    carry = [toks.pop()]
            while len(toks) > 1 and toks[-1] in _NO_LINE_END:
                carry.insert(0, toks.pop())
            push()
            toks = carry
        while not toks and used() + cells(tok) > width and len(tok) > 1:  # a word longer than a whole line
            cut = _fit(tok, width - used())
            lines.append(lead + tok[:cut])
            tok, lead = tok[cut:], hang
        toks.append(tok)
    push()
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


_LIST = re.compile(r"^(\s*)([-*+]|\d+[.)])\s+")


def fit_markdown(text: str, width: int, fold_code: bool = True) -> str:
    """Markdown prose re-wrapped to width for the terminal: paragraphs and list items wrapped
    (list items hang under their text), fenced code kept line by line and folded only where a
    line is wider than the terminal, its continuations marked with '↪'."""
    out: list[str] = []
    para: list[str] = []
    bullet = ""
    fenced = False

    def flush() -> None:
        nonlocal para, bullet
        if para:
            out.extend(wrap(" ".join(para), width, bullet, " " * cells(bullet)))
        para, bullet = [], ""

    for line in text.splitlines():
        if line.lstrip().startswith("```"):
            flush()
            fenced = not fenced
            out.append(line)
        elif fenced or line.lstrip().startswith("|"):
            out.extend(_fold(line, width) if fold_code else [line])
        elif not line.strip() or line.startswith("#"):
            flush()
            out.append(line)
        elif m := _LIST.match(line):
            flush()
            bullet = m.group(0)
            para = [line[m.end():]]
        elif line.startswith("    ") and not para:
            out.extend(_fold(line, width))
        else:
            para.append(line.strip())
    flush()
    return "\n".join(out)


def _fold(line: str, width: int) -> list[str]:
    if cells(line) <= width:
        return [line]
    out, rest = [], line
    while cells(rest) > width:
        cut = _fit(rest, width)
        out.append(rest[:cut])
        rest = "↪ " + rest[cut:]
    return out + [rest]


def columns(rows: list[tuple[str, str, str]], width: int) -> list[str]:
    """ID, a short column and a long text: the short column padded to its longest value (at most
    30), the text wrapped under itself; when the terminal is too narrow for that, the text goes
    on its own indented lines."""
    if not rows:
        return []
    first = max(cells(r[0]) for r in rows)
    second = min(30, max(cells(r[1]) for r in rows))
    start = first + 2 + second + 1
    out = []
    for a, b, text in rows:
        head = f"{a}{' ' * (first - cells(a))}  {b}"
        if width - start >= 30 and cells(b) <= second:
            lead = head + " " * (start - cells(head))
            out.extend(wrap(text, width, lead, " " * start))
        else:
            out.extend(wrap(head, width, "", "    "))
            out.extend(wrap(text, width, "    "))
    return out

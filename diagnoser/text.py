"""Turn whatever the user pasted into bounded, normalised text the signatures can read.

Pastes arrive with ANSI colours, Markdown quoting, curly quotes, CRLF, log prefixes and
sometimes hundreds of megabytes of log. Everything here is linear in the input size.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

MAX_CHARS = 1_000_000  # text the signatures read
MAX_LINE = 4_000  # a longer line is cut: no error line is that long, minified JSON is
CONTEXT_LINES = 2

_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b[()][AB012]")
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_QUOTE_PREFIX = re.compile(r"^[ \t]*(?:>[ \t]?)+", re.M)
_SPACES = re.compile(r"[ \t\u00a0\u3000]+")
_TRANSLATE = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"', "\u00b4": "'", "\uff1a": ": ", "\uff08": "(", "\uff09": ")"})
# Lines worth keeping from a huge log: errors, exceptions, failures, status codes.
_DECISIVE = re.compile(
    r"error|exception|fail|fatal|not_implemented|not implemented|invalid|unsupported|"
    r"not supported|expected|traceback|raise|错误|失败|异常",
    re.I,
)


@dataclass(frozen=True)
class Prepared:
    text: str  # normalised text the signatures run on
    original_chars: int
    truncated: bool
    binary: bool


def decode(data: bytes) -> tuple[str, bool]:
    """Decode bytes leniently; say whether it looked binary (many NULs or invalid bytes)."""
    sample = data[:65536]
    binary = sample.count(0) > len(sample) // 100 if sample else False
    for enc in ("utf-8", "utf-16") if data[:2] in (b"\xff\xfe", b"\xfe\xff") else ("utf-8",):
        try:
            return data.decode(enc), binary
        except UnicodeDecodeError:
            continue
    text = data.decode("utf-8", errors="replace")
    return text, binary or text.count("\ufffd") > len(text) // 20


def _select_decisive(text: str) -> str:
    """From a huge text keep the lines that can carry an error, with a little context."""
    lines = text.splitlines()
    keep: set[int] = set()
    for i, line in enumerate(lines):
        if _DECISIVE.search(line[:MAX_LINE]):
            keep.update(range(max(0, i - CONTEXT_LINES), min(len(lines), i + CONTEXT_LINES + 1)))
    out, size = [], 0
    for i in sorted(keep):
        line = lines[i][:MAX_LINE]
        size += len(line) + 1
        if size > MAX_CHARS:
            break
        out.append(line)
    return "\n".join(out)


def normalise(text: str) -> str:
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = _ANSI.sub("", text)
    text = _CONTROL.sub(" ", text)
    text = text.translate(_TRANSLATE)
    text = _QUOTE_PREFIX.sub("", text)
    text = _SPACES.sub(" ", text)
    lines = [ln.strip()[:MAX_LINE] for ln in text.split("\n")]
    return "\n".join(ln for ln in lines if ln)


def prepare(text: str, binary: bool = False) -> Prepared:
    original = len(text)
    truncated = False
    if original > MAX_CHARS:
        text = _select_decisive(text)
        truncated = True
    return Prepared(text=normalise(text), original_chars=original, truncated=truncated, binary=binary)

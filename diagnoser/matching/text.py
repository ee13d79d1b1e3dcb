"""Turn whatever the user pasted into bounded, normalised text the signatures can read.

Pastes arrive with ANSI colours, Markdown quoting, curly quotes, CRLF, log prefixes and
sometimes hundreds of megabytes of log. Everything here is linear in the input size.
"""
from __future__ import annotations

import html
import re
from dataclasses import dataclass

MAX_CHARS = 1_000_000  # text the signatures read
MAX_LINE = 4_000  # a longer line is cut: no error line is that long, minified JSON is
CONTEXT_LINES = 2

_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b[()][AB012]")
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_QUOTE_PREFIX = re.compile(r"^[ \t]*(?:>[ \t]?)+", re.M)
# `docker compose logs` prefixes every line with "service_1  | "; rich tracebacks draw boxes.
_COMPOSE_PREFIX = re.compile(r"^[\w.-]{1,60}[ \t]+\|[ \t]?", re.M)
_BOX = re.compile(r"[\u2500-\u257f]+")
_SPACES = re.compile(r"[ \t\u00a0\u3000]+")
_TRANSLATE = str.maketrans({
    "\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"', "\u00b4": "'", "\u2032": "'",
    "\uff1a": ": ", "\uff08": "(", "\uff09": ")", "\uff0c": ", ", "\u3002": ". ", "\uff1b": "; ",
    "\u200b": None, "\u200c": None, "\u200d": None, "\ufeff": None,
})
_ENTITY = re.compile(r"&(?:#\d{1,6}|#x[0-9a-fA-F]{1,6}|[a-zA-Z]{2,8});")
_ESCAPE = re.compile(r"\\(\\|r\\n|n|r|t)")  # left to right, so "\\\\new" stays a path
_UNESCAPE = {"\\": "\\", "r\\n": "\n", "n": "\n", "r": "\n", "t": " "}
_ESCAPED_QUOTE = re.compile(r"\\(['\"])")
# A line that starts a new record rather than continuing a wrapped one.
_LINE_START = re.compile(
    r"^(?:Traceback|File |During handling|The above exception|\d{4}-\d\d-\d\d|\[|[A-Z]\w{0,60}(?:Error|Exception|Warning)\b|"
    r"at |\w{0,40}\.(?:py|cc|cpp|h)[:(]|[-*>#]|\d+[.)] )"
)
WRAP_MIN = 30  # a shorter line is a line, not a wrapped one (rich wraps tracebacks at ~50 columns)
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


# Binary input keeps printable ASCII; every other byte becomes a line break (bytes.translate is C).
_PRINTABLE = bytes(b if (0x20 <= b <= 0x7E or b == 0x09) else 0x0A for b in range(256))


def decode(data: bytes) -> tuple[str, bool]:
    """Decode bytes leniently; say whether it looked binary (NULs or mostly invalid bytes).

    Binary input keeps only its printable ASCII, like `strings`: that is where any error message
    buried in a core dump or a binary log is, and it stays linear in the input size.
    """
    sample = data[:65536]
    nuls = sample.count(0)
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        try:
            return data.decode("utf-16"), False
        except UnicodeDecodeError:
            pass
    if nuls <= len(sample) // 100:
        try:
            return data.decode("utf-8"), False
        except UnicodeDecodeError:
            bad = sample.decode("utf-8", errors="replace").count("\ufffd")
            if bad <= len(sample) // 20:
                return data.decode("utf-8", errors="replace"), False
    return data.translate(_PRINTABLE).decode("ascii"), True


_KEYWORDS = (
    "error", "exception", "fail", "fatal", "implement", "invalid", "support", "expected", "traceback",
    "could not", "cannot", "unable", "abort", "segmentation", "warning", "错误", "失败", "异常",
)
_MAX_HITS = 20_000  # per keyword: more than enough to fill MAX_CHARS


def _keyword_positions(low: str) -> list[int]:
    found: list[int] = []
    for kw in _KEYWORDS:
        i, hits = low.find(kw), 0
        while i >= 0 and hits < _MAX_HITS:
            found.append(i)
            hits += 1
            i = low.find(kw, i + len(kw))
    found.sort()
    return found


def _select_decisive(text: str) -> str:
    """From a huge text keep the lines that can carry an error, with a little context.

    Keywords are found with str.find on a lower-cased copy (a case-insensitive regex with
    alternatives is ten times slower on 50 MB), then the text is sliced around each hit.
    """
    out: list[str] = []
    size, last_end, n = 0, 0, len(text)
    reach = 4 * MAX_LINE
    for pos in _keyword_positions(text.lower()):
        if pos < last_end:
            continue
        start = text.rfind("\n", max(0, pos - reach), pos) + 1
        for _ in range(CONTEXT_LINES):
            if start <= 0:
                break
            start = text.rfind("\n", max(0, start - 1 - reach), start - 1) + 1
        end = text.find("\n", pos, pos + reach)
        end = n if end < 0 else end
        for _ in range(CONTEXT_LINES):
            nxt = text.find("\n", end + 1, end + 1 + reach)
            if nxt < 0:
                break
            end = nxt
        start = max(start, last_end)
        out.append(text[start:end])
        size += end - start
        last_end = end
        if size > MAX_CHARS:
            break
    return "\n".join(out)


# A Windows message in the ANSI code page (GBK on Chinese systems) printed by a binding that
# escapes the bytes that are not valid UTF-8 (Go's %q, Rust's {:?}, a Python bytes repr): a run
# of \xNN escapes mixed with the characters that happened to be valid UTF-8.
_ESCAPED_BYTES = re.compile(r"(?:\\x[89a-fA-F][0-9a-fA-F]|[^\x00-\x7f]){2,}")
_CJK = re.compile(r"[\u4e00-\u9fff]")


def _gbk_run(m: re.Match[str]) -> str:
    run = m.group(0)
    if run.count("\\x") < 2:
        return run
    raw = bytearray()
    for part in re.findall(r"\\x[0-9a-fA-F]{2}|.", run, re.S):
        raw += bytes([int(part[2:], 16)]) if len(part) == 4 else part.encode("utf-8")
    for codec in ("utf-8", "gbk"):  # a bytes repr of UTF-8 text decodes as UTF-8; GBK rarely does
        try:
            decoded = raw.decode(codec)
        except UnicodeDecodeError:
            continue
        return decoded if _CJK.search(decoded) else run
    return run


# onnxruntime's status codes (OrtErrorCode, include/onnxruntime/core/session/onnxruntime_c_api.h):
# Python prints "[ONNXRuntimeError] : 10 : INVALID_GRAPH :", the other bindings their own spelling
# of the same number or name. Every binding's form is given the Python one as well (the binding's
# own words stay in place), so a signature or context phrase written for one binding reads all.
STATUS_NAMES = (
    "OK", "FAIL", "INVALID_ARGUMENT", "NO_SUCHFILE", "NO_MODEL", "ENGINE_ERROR", "RUNTIME_EXCEPTION",
    "INVALID_PROTOBUF", "MODEL_LOADED", "NOT_IMPLEMENTED", "INVALID_GRAPH", "EP_FAIL",
)
_STATUS_BY_KEY = {n.replace("_", "").lower(): i for i, n in enumerate(STATUS_NAMES)}
_BINDING_STATUS = re.compile(
    # Java: ai.onnxruntime.OrtException: Error code - ORT_INVALID_GRAPH - message: ...
    r"(?P<java>Error code - ORT_(?P<jname>[A-Z_]{2,30}) - message:)|"
    # C# / ML.NET: Microsoft.ML.OnnxRuntime.OnnxRuntimeException: [ErrorCode:InvalidGraph] ...
    r"(?P<cs>\[ErrorCode:(?P<csname>[A-Za-z]{2,40})\])|"
    # Dart (onnxruntime pub package, lib/src/ort_status.dart): _OrtException (code=9, message=...)
    r"(?P<dart>(?:\b_?OrtException\s*\(|Unhandled Exception:\s*)code=(?P<dcode>\d{1,2}), message=)|"
    # onnxruntime-web / -node: Error: Can't create a session. ERROR_CODE: 7, ERROR_MESSAGE: ...
    r"(?P<web>ERROR_CODE: (?P<wcode>\d{1,2}), ERROR_MESSAGE:)"
)


def _python_status(m: re.Match[str]) -> str:
    if m.group("java") or m.group("cs"):
        code = _STATUS_BY_KEY.get((m.group("jname") or m.group("csname")).replace("_", "").lower())
    else:
        code = int(m.group("dcode") or m.group("wcode"))
    if code is None or not 0 < code < len(STATUS_NAMES):
        return m.group(0)
    return f"{m.group(0)} [ONNXRuntimeError] : {code} : {STATUS_NAMES[code]} : "


def canonical_status(text: str) -> str:
    """The text with every binding's status code also written as Python's `[ONNXRuntimeError] : N : NAME :`."""
    if "rror" not in text and "code=" not in text:
        return text
    return _BINDING_STATUS.sub(_python_status, text)


def normalise(text: str) -> str:
    if "\\x" in text:
        text = _ESCAPED_BYTES.sub(_gbk_run, text)
    if "&" in text:
        text = _ENTITY.sub(lambda m: html.unescape(m.group(0)), text)
    if "\\\\" in text or '\\"' in text:
        # An escaped string (JSON, a Rust or C# debug print): backslashes are doubled, quotes
        # escaped and "\n" is a line break. A plain Windows path (C:\new\nvidia) is left alone.
        text = _ESCAPE.sub(lambda m: _UNESCAPE[m.group(1)], text)
    if "\\'" in text or '\\"' in text:
        text = _ESCAPED_QUOTE.sub(r"\1", text)
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = _ANSI.sub("", text)
    text = _CONTROL.sub(" ", text)
    text = text.translate(_TRANSLATE)
    text = _QUOTE_PREFIX.sub("", text)
    if " |" in text:
        text = _COMPOSE_PREFIX.sub("", text)
    text = _BOX.sub(" ", text)
    text = canonical_status(text)
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


def unwrapped_views(text: str) -> list[tuple[str, list[int]]]:
    """The text with likely hard wraps joined, once with a space and once without (a wrap can fall
    between words or inside one). Each view comes with, per line, the line of `text` it starts on."""
    lines = text.split("\n")
    if len(lines) < 2 or len(text) > 200_000:
        return []
    joins = [
        i for i in range(1, len(lines))
        if len(lines[i - 1]) >= WRAP_MIN and lines[i] and not _LINE_START.match(lines[i])
    ]
    if not joins:
        return []
    views = []
    joined = set(joins)
    for glue in (" ", ""):
        out: list[str] = []
        starts: list[int] = []
        for i, line in enumerate(lines):
            if i in joined and out:
                out[-1] = out[-1] + glue + line
            else:
                out.append(line)
                starts.append(i)
        views.append(("\n".join(out), starts))
    return views


# Wrappers the bindings and applications put around the runtime's own message, stripped from the
# start of a line (repeatedly) so that one problem reads the same from Python, C#, Java, JS, Rust,
# C++ or an application's log. Order does not matter: the loop runs until nothing changes.
_WRAPPERS = re.compile(
    r"^(?:"
    # Flutter's engine log: [ERROR:flutter/runtime/dart_vm_initializer.cc(41)] Unhandled Exception:
    r"\[(?:ERROR|WARNING|INFO|FATAL):flutter/[^\]\n]{1,160}\]|Unhandled Exception:|"
    # Dart: _OrtException (code=9, message=...   (onnxruntime pub package)
    r"_?OrtException\s*\(|code=\d{1,2}, message=|"
    # onnxruntime-web: Error: Can't create a session. ERROR_CODE: 7, ERROR_MESSAGE: ...
    r"Can't create a session\.|ERROR_CODE: \d{1,2}, ERROR_MESSAGE:|"
    # ML.NET around the C# exception, and .NET's nested-exception dashes
    r"-{3,}\s|(?:System\.[\w.]{1,60}Exception\s?:\s?'?)?Error initializing model\s?:|"
    # Go (onnxruntime_go) and Rust (onnxruntime-rs) wrappers around the runtime's message
    r"panic:|(?:[Ff]ailed to create session|Error creating (?:C |ORT )?session|Error running network):|"
    r"Error calling ONNX Runtime C function:|"
    # timestamps: 2024-01-02 10:00:01.123, [2024-01-02T10:00:01Z], 10:00:01,123
    r"\[?\d{4}-\d\d-\d\d[T :]\d\d:\d\d:\d\d(?:[.,]\d{1,9})?(?:Z|[+-]\d\d:?\d\d)?(?:\s+(?:UTC|GMT))?\]?(?::(?=\s))?|"
    r"\[?\d\d:\d\d:\d\d(?:[.,]\d{1,9})?\]?(?::(?=\s))?|"
    # Python logging's default "asctime - name - LEVEL - message": the logger's name
    r"-\s[\w.]{1,60}\s(?=-\s(?:ERROR|WARNING|INFO|DEBUG|CRITICAL|FATAL)\b)|"
    # levels: ERROR, [ERROR], | ERROR |, ERROR:root:, E/tag(123):, E0123 10:00:01.123 123 file.cc:12]
    r"[-|]?\s*\[?(?:ERROR|ERR|WARNING|WARN|INFO|DEBUG|FATAL|CRITICAL|TRACE|SEVERE)\]?(?::[\w.]{1,40}:|\s*[:|\-]|\s)|"
    r"[VDIWEF]/[\w.\-]{1,40}(?:\s?\(\s*\d+\))?:|"
    r"[IWEF]\d{4} \d\d:\d\d:\d\d\.\d+\s+\d+ [\w./-]{1,80}:\d+\]|"
    # loguru / structlog module markers: "module:function:12 - "
    r"\|?\s*[\w.]{1,60}:[\w<>]{1,60}:\d{1,6}\s+-\s|"
    # onnxruntime's own log prefix: [E:onnxruntime:Default, file.cc:12 Function]
    r"\[[VIWEF]:onnxruntime:[^\]\n]{0,200}\]|"
    # C#: Microsoft.ML.OnnxRuntime.OnnxRuntimeException: [ErrorCode:RuntimeException]
    r"Unhandled exception\.|(?:System\.[\w.]{1,60}Exception:\s*)?Microsoft\.ML\.OnnxRuntime\.OnnxRuntimeException:\s*[\"“]?|\[ErrorCode:\w{1,40}\]|"
    # Java: ai.onnxruntime.OrtException: Error code - ORT_FAIL - message:
    r"Exception in thread \"[^\"\n]{0,80}\"|(?:Caused by:\s*)?ai\.onnxruntime\.OrtException:|Error code - ORT_\w{1,40} - message:|"
    # C++: terminate called after throwing an instance of 'Ort::Exception' / what():
    r"terminate called after throwing an instance of '[\w:]{1,80}'|what\(\):|"
    r"(?:libc\+\+abi(?:\.dylib)?:\s*)?terminating (?:with|due to) uncaught exception of type [\w:]{1,80}:|"
    r"(?:unknown file: )?C\+\+ exception with description \"|exception of type [\w:]{1,80}:|"
    # Rust: called `Result::unwrap()` on an `Err` value: / thread 'main' panicked at src/main.rs:4:5:
    r"called `Result::unwrap\(\)` on an `Err` value:|thread '[^'\n]{0,60}' panicked at [^\n]{0,120}?:\d+:\d+:?|"
    r"(?:ort::)?Error:|Msg\(\"|(?:CreateSession|SessionBuilder|Run|Ort)\w{0,30}\(|"
    # JS: Uncaught (in promise) Error: / ort-web / onnxruntime-node wrappers
    r"Uncaught(?: \(in promise\))?|(?:Type|Range|Runtime)?Error:|ort(?:-web|-wasm)?:|"
    # Python: onnxruntime.capi.onnxruntime_pybind11_state.Fail: [ONNXRuntimeError] : 1 : FAIL :
    r"onnxruntime\.capi\.onnxruntime_pybind11_state\.\w{1,30}:|[\w.]{0,80}\b(?:Fail|InvalidArgument|NoSuchFile|NoModel|EngineError|"
    r"RuntimeException|InvalidProtobuf|ModelLoaded|NotImplemented|InvalidGraph|EPFail):|"
    r"\[ONNXRuntimeError\]\s*:\s*\d{1,2}\s*:\s*\w{1,30}\s*:|"
    # an application's, plugin's or server's tag in brackets ([obs-backgroundremoval],
    # [StatusCode.INTERNAL], [detector.cpp:58]): a compound name, no spaces, before the message.
    # A plain word ([Web], [Mobile]: an issue title's platform) and the ONNX family's own tags
    # ([Paddle2ONNX], [onnxruntime]) and error classes ([ShapeInferenceError]) say something: kept.
    r"\[(?![\w.\-]{0,60}?(?i:onnx|error|exception))(?=[\w]{0,60}[.\-])[\w.\-]{1,60}(?::\d{1,6})?\](?=\s)|"
    r"\[(?i:error|warn(?:ing)?|info|debug|fatal|critical)\](?=\s)"
    r")\s*"
)


def core_line(line: str) -> str:
    """The line without the binding's or application's wrappers around the message."""
    for _ in range(12):
        m = _WRAPPERS.match(line)
        if not m or not m.end():
            break
        line = line[m.end():]
    return line


def core_view(text: str) -> str:
    """The text line by line with wrappers stripped (same number of lines, so a match's line
    number is the original line's); empty lines stay empty."""
    return "\n".join(core_line(ln) for ln in text.split("\n"))


# The parts of a message that name the user's things rather than the problem: a path's folders
# up to the tool's own tree (a file's own name stays: model.onnx, cuda_call.cc,
# onnxruntime_pybind11_state.so say something, and so does onnxruntime/core/providers/cuda/)
# and hexadecimal addresses. Likeness is measured without them, so that the same problem pasted
# from another machine, project or binding reads alike, and a long path does not push the
# message's own words out of the window likeness looks at.
# (a URL is the tool's own words, a link it prints with every message: it stays)
# (and a relative path is the package's own layout, ../bin/napi-v3/darwin/arm64/: only an absolute
# path, from a drive, the root or home, runs through the user's folders)
_FOLDERS = re.compile(r"(?P<url>\b[a-z]{2,8}://\S+)|(?:\b[A-Za-z]:[\\/]|(?<![\w.~@+-])~?[\\/])(?:[\w.~@+-]{0,120}[\\/]){1,}(?=[\w.-])")
_HEX = re.compile(r"\b0x[0-9a-fA-F]{4,16}\b")


_TOOL_FOLDER = re.compile(
    r"[^\\/]*(?:onnx|protobuf|torch|tensorrt|tensorflow|paddle|openvino|site-packages|dist-packages|node_modules)[^\\/]*[\\/]", re.I)


def _tool_part(m: re.Match[str]) -> str:
    """A URL whole; of a path's folders, those from the first that names a tool or a package
    folder on (the tool's own source tree: onnxruntime/core/providers/..., site-packages/onnxslim/
    core/..., third_party/protobuf/src/...)."""
    if m.group("url"):
        return m.group("url")
    tool = _TOOL_FOLDER.search(m.group(0))
    return m.group(0)[tool.start():] if tool else ""


def without_particulars(text: str) -> str:
    """The text with paths cut to their file names and hex addresses blanked (for likeness only:
    signatures read the text as pasted)."""
    if "/" in text or "\\" in text:
        text = _FOLDERS.sub(_tool_part, text)
    if "0x" in text:
        text = _HEX.sub("0x", text)
    return text

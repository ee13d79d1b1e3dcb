"""Which component raised an ONNX-family error, and at which stage.

A traceback says it best: the outermost frame inside a known package is the tool the user called
(quantize_static calling onnxruntime is a quantization failure; torch.onnx.export calling the onnx
checker is an export failure). Without one, the phrases each component emits decide, most specific
first: they are data (diagnoser/data/triage_phrases.yaml, each group citing the source its phrases
come from), so a new component or wording is a line there, not a new regex here. The vocabulary is
fixed (COMPONENTS, STAGES) so that labels can be compared across tools.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from diagnoser.model.datafiles import table
from diagnoser.triage import tools as registry
from diagnoser.triage.vocabulary import COMPONENTS, STAGES

# the stage a component implies when its group fixes none (onnxruntime and the web runtime: the words)
_COMPONENT_STAGE = {"install": "install", "torch.onnx": "export", "converter": "convert", "optimizer": "convert",
                    "quantization": "quantize"}


@dataclass(frozen=True)
class Group:
    """One phrase group of the table: the phrases only `component` emits, and what they imply."""

    name: str
    component: str
    stage: str | None
    provider: str | None
    gate: bool
    rx: re.Pattern[str]
    wrapper: bool = False
    importer: bool = False  # the tool reads an ONNX file into another framework (it checks its input first)
    tool: str | None = None  # the registry tool (triage_tools.yaml) whose marks these are
    unless: re.Pattern[str] | None = None  # a neighbour's marks that, in the text, mean these are not the component
    over_frames: bool = False  # the tool runs inside onnxruntime's session: its marks outrank the frames


def _alternation(phrases: list[str], words: list[str], patterns: list[str]) -> re.Pattern[str] | None:
    parts = [re.escape(p) for p in phrases] + [rf"(?<!\w){re.escape(w)}(?!\w)" for w in words] + [f"(?:{p})" for p in patterns]
    return re.compile("|".join(parts), re.I) if parts else None


def _either(patterns: list[str]) -> re.Pattern[str]:
    return re.compile("|".join(f"(?:{p})" for p in patterns), re.I)


def _exported_name(data: dict) -> str:
    """The TorchScript exporter's node or tensor name (`/encoder/layer.0/MatMul`, `..._output_0`),
    one alternation of the ONNX op types the table lists, never under a file-system root; or its
    older flat name (`Resize_164`) for the op types no other framework names its nodes after."""
    names = data["exported_names"]
    ops = "|".join(sorted(map(re.escape, names["op_types"]), key=len, reverse=True))
    roots = "|".join(map(re.escape, names["not_roots"]))
    legacy = "|".join(sorted(map(re.escape, names["legacy_op_types"]), key=len, reverse=True))
    return (rf"(?<![\w/.:\\-])/(?!(?:{roots})/)(?:[\w.\-]+/)+(?-i:{ops})(?:_\d+)?(?:_output_\d+)?"
            rf"(?:_\w+)?(?![\w/.\-])|(?<![\w.\-])(?-i:{legacy})_\d+(?![\w.\-])")


# the registry's tools go before this group of the phrase table: after the installation groups (a tool
# that cannot be imported is an installation problem), before the runtime's and the converters' phrases
# (a compiler's log quotes onnxsim and onnxruntime's words while it is the compiler that fails)
_TOOLS_BEFORE = "ort-x-anylabeling"


def _tool_groups() -> list[Group]:
    """Each registry tool as phrase groups: its package failing to load (install), then its marks."""
    out = []
    for t in registry.tools():
        if t.install is not None:
            out.append(Group(f"tool-install:{t.name}", "install", "install", None, t.onnx_only, t.install, tool=t.name))
        out.append(Group(f"tool:{t.name}", t.component, t.stage, None, t.onnx_only, t.rx, tool=t.name,
                         unless=t.unless, over_frames=t.over_frames))
    return out


@lru_cache(maxsize=1)
def _table() -> tuple[re.Pattern[str], tuple[Group, ...], dict[str, re.Pattern[str]], tuple[re.Pattern[str], re.Pattern[str]]]:
    data = table("triage_phrases")
    groups = []
    for g in data["groups"]:
        rx = _alternation(g.get("phrases", []), g.get("words", []), g.get("patterns", []))
        if rx is None or g["component"] not in COMPONENTS or g.get("stage") not in (None, *STAGES):
            raise ValueError(f"triage_phrases.yaml: group {g.get('name')!r} is malformed")
        if g["name"] == _TOOLS_BEFORE:
            groups.extend(_tool_groups())
        groups.append(Group(g["name"], g["component"], g.get("stage"), g.get("provider"), g.get("gate", True), rx,
                            g.get("wrapper", False), g.get("importer", False)))
    family = _either(_gate_patterns(data, groups, by_elimination=True))
    stages = {name: _either(data["stages"][name]) for name in ("install", "run", "load")}
    foreign = (_either(data["foreign"]["patterns"]), _either(data["foreign"]["unless"]))
    return family, tuple(groups), stages, foreign


def _gate_patterns(data: dict, groups: tuple[Group, ...] | list[Group], by_elimination: bool) -> list[str]:
    """What makes a text ONNX-family: the family's words, the exporter's node names, every gating
    group's phrases, and (with `by_elimination`) the patterns that infer it from what a text does not name."""
    family = data["family"]
    return [*family["patterns"], *(family.get("by_elimination", []) if by_elimination else ()),
            _exported_name(data), *(g.rx.pattern for g in groups if g.gate)]


@lru_cache(maxsize=1)
def _ort_words() -> re.Pattern[str]:
    """onnxruntime's own words (the table's `onnxruntime_words`): `patterns` without case, `exact` with it."""
    words = table("triage_phrases")["onnxruntime_words"]
    return _either(list(words["patterns"]) + [f"(?-i:{p})" for p in words["exact"]])


@lru_cache(maxsize=1)
def _lines_and_scripts() -> tuple[re.Pattern[str], re.Pattern[str]]:
    """The table's `benign_lines` and `script_errors`, one alternation each."""
    data = table("triage_phrases")
    return _either(data["benign_lines"]["patterns"]), _either(data["script_errors"]["patterns"])


def without_benign_lines(text: str) -> str:
    """The text without the notes a component logs while it goes on without error (the table's
    `benign_lines`: onnxruntime's node assignment on a session it created, TensorRT's parser on a
    file newer than itself): an application or engine builder failing after them has not failed in
    that component. A text made only of such notes is kept whole: they are what the user asks about."""
    benign = _lines_and_scripts()[0]
    lines = text.split("\n")
    kept = [ln for ln in lines if not benign.search(ln)]
    return "\n".join(kept) if len(kept) < len(lines) and any(ln.strip() for ln in kept) else text


def script_error(text: str, error_lines: str, group: Group | None) -> bool:
    """Whether the error is the calling script's own Python mistake (unpacking, len() of a module,
    a list passed where a tensor was expected) and nothing names a component: no phrase group, no
    traceback frame of a known package, no word of onnxruntime. Such a text only mentions ONNX."""
    if group is not None or _outermost_package(text) or _ort_words().search(text):
        return False
    return bool(_lines_and_scripts()[1].search(error_lines))


def groups() -> tuple[Group, ...]:
    """The phrase groups, most specific first (for extract: the provider a group names)."""
    return _table()[1]


@lru_cache(maxsize=1)
def onnx_importer() -> re.Pattern[str]:
    """The phrases of the groups marked `importer` (tools that read an ONNX file into another
    framework: onnx-tf, onnx2torch, OpenCV DNN, ...), one alternation: the table is the only list."""
    return _either([g.rx.pattern for g in groups() if g.importer])


# a model file's name alone is no word of the family: it says which file an application was given; beside
# a component's own phrase or words saying the file is missing (the table's gate: false groups, e.g.
# weak-model-file-missing: bench/data/LABELS.md files a missing .onnx under onnxruntime's load), it is
# the file the session was for. (Matched from a token's start only, so that a long token is scanned
# once, not once per character.)
_MODEL_FILE = re.compile(r"(?<![^\s'\"`()\[\]])[^\s'\"`()\[\]]*\.onnx(?:_data)?(?!\.?\w)", re.I)
# ... but a Python module path that ends in onnx (torch.onnx, transformers.onnx) names the exporter, and
# ai.onnx is the ONNX standard's own operator domain (`ai.onnx::11::FindMax`), ModelFormat.ONNX CNTK's format
_ONNX_MODULE = re.compile(r"(?:^|\.)(?:torch|transformers|optimum|exporters|paddle|mmdeploy|ultralytics|ai|ModelFormat)\.onnx$", re.I)


# a user's own file whose path holds the word onnx says where the user keeps things, not which component
# failed: the script a Python traceback starts in (`File "C:\\proj\\pth2onnx.py", line 3, in <module>`), or a
# data or configuration file that is not ONNX in a folder named for the model
# (`stable-diffusion-onnx/model_index.json`), outside any installed package and any package of the family:
# the word is masked there (a tool's module further down a traceback, its external data `x.onnx.data`, keep it)
_SCRIPT_FRAME = re.compile(r'(?<=File ")[^"\n]{1,300}?\.py(?=", line \d+, in <module>)')
# (a folder's name never holds a separator: with one allowed, "a\\" repeated splits into folders in
# a great many ways when no file name follows, seconds for a 1 kB text: tests/test_fuzz.py)
_DATA_PATH = re.compile(r"(?<![^\s'\"`(\[])(?:[A-Za-z]:)?(?:[^\s'\"`()\[\]<>|/\\]*[/\\])+[^\s'\"`()\[\]<>|/\\.]+"
                        r"(?:\.(?!onnx\b)[\w-]+)*\.(?:json|tmp|txt|ya?ml|csv|pt|pth|bin|safetensors|ckpt|jpe?g|png|wav|mp3|mp4)\b", re.I)
_INSTALLED = re.compile(r"(?:site|dist)-packages|node_modules", re.I)


def _user_paths(text: str) -> str:
    """The text with the word onnx masked in the user's own scripts and data files (see _SCRIPT_FRAME)."""
    packages = _PACKAGES + registry.frame_packages()

    def mask(m: re.Match[str]) -> str:
        path = m.group()
        if _INSTALLED.search(path) or any(rx.search(path) for _, rx in packages):
            return path
        return re.sub("onnx", "_", path, flags=re.I)

    return _DATA_PATH.sub(mask, _SCRIPT_FRAME.sub(mask, text))


@lru_cache(maxsize=1)
def _named_family() -> re.Pattern[str]:
    """The family's words without its `by_elimination` patterns: what names the family itself."""
    return _either(_gate_patterns(table("triage_phrases"), _table()[1], by_elimination=False))


def is_onnx_family(text: str, named_only: bool = False) -> bool:
    """Whether the text is about the ONNX family at all: without one of its words, no triage; and
    not when another framework's backend or tool carries those words (the table's `foreign`)
    unless the text also names onnxruntime. A model file's name (`x.onnx`) alone is not such a
    word: it says which file an application was given, not which component failed; beside a
    component's own phrase (one too common to open the family by itself) it is. Nor is a user's
    own path that holds the word (a script pth2onnx.py, a folder models/onnx/). With `named_only`,
    the family counts only when the text names it (not by the table's `by_elimination` patterns:
    an OpenCV DNN text naming no format), as a diagnosis needs."""
    family, table, _, (foreign, unless) = _table()
    if named_only:
        family = _named_family()
    unfiled = _MODEL_FILE.sub(lambda m: m.group() if _ONNX_MODULE.search(m.group()) else " ", text)
    if not family.search(_user_paths(unfiled)) and not (unfiled != text and any(not g.gate and g.rx.search(text) for g in table)):
        return False
    return not foreign.search(text) or bool(unless.search(text))


# `No module named 'x.y'`: the module Python could not import
_MISSING_MODULE = re.compile(r"No module named '?([\w.]+)", re.I)


def another_package_missing(text: str, error_lines: str) -> bool:
    """Whether the error is Python failing to import a module outside the ONNX family, with no
    word of the family in the error lines themselves and no traceback frame in a package of the
    family (an application that imports onnxruntime and an old transformers: the traceback's
    source lines name onnxruntime, the error does not). Such a text is that package's
    installation problem, not an ONNX one; tf2onnx failing to import a TensorFlow module is tf2onnx's."""
    if _outermost_package(text):
        return False
    missing = _MISSING_MODULE.findall(error_lines)
    if not missing or any(re.search(r"onnx|\bort\b", m, re.I) for m in missing):
        return False
    family = _table()[0]
    return not family.search(_MISSING_MODULE.sub(" ", error_lines))


# Traceback frames: the package a frame's file belongs to (Python, IPython's `path.py in func(`, JS, Java,
# C#, a Rust panic's `panicked at path.rs:L:C`, a Julia stack frame's `f(...) at path.jl:L`).
_FRAME = re.compile(r"(?:File \"|^\s*at |\bin |^|panicked at |\) at )([^\"\n]{1,300}?\.(?:pyc?|js|ts|cs|java|rs|jl))\b(?=[\"\s:(,]|$)", re.M)
_PACKAGES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("quantization", re.compile(r"onnxruntime[/\\]quantization|neural_compressor", re.I)),
    # (polygraphy's TensorRT backend parses the file with TensorRT's ONNX parser: an importer, below)
    ("optimizer", re.compile(r"[/\\]onnx[/\\]optimizer\.py|onnxsim|onnxslim|onnxoptimizer|onnx_graphsurgeon|onnxruntime(?:_tools)?[/\\]transformers[/\\](?:optimizer|fusion|onnx_model)|polygraphy(?![/\\]backend[/\\]trt[/\\])|onnxscript[/\\](?:optimizer|rewriter)[/\\]", re.I)),
    # coremltools converts to Core ML only (its ONNX converter came from onnx-coreml)
    ("converter", re.compile(r"tf2onnx|keras2onnx|skl2onnx|paddle2onnx|onnxmltools|onnxconverter_common|onnx_tf|onnx2tf|onnx2torch|onnx2keras|hummingbird|jax2onnx|x2paddle|onnx_coreml|coremltools[/\\]|optimum[/\\]exporters|optimum[/\\]commands[/\\]export|rknn[/\\]api[/\\]|RKNNlib[/\\]|polygraphy[/\\]backend[/\\]trt[/\\]|"
                            # ONNX importers of other languages: Rust crates (burn, candle, tract, wonnx), Julia packages
                            r"[/\\]onnx-ir[/\\]|burn-onnx|burn-import|candle-onnx|tract-onnx|[/\\]wonnx[/\\-]|"
                            r"\.julia[/\\]packages[/\\]ONNX(?!RunTime)\w*[/\\]", re.I)),  # ONNXRunTime.jl is onnxruntime's binding
    # onnxscript's torch_lib holds the ATen translations only the torch.export-based exporter uses
    ("torch.onnx", re.compile(r"torch[/\\](?:onnx|export|_dynamo|_export)|(?<!\w)transformers[/\\]onnx[/\\]|onnxscript[/\\]function_libs[/\\]torch_lib", re.I)),
    ("onnx", re.compile(r"[/\\]onnx[/\\](?:checker|shape_inference|version_converter|helper|numpy_helper|external_data_helper|__init__|reference|compose)\.py", re.I)),
    ("onnxruntime-web", re.compile(r"onnxruntime-web|onnxruntime-node|onnxruntime-react-native|onnxruntime-common|ort(?:\.min|\.webgpu|\.all)?\.m?js", re.I)),
    ("onnxruntime", re.compile(r"onnxruntime[/\\]capi|onnxruntime_inference_collection|optimum[/\\]onnxruntime", re.I)),
)
# the onnx checker's own verdict on the model an optimizer or an ONNX-importing converter (the
# table's `importer` groups, see onnx_importer) was given: onnxsim and onnx_tf's backend.prepare
# check their input first
_CHECKER_VERDICT = re.compile(r"(?:onnx_cpp2py_export|onnx)\.checker\.ValidationError", re.I)
_IMPORT_FAILURE = re.compile(r"No module named|ModuleNotFoundError|DLL load failed|ImportError|cannot import name|Unable to import dependency", re.I)
# an import that fails for the installation's sake whoever imports: a package's native module that
# does not load, or a package imported while it is still importing itself (a local file named like it)
_BROKEN_IMPORT = re.compile(
    r"DLL load failed while importing|ImportError: [^\n]{0,300}(?:cannot open shared object file|undefined symbol)|"
    r"most likely due to a circular import|from partially initialized module", re.I)
# the module an AttributeError / ImportError names: `module 'x' has no attribute`, `cannot import name 'y' from 'x'`
_NAMED_MODULE = re.compile(r"module '([\w.]+)' has no attribute|cannot import name '\w+' from (?:partially initialized module )?'([\w.]+)'")


def _shadowed(text: str, error_lines: str) -> bool:
    """Whether the module an import or attribute error names is the user's own file: a script
    named keras2onnx.py that imports keras2onnx imports itself, and the package's names are missing."""
    for m in _NAMED_MODULE.finditer(error_lines):
        name = (m.group(1) or m.group(2)).split(".")[-1]
        if re.search(rf"File \"[^\"\n]*[/\\]{re.escape(name)}\.py\"", text) and not re.search(
                rf"[/\\](?:site|dist)-packages[/\\](?:[^\"\n]*[/\\])?{re.escape(name)}\.py\"", text):
            return True
    return False


def _framed_packages(text: str) -> list[str]:
    """The component of each traceback frame in a known package, outermost first."""
    packages = _PACKAGES + registry.frame_packages()
    out = []
    for m in _FRAME.finditer(text):
        path = m.group(1)
        for component, rx in packages:
            if rx.search(path):
                out.append(component)
                break
    return out


def _outermost_package(text: str) -> str | None:
    framed = _framed_packages(text)
    return framed[0] if framed else None


def matching_group(text: str, error_lines: str) -> Group | None:
    """The first group with a phrase in the error lines, else the first with one in the text; a
    wrapper's line (a pipeline saying its step failed) only when nothing else in the text is known."""
    for wrappers in (False, True):
        for scope in (error_lines, text):
            tools_here = None  # whether any registry tool's marks are in this scope: searched once, on need
            for g in groups():
                if g.tool is not None:
                    if tools_here is None:
                        tools_here = bool(_tool_marks().search(scope))
                    if not tools_here:
                        continue
                if g.wrapper == wrappers and g.rx.search(scope) and not (g.unless and g.unless.search(text)):
                    return g
    return None


@lru_cache(maxsize=1)
def _tool_marks() -> re.Pattern[str]:
    """Every registry tool's marks in one alternation: a scope without any skips the whole block."""
    return _either([g.rx.pattern for g in groups() if g.tool is not None])


def component_of(text: str, error_lines: str, group: Group | None) -> str:
    """The component: the outermost known traceback frame, else the matching phrase group
    (`matching_group`), else onnxruntime when the text has onnxruntime's words and another ONNX
    reader or converter when it has none."""
    if _BROKEN_IMPORT.search(error_lines) or _shadowed(text, error_lines):
        return "install"
    if group is not None and group.over_frames:
        return group.component  # a compiler running inside onnxruntime's session (TIDL's compilation provider)
    frames = _framed_packages(text)
    framed = frames[0] if frames else None
    if framed == "converter" and "torch.onnx" in frames:
        return "torch.onnx"  # torch.onnx raised inside a framework's export wrapper (LABELS.md rule 11)
    if framed:
        if framed in ("onnxruntime", "onnx") and (_IMPORT_FAILURE.search(error_lines) or (group and group.component == "install")):
            return "install"  # the package's own frames, failing to import or load its native library
        importer = framed == "converter" and onnx_importer().search(text)
        if (framed == "optimizer" or importer) and _CHECKER_VERDICT.search(error_lines):
            return "onnx"
        return framed
    if group:
        return group.component
    # nothing more specific is named: onnxruntime only when the text carries onnxruntime's own words;
    # an ONNX text without them comes from another tool that reads or converts the file (an importer
    # such as tract, MNN, ncnn, RKNN, TensorRT's parser, or a converter), never from onnxruntime
    return "onnxruntime" if _ort_words().search(text) else "converter"


# an engine or compiler saying the .onnx file it was given cannot be opened (OpenVINO's 'Model file %s cannot
# be opened!', 'Could not open file %s', a missing path): the model was never read
_MODEL_FILE_UNREAD = re.compile(
    r"\.onnx\b[^\n]{0,200}(?:cannot be opened|could not be opened|No such file|does not exist|doesn.t exist|not found)|"
    r"(?:Could not open|cannot open|Unable to open|Failed to open|No such file or directory|does not exist)[^\n]{0,300}\.onnx\b", re.I)
# onnxruntime/core/session/inference_session.cc wraps what fails in InferenceSession::Initialize as
# 'Exception during initialization: %s' and a failed load as 'Load model from %s failed:%s'
_INITIALISING = re.compile(r"Exception during initialization|Load model from [^\n]{1,300}? failed", re.I)
_CONVERT = re.compile(r"version_converter|convert_version", re.I)
_SERIALISE = re.compile(r"ModelProto exceeds|2GiB limit|Failed to serialize proto|SerializeToString", re.I)
_PARSE = re.compile(
    r"Protobuf parsing failed|No graph was found|ModelProto does not have a graph|external data|Deserialize tensor|"
    r"Unable to parse proto from file|external TensorProto|\) should be (?:stored|file) in|does not have an ir_version set", re.I)


def _words(text: str, error_lines: str) -> str:
    """The stage the words say: install, then run, then load, error lines before the whole text."""
    stages = _table()[2]
    if stages["install"].search(error_lines):
        return "install"
    for scope in (error_lines, text):
        if stages["run"].search(scope):
            return "run"
        if stages["load"].search(scope):
            return "load"
    return "load"


def stage_of(component: str, text: str, error_lines: str, group: Group | None) -> str:
    """The stage, from the component, the phrase group that matched (when it names the same
    component) and what the error lines say."""
    if component == "onnx":
        # the entries file checker and shape-inference complaints under the step that made the
        # model (convert); parsing a file is loading it, writing one past 2 GB is exporting it
        if _SERIALISE.search(error_lines):
            return "export"
        return "load" if _PARSE.search(text) and not _CONVERT.search(text) else "convert"
    said = group.stage if group is not None and group.component == component else None
    if said == "run" and component == "onnxruntime" and _INITIALISING.search(error_lines):
        said = "load"  # a run-time check (OrtValue::Get) met while the session initialised: its wrapper says so
    if component in _COMPONENT_STAGE:
        if component != "install" and _IMPORT_FAILURE.search(error_lines):
            return "install"  # importing the tool failed before it could do anything
        if component == "converter" and _MODEL_FILE_UNREAD.search(error_lines):
            return "load"  # the engine never read the model: the file is not where it looks (LABELS.md rule 2)
        return said or _COMPONENT_STAGE[component]
    return said or _words(text, error_lines)

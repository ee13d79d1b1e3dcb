"""The entry schema: what a knowledge-base file must hold, checked with pydantic.

The front matter is for machines (matching, probes, linking); the body is for people and
always has the same sections in the same order, like rustc's error index.
"""
from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

ID_PATTERN = r"^OT\d{4}$"
SECTIONS = ("Symptom", "Cause", "Fix", "Verify")
STAGES = ("export", "convert", "quantize", "load", "run", "install")

# Facts a signature may extract through named groups. A closed list catches typos and
# lets probes rely on the names (the node probe reads `node`, `op`, `opset`).
FACT_NAMES = frozenset(
    {
        "op", "opset", "node", "domain", "provider", "provider2", "dtype", "dtype2",
        "input", "output", "expected", "actual", "index", "dim", "device", "device2",
        "ir_version", "max_ir_version", "max_opset", "file", "path", "hresult", "arg",
        "method", "aten_op", "python_op", "library", "version", "size", "attribute",
        "type_param", "status", "ep",
    }
)


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Signature(_Strict):
    """A regular expression over normalised error text; named groups extract facts."""

    pattern: str
    weight: float = Field(ge=0.0, le=1.0, description="How strongly a match alone points here.")
    ignore_case: bool = False
    note: str | None = None

    @field_validator("pattern")
    @classmethod
    def _compiles(cls, value: str) -> str:
        try:
            compiled = re.compile(value)
        except re.error as exc:
            raise ValueError(f"pattern does not compile: {exc}") from None
        unknown = set(compiled.groupindex) - FACT_NAMES
        if unknown:
            raise ValueError(
                f"unknown fact name(s) {sorted(unknown)}; allowed: {sorted(FACT_NAMES)}"
            )
        return value


class Example(_Strict):
    """A real error text, verbatim, with where it came from."""

    text: str = Field(min_length=10)
    source: str = Field(min_length=5, description="URL of the public report, or the tool and version that printed it.")
    holdout: bool = Field(False, description="Kept out of all tuning; used by bench/accuracy.py.")

    @property
    def thread(self) -> str | None:
        """The public thread the source names (its first URL, without #anchor or trailing
        punctuation), or None for a text produced here that cites no thread."""
        return source_thread(self.source)


_THREAD = re.compile(r"https?://\S+?(?=[\s)#]|$)")


def source_thread(source: str) -> str | None:
    """The first URL of an example's source, normalised so that two citations of one thread
    (with and without an anchor, a trailing '/' or '.') are one thread."""
    m = _THREAD.search(source)
    return m.group(0).rstrip(".,/") if m else None


class Context(_Strict):
    """Words around the error that make this cause more likely (e.g. `torch.onnx.export`)."""

    pattern: str
    weight: float = Field(ge=-1.0, le=1.0)

    @field_validator("pattern")
    @classmethod
    def _compiles(cls, value: str) -> str:
        try:
            re.compile(value)
        except re.error as exc:
            raise ValueError(f"pattern does not compile: {exc}") from None
        return value


class FindingLinks(_Strict):
    """Probe finding codes that confirm or refute this entry when a model is given."""

    confirm: tuple[str, ...] = ()
    refute: tuple[str, ...] = ()


def _tidy_zh(value: str) -> str:
    """Chinese text without the spaces YAML line folding leaves in it (kb.termtext.tidy_zh)."""
    from kb.termtext import tidy_zh

    return tidy_zh(value)


class Fix(_Strict):
    summary: str = Field(min_length=10)
    summary_zh: str = Field(min_length=2)

    _zh = field_validator("summary_zh")(_tidy_zh)


class Reference(_Strict):
    title: str
    url: str = Field(pattern=r"^https://")


class Versions(_Strict):
    """Prose for people (`affected`, `fixed`) and, where the reproduction depends on the release,
    a machine-readable packaging specifier per package that `kb lint` checks against the matrix
    `kb verify` measured (e.g. `onnxruntime: "<1.21"`)."""

    affected: str | None = None
    fixed: str | None = None
    onnxruntime: str | None = None
    onnx: str | None = None
    torch: str | None = None

    @field_validator("onnxruntime", "onnx", "torch")
    @classmethod
    def _specifier(cls, value: str | None) -> str | None:
        if value is None:
            return value
        from packaging.specifiers import InvalidSpecifier, SpecifierSet

        try:
            SpecifierSet(value)
        except InvalidSpecifier:
            raise ValueError(f"{value!r} is not a version specifier such as '<1.21' or '>=1.18,<1.20'") from None
        return value


class Entry(_Strict):
    """One known problem. The ID is permanent and never reused."""

    id: str = Field(pattern=ID_PATTERN)
    title: str = Field(min_length=10, max_length=120)
    title_zh: str = Field(min_length=2)
    summary: str = Field(min_length=20, max_length=400)
    summary_zh: str = Field(min_length=5)
    category: str
    _zh = field_validator("title_zh", "summary_zh", "retired_zh")(_tidy_zh)
    stage: Literal["export", "convert", "quantize", "load", "run", "install"]
    providers: tuple[str, ...] = ()
    provider_sets: tuple[tuple[str, ...], ...] = Field(
        (), description="Provider combinations that alone point here (e.g. OpenVINO with DirectML)."
    )
    signatures: tuple[Signature, ...] = Field(min_length=1)
    context: tuple[Context, ...] = ()
    examples: tuple[Example, ...] = Field(min_length=1)
    findings: FindingLinks = FindingLinks()
    fixes: tuple[Fix, ...] = Field(min_length=1)
    distinguish: str | None = Field(None, description="What tells this cause apart from its look-alikes.")
    related: tuple[str, ...] = ()
    references: tuple[Reference, ...] = ()
    versions: Versions = Versions()
    verified: None = Field(None, exclude=True, description="Retired: stamps come from `kb verify`, not hand edits.")
    retired: str | None = Field(None, description="Why the entry is retired; its ID stays taken.")
    retired_zh: str | None = Field(None, description="The same reason in Chinese (the Chinese page shows it).")
    remedies: tuple[str, ...] = Field((), description="Automatic repairs (`diagnose --fix`) that fix this problem; names from entries/remedies.yaml.")

    @model_validator(mode="after")
    def _retired_in_both_languages(self) -> Entry:
        if bool(self.retired) != bool(self.retired_zh):
            raise ValueError("retired and retired_zh go together: the Chinese page says why in Chinese")
        return self

    @field_validator("verified", mode="before")
    @classmethod
    def _no_hand_stamps(cls, value: object) -> None:
        if value is not None:
            raise ValueError("hand-written stamps are not kept: `kb verify` measures and records the releases "
                             "(entries/verified/); remove this key")
        return None


class Snippet(_Strict):
    """A fenced code block in an entry body; `role` comes from the info string."""

    language: str
    role: Literal["reproduce", "fixed", "example"]
    code: str
    line: int


class Document(_Strict):
    """An entry together with its body and where it was read from."""

    entry: Entry
    path: str
    body: str
    sections: dict[str, str]
    snippets: tuple[Snippet, ...] = ()


FAQ_ID_PATTERN = r"^FAQ\d{3}$"
FAQ_TOPICS = ("export", "onnx-tooling", "runtime", "providers", "quantization", "performance")


class FaqQuestion(_Strict):
    """One interview-style question: front matter of entries/faq/FAQnnn.md.

    The English answer is the Markdown body; the Chinese answer is a whole answer too, not a
    summary, because our first readers read Chinese.
    """

    id: str = Field(pattern=FAQ_ID_PATTERN)
    topic: Literal["export", "onnx-tooling", "runtime", "providers", "quantization", "performance"]
    question: str = Field(min_length=10, max_length=300)
    question_zh: str = Field(min_length=4, max_length=300)
    answer_zh: str = Field(min_length=40)
    _zh = field_validator("question_zh", "answer_zh")(_tidy_zh)
    related: tuple[str, ...] = Field(min_length=1, description="Entry IDs or category names the answer explains.")
    source: str | None = Field(None, description="Where the question comes from, e.g. 'interview question Q46'.")


class FaqDocument(_Strict):
    """A FAQ question with its English answer body and its runnable snippets."""

    question: FaqQuestion
    path: str
    body: str
    snippets: tuple[Snippet, ...] = ()

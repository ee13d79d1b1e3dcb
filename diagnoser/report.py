"""The report: frozen data that every renderer reads and the JSON contract is made of."""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal

SCHEMA_VERSION = "1.2"  # 1.1: report.triage; 1.2: the optional `fixes` section (diagnose --fix)
Severity = Literal["info", "warning", "error"]


@dataclass(frozen=True)
class Finding:
    """A fact a probe established about the model or environment."""

    code: str
    severity: Severity
    message: str
    probe: str
    node: str | None = None
    details: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Evidence:
    """One reason a diagnosis rose or fell. effect > 0 supports it, < 0 speaks against it."""

    kind: Literal["signature", "example", "context", "providers", "finding"]
    detail: str
    effect: float
    # whose words or facts: "text" (the user's paste), "session", "checker", "shape-inference",
    # "environment", "probe" (a probe's finding); "" when not labelled
    source: str = ""
    detail_zh: str = ""  # the same reason in Chinese ("" when only the English exists)


@dataclass(frozen=True)
class Diagnosis:
    id: str
    title: str
    title_zh: str
    category: str
    confidence: float
    summary: str
    summary_zh: str
    evidence: tuple[Evidence, ...]
    facts: dict[str, str]
    fix: str
    fix_zh: str
    fixes: tuple[str, ...]
    fixes_zh: tuple[str, ...]
    distinguish: str | None
    doc: str | None  # the entry's page (built locally or at ONNX_KB_DOCS_URL); None: `explain` says how to read it
    doc_zh: str | None
    explain: str


@dataclass(frozen=True)
class Change:
    """One edit a remedy made: kind names what (node-added, node-removed, node-retyped,
    node-changed, initializer, value_info, output, input, opset, ir_version, external-data)."""

    kind: str
    name: str
    detail: str = ""


@dataclass(frozen=True)
class OutputError:
    """One output of the repaired model against the original's (or the reference's) output.
    rel is max_abs divided by the largest |reference| value, so it is defined near zero."""

    name: str
    dtype: str
    max_abs: float | None
    rel: float | None
    ok: bool
    note: str = ""


@dataclass(frozen=True)
class Verification:
    """The one shared check every repaired model passes before it is written."""

    passed: bool
    reason: str  # why it failed, or what passing means here
    checker: str  # "ok" or the checker's / strict shape inference's first line
    session: str  # "ran", "not run" or onnxruntime's first line
    reference: str | None  # "onnxruntime", "onnx.reference" or None when the original runs nowhere
    tolerance: str  # exact, float32, float16, bfloat16 or report (shown, not gated)
    atol: float | None
    rtol: float | None
    shapes: dict[str, list[int]] = field(default_factory=dict)
    outputs: tuple[OutputError, ...] = ()


@dataclass(frozen=True)
class RemedyRecord:
    name: str
    grade: str  # safe, numerics, review
    entries: tuple[str, ...]  # the diagnosed entries that name this remedy
    status: str  # applied, failed, not-needed, needs-unsafe, error
    message: str
    changes: tuple[Change, ...] = ()
    verification: Verification | None = None
    title: str = ""
    title_zh: str = ""


@dataclass(frozen=True)
class FixOutcome:
    """What `diagnose --fix` did: each remedy tried, and the file written (None: nothing written)."""

    input: str
    output: str | None
    remedies: tuple[RemedyRecord, ...]
    unsafe: bool = False


@dataclass(frozen=True)
class Failure:
    """A failure a probe saw (the file, the session, the checker...) that no diagnosis explains:
    it leads the report instead of "no known problem". A text triage can attach to it."""

    code: str  # the finding's code
    stage: str  # what failed, e.g. "creating an onnxruntime session"
    error: str  # the core of the tool's own words, one line
    node: dict[str, str] = field(default_factory=dict)  # node, op, op_version, input0...: its facts


@dataclass(frozen=True)
class Report:
    diagnoses: tuple[Diagnosis, ...]
    candidates: tuple[Diagnosis, ...]
    findings: tuple[Finding, ...]
    facts: dict[str, str]
    notes: tuple[str, ...]
    input: dict[str, Any]
    failures: tuple[Failure, ...] = ()  # what failed unexplained, most decisive first
    notes_zh: tuple[str, ...] = ()  # the notes in Chinese, one for one (schema 1.2)
    schema_version: str = SCHEMA_VERSION
    fixes: FixOutcome | None = None  # only with --fix (diagnoser.fix)

    @property
    def diagnosed(self) -> bool:
        return bool(self.diagnoses)

    @property
    def environment_only(self) -> bool:
        """A `--env` check with no error text and no model: a healthy result is an answer, not a miss."""
        return bool(self.input.get("env")) and not self.input.get("text_chars") and not self.input.get("model")

    @property
    def healthy(self) -> bool:
        """Nothing diagnosed, no candidate, and no probe reported an error or a warning."""
        return not (self.diagnoses or self.candidates or self.failures) and not any(f.severity in ("error", "warning") for f in self.findings)
    # what no entry explains, sorted out (diagnoser.triage); None when a diagnosis stands or the
    # text is not about ONNX. Declared here, after the other fields, so it keeps its default.
    triage: Triage | None = None

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        ordered = {"schema_version": data.pop("schema_version")}
        ordered.update(data)
        if ordered.get("fixes") is None:
            ordered.pop("fixes", None)
        return ordered


@dataclass(frozen=True)
class Closest:
    """An entry near an unexplained error, and what would make it the answer."""

    id: str
    title: str
    title_zh: str
    confidence: float
    tell: str  # what tells this entry apart (its `distinguish`, else its title)


@dataclass(frozen=True)
class Triage:
    """An ONNX-family error no entry explains, sorted out: who raised it, when, about what.

    component is one of onnxruntime, torch.onnx, onnx, converter, quantization, optimizer,
    onnxruntime-web, install; stage one of export, convert, quantize, load, run, install.
    facts holds only what the text says: provider, binding, source_file, op, op_version, node,
    status, exporter (torchscript/dynamo), aten_op, converter, tool (the ecosystem tool whose marks
    the text carries, diagnoser/data/triage_tools.yaml). node holds what --model says of
    the named node: op, domain, attributes, inputs (dtype and shape), producers.
    """

    component: str
    stage: str
    error: str  # the error line the triage read (wrappers stripped)
    facts: dict[str, str]
    closest: tuple[Closest, ...]
    next_steps: tuple[str, ...]
    next_steps_zh: tuple[str, ...]
    node: dict[str, str] = field(default_factory=dict)

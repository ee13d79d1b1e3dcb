"""`kb lint`: every check over the database, every problem collected before failing."""
from __future__ import annotations

from collections.abc import Callable, Iterable
from importlib.metadata import entry_points

from kb.database import Database
from kb.checks.problems import Problem
from kb.checks.regexsafety import backtracking_problem
from kb.measure.verify_run import imports

KNOWN_PROVIDERS = frozenset(
    {
        "CPUExecutionProvider", "CUDAExecutionProvider", "TensorrtExecutionProvider",
        "DmlExecutionProvider", "OpenVINOExecutionProvider", "CoreMLExecutionProvider",
        "NnapiExecutionProvider", "QNNExecutionProvider", "ROCMExecutionProvider",
        "MIGraphXExecutionProvider", "XnnpackExecutionProvider", "WebGpuExecutionProvider",
        "JsExecutionProvider", "WebNNExecutionProvider", "ACLExecutionProvider",
        "ArmNNExecutionProvider", "AzureExecutionProvider", "VitisAIExecutionProvider",
        "CANNExecutionProvider", "NvTensorRTRTXExecutionProvider",
    }
)

Check = Callable[[Database], Iterable[Problem]]


def _line_of(doc_path: str, needle: str, db: Database) -> int:
    """Best-effort line of needle in the entry file, for pointing at the culprit."""
    for doc in db.documents.values():
        if doc.path == doc_path:
            try:
                text = (db.root / (doc.entry.id + ".md")).read_text(encoding="utf-8")
            except OSError:
                return 1
            idx = text.find(needle)
            return text.count("\n", 0, idx) + 1 if idx >= 0 else 1
    return 1


def check_references(db: Database) -> Iterable[Problem]:
    for doc in db.documents.values():
        e = doc.entry
        if e.category not in db.categories:
            yield Problem(doc.path, _line_of(doc.path, "category:", db), f"unknown category '{e.category}' (see entries/categories.yaml)")
        for rel in e.related:
            if rel not in db.documents:
                yield Problem(doc.path, _line_of(doc.path, rel, db), f"related entry {rel} does not exist")
            elif rel == e.id:
                yield Problem(doc.path, _line_of(doc.path, rel, db), "an entry cannot be related to itself")
        for code in (*e.findings.confirm, *e.findings.refute):
            if code not in db.findings:
                yield Problem(doc.path, _line_of(doc.path, code, db), f"finding code '{code}' is not in entries/findings.yaml")
        for prov in (*e.providers, *(p for s in e.provider_sets for p in s)):
            if prov not in KNOWN_PROVIDERS:
                yield Problem(doc.path, _line_of(doc.path, prov, db), f"unknown execution provider '{prov}'")


def check_patterns(db: Database) -> Iterable[Problem]:
    for doc in db.documents.values():
        for sig in (*doc.entry.signatures, *doc.entry.context):
            reason = backtracking_problem(sig.pattern)
            if reason:
                yield Problem(doc.path, _line_of(doc.path, sig.pattern[:30], db), f"pattern {sig.pattern!r}: {reason}")


def check_categories_covered(db: Database) -> Iterable[Problem]:
    """Report categories with no entry yet; informational until the database is complete."""
    used = {d.entry.category for d in db.documents.values()}
    for cat in db.categories:
        if cat not in used:
            yield Problem("entries/categories.yaml", 1, f"category '{cat}' has no entry")


def check_snippets(db: Database) -> Iterable[Problem]:
    for doc in db.documents.values():
        roles = [s.role for s in doc.snippets]
        if roles.count("reproduce") > 1:
            yield Problem(doc.path, doc.snippets[0].line, "at most one 'python reproduce' block per entry")
        for snip in doc.snippets:
            try:
                compile(snip.code, f"{doc.path}:{snip.line}", "exec")
            except SyntaxError as exc:
                yield Problem(doc.path, snip.line + (exc.lineno or 1), f"snippet does not compile: {exc.msg}")
                continue
            if "make_model(" in snip.code and "ir_version" not in snip.code and "onnxruntime" in imports(snip.code):
                # onnx stamps the newest IR version it knows; older onnxruntime releases refuse it, so
                # `kb verify` would record "fails differently" on them instead of measuring the problem.
                yield Problem(doc.path, snip.line, "snippet builds a model for onnxruntime without pinning ir_version (the oldest its opsets allow: onnx.helper.find_min_ir_version_for)")


def check_symptom_quotes_examples(db: Database) -> Iterable[Problem]:
    """The Symptom section must quote the error verbatim: one example's decisive line appears in it."""
    for doc in db.documents.values():
        symptom = doc.sections.get("Symptom", "")
        if not any(_first_error_line(ex.text) in symptom for ex in doc.entry.examples):
            yield Problem(doc.path, _line_of(doc.path, "## Symptom", db), "Symptom does not quote any example text verbatim")


def _first_error_line(text: str) -> str:
    lines = [ln.strip() for ln in text.strip().splitlines() if ln.strip()]
    return lines[-1] if lines else text


def check_faq(db: Database) -> Iterable[Problem]:
    """FAQ files validate, link to entries or categories that exist, and their code compiles.

    Python blocks of the Chinese answer must also appear in the English body, where the tests run them.
    """
    from kb.faq import load_faq
    from kb.loader import _snippets

    faq = load_faq(db.root, strict=False)
    yield from faq.problems
    for doc in faq.questions.values():
        q = doc.question
        for rel in q.related:
            if rel not in db.documents and rel not in db.categories:
                yield Problem(doc.path, _faq_line(doc.path, rel), f"related '{rel}' is neither an entry ID nor a category")
        for snip in doc.snippets:
            try:
                compile(snip.code, f"{doc.path}:{snip.line}", "exec")
            except SyntaxError as exc:
                yield Problem(doc.path, snip.line + (exc.lineno or 1), f"snippet does not compile: {exc.msg}")
        tested = {s.code.strip() for s in doc.snippets}
        for snip in _snippets(q.answer_zh, 1):
            if snip.code.strip() not in tested:
                yield Problem(doc.path, _faq_line(doc.path, "answer_zh:"), "a python block in answer_zh is not in the English answer, so no test runs it")


def _faq_line(path: str, needle: str) -> int:
    try:
        text = open(path, encoding="utf-8").read()
    except OSError:
        return 1
    idx = text.find(needle)
    return text.count("\n", 0, idx) + 1 if idx >= 0 else 1


def check_remedies(db: Database) -> Iterable[Problem]:
    """Every remedy an entry names exists in entries/remedies.yaml, with a known grade."""
    from kb.remedies import GRADES, load_remedies

    known = load_remedies(db.root)
    for name, spec in known.items():
        if spec.get("grade") not in GRADES or not spec.get("title") or not spec.get("title_zh"):
            yield Problem(str(db.root / "remedies.yaml"), 1, f"remedy '{name}' needs a grade ({', '.join(GRADES)}), a title and a title_zh")
    for doc in db.documents.values():
        for name in doc.entry.remedies:
            if name not in known:
                yield Problem(doc.path, _line_of(doc.path, name, db), f"remedy '{name}' is not in entries/remedies.yaml")


def check_measured_versions(db: Database) -> Iterable[Problem]:
    """`versions.onnxruntime` (and onnx, torch) claims agree with what `kb verify` measured.

    A release inside the claimed range where the reproduction does not fail, or outside it where it
    does, is a problem; so is a reproduction that is measured to depend on the release with no
    claim to check, and a record of an entry that does not exist.
    """
    from kb.measure.verify_matrix import contradictions, folder, load_all, load_matrix, version_dependent

    records = load_all(db.root)
    for path in sorted(folder(db.root).glob("OT*.yaml")):
        try:
            m = load_matrix(path)
        except Exception as exc:  # any unreadable record is reported, never fatal
            yield Problem(str(path), 1, f"not a kb verify record: {exc}")
            continue
        if m.id not in db.documents:
            yield Problem(str(path), 2, f"record of {m.id}, which is not an entry")
        elif path.stem != m.id:
            yield Problem(str(path), 2, f"file name must be the ID: {m.id}.yaml")
    for ident, m in records.items():
        doc = db.documents.get(ident)
        if doc is None:
            continue
        for axis in ("onnxruntime", "onnx", "torch"):
            spec = getattr(doc.entry.versions, axis)
            if spec:
                line = _versions_line(db.root / f"{ident}.md", axis)
                for msg in contradictions(spec, m, axis):
                    yield Problem(doc.path, line, f"measured by kb verify: {msg}")
            elif version_dependent(m, axis):
                yield Problem(doc.path, _line_of(doc.path, "versions:", db),
                              f"measured by kb verify: the reproduction depends on the {axis} release (entries/verified/{ident}.yaml): "
                              f"state it as versions.{axis}, a specifier such as '<1.21'")


def _versions_line(path, axis: str) -> int:
    """Line of `versions:`'s `axis:` key (the same word appears elsewhere in an entry)."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError:
        return 1
    start = next((i for i, ln in enumerate(lines) if ln.startswith("versions:")), 0)
    return next((i + 1 for i in range(start, len(lines)) if lines[i].strip().startswith(f"{axis}:")), start + 1)


CORE_CHECKS: tuple[Check, ...] = (
    check_references, check_patterns, check_snippets, check_symptom_quotes_examples, check_faq, check_remedies, check_measured_versions,
)


def plugin_checks() -> list[tuple[str, Check]]:
    """Checks other packages contribute (the diagnoser adds 'every example ranks its entry first')."""
    found = []
    for ep in entry_points(group="kb.lint_checks"):
        found.append((ep.name, ep.load()))
    return found


def lint(db: Database, extra: Iterable[Check] | None = None) -> list[Problem]:
    problems = list(db.problems)
    checks = list(CORE_CHECKS) + list(extra if extra is not None else (c for _, c in plugin_checks()))
    for check in checks:
        try:
            problems.extend(check(db))
        except Exception as exc:  # a broken check is reported, the others still run
            problems.append(Problem("(lint)", 0, f"check {getattr(check, '__name__', check)} failed: {exc!r}"))
    return sorted(set(problems))



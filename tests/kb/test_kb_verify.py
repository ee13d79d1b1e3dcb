"""`kb verify`: the matrix data (ranges, diff, merge, claims), the snippet classification, one real
run against the installed onnxruntime only (no download: CI time does not grow), the lint check of
`versions.onnxruntime`, and the line on the entry page and in `kb show`."""
from __future__ import annotations

import os
import re
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import pytest

from kb import load
from kb.checks.lint import lint
from tests.entry_trees import entry_tree
from kb.schema import Signature
from kb.measure.verify_envs import requirements
from kb.measure.verify_matrix import (
    ANY, Matrix, code_hash, codes_of, collapse, contradictions, diff, load_matrix, merge, save_matrix, summary,
    version_dependent,
)
from kb.measure.verify_run import Run, classify, depends_on

RELEASES = ["1.17.3", "1.19.2", "1.20.1", "1.21.1", "1.23.2", "1.26.0", "1.31.1", "1.32.0"]


def _m(repro: dict[str, str], fixed: dict[str, str] | None = None, ident: str = "OT0001", code: dict | None = None) -> Matrix:
    roles = {"reproduce": repro, **({"fixed": fixed} if fixed else {})}
    return Matrix(id=ident, measured="2026-11-24", using={"onnx": "1.23.2"}, code=code or {}, results={"onnxruntime": roles})


def _split(cut: str, before: str = "reproduced", after: str = "no-error") -> dict[str, str]:
    return {r: before if r < cut else after for r in RELEASES}


# -- data: ranges, summary, diff, merge, claims --------------------------------------------------

def test_collapse_groups_consecutive_releases_in_version_order():
    got = {"1.32.0": "no-error", "1.17.3": "reproduced", "1.20.1": "reproduced", "1.19.2": "no-error"}
    assert collapse(list(got), got) == [
        ("reproduced", "1.17.3", "1.17.3"), ("no-error", "1.19.2", "1.19.2"),
        ("reproduced", "1.20.1", "1.20.1"), ("no-error", "1.32.0", "1.32.0"),
    ]


def test_summary_collapses_ranges_over_the_measured_list():
    m = _m(_split("1.21"), {r: "works" for r in RELEASES})
    assert summary(m) == ("reproduced on onnxruntime 1.17.3\u20131.20.1 (linux x86_64 CPU); "
                          "not on 1.21.1\u20131.32.0; fix works on all")
    zh = summary(m, lang="zh")
    assert zh.startswith("可复现于 onnxruntime 1.17.3\u20131.20.1（linux x86_64 CPU）；不复现于") and "修复有效于 全部版本" in zh


def test_summary_of_a_release_independent_snippet_and_of_a_changed_snippet():
    m = _m({ANY: "reproduced"}, {"1.17.3": "works", "1.32.0": "fails"}, code={"fixed": "aaa"})
    line = summary(m, current={"fixed": "bbb"})
    assert line.startswith("reproduced on any onnxruntime release (the snippet does not import it)")
    assert line.endswith("fix works on 1.17.3; fix fails on 1.32.0 [snippet changed since]")


def test_diff_names_what_started_or_stopped_on_a_new_and_on_a_remeasured_release():
    old = {"OT0001": _m(_split("9"), {r: "works" for r in RELEASES}), "OT0002": _m({r: "reproduced" for r in RELEASES})}
    new = {
        "OT0001": _m({**_split("9"), "1.33.0": "no-error"}, {**{r: "works" for r in RELEASES}, "1.33.0": "works"}),
        "OT0002": _m({**{r: "reproduced" for r in RELEASES}, "1.19.2": "other-error"}, ident="OT0002"),
        "OT0003": _m({"1.33.0": "reproduced"}, ident="OT0003"),
    }
    assert diff(old, new) == [
        "OT0001 reproduce on new onnxruntime 1.33.0: no-error (was reproduced on 1.32.0; stopped reproducing)",
        "OT0002 reproduce on onnxruntime 1.19.2: reproduced -> other-error (stopped reproducing)",
        "OT0003: first measured: reproduced on onnxruntime 1.33.0 (linux x86_64 CPU)",
    ]
    assert diff(new, new) == []
    noted = {"OT0002": Matrix(**{**new["OT0002"].__dict__, "notes": {"onnxruntime reproduce 1.19.2": "ValueError: x"}})}
    assert diff(old, noted) == ["OT0002 reproduce on onnxruntime 1.19.2: reproduced -> other-error (stopped reproducing)"
                                "\n    ValueError: x"]


def test_merge_keeps_other_releases_but_drops_outcomes_of_changed_code():
    old = _m({"1.17.3": "reproduced", "1.32.0": "reproduced"}, {"1.17.3": "works"}, code={"reproduce": "r1", "fixed": "f1"})
    same = merge(old, _m({"1.33.0": "no-error"}, code={"reproduce": "r1"}))
    assert same.outcomes("reproduce") == {"1.17.3": "reproduced", "1.32.0": "reproduced", "1.33.0": "no-error"}
    assert same.outcomes("fixed") == {"1.17.3": "works"}
    changed = merge(old, _m({"1.33.0": "no-error"}, code={"reproduce": "r2"}))
    assert changed.outcomes("reproduce") == {"1.33.0": "no-error"}
    assert merge(old, _m({ANY: "reproduced"}, code={"reproduce": "r1"})).outcomes("reproduce") == {ANY: "reproduced"}
    noted = Matrix(**{**old.__dict__, "notes": {"onnxruntime fixed 1.17.3": "IR 10", "onnxruntime reproduce 1.32.0": "x"}})
    after = merge(noted, _m({"1.32.0": "reproduced"}, code={"reproduce": "r1"}))
    assert after.notes == {"onnxruntime fixed 1.17.3": "IR 10"}


def test_contradictions_inside_and_outside_the_claimed_range():
    m = _m(_split("1.21"))
    assert contradictions("<1.21", m) == [] and version_dependent(m)
    got = contradictions("<1.20", m)
    assert got == ["1.20.1 is outside versions.onnxruntime '<1.20' but the reproduction reproduces"]
    assert contradictions(">=1.17", m)[0].startswith("1.21.1 is inside")
    assert "not a version specifier" in contradictions("before 1.21", m)[0]
    assert not version_dependent(_m({r: "reproduced" for r in RELEASES}))


def test_record_round_trips_through_its_file(tmp_path):
    m = Matrix(**{**_m(_split("1.21"), {r: "works" for r in RELEASES}, code={"reproduce": "abc"}).__dict__,
                  "notes": {"onnxruntime reproduce 1.21.1": "ok"}})
    path = save_matrix(tmp_path, m)
    assert path == tmp_path / "verified" / "OT0001.yaml"
    assert path.read_text(encoding="utf-8").startswith("# Generated by `kb verify`")
    assert load_matrix(path) == m


# -- running: classification, dependence, environments -------------------------------------------

SIG = [Signature(pattern=r"NOT_IMPLEMENTED : Could not find an implementation", weight=0.7)]


@pytest.mark.parametrize(("role", "runs", "expected"), [
    ("reproduce", [Run(1, "x\nNOT_IMPLEMENTED :  Could not find an implementation for Add(14)")], "reproduced"),
    ("reproduce", [Run(1, "ValueError: something else")], "other-error"),
    ("reproduce", [Run(0, "")], "no-error"),
    ("reproduce", [Run(77, "no GPU")], "skipped"),
    ("reproduce", [Run(None, "")], "timeout"),
    ("reproduce", [Run(1, "ModuleNotFoundError: No module named 'onnxsim'")], "skipped"),
    ("reproduce", [Run(1, "ModuleNotFoundError: No module named 'foo'")], "other-error"),
    ("reproduce", [Run(1, "ModuleNotFoundError: No module named 'onnxsim.gone'")], "other-error"),
    ("fixed", [Run(0, ""), Run(0, "")], "works"),
    ("fixed", [Run(0, ""), Run(1, "boom")], "fails"),
])
def test_classify(role, runs, expected):
    codes = ["import onnxsim\nimport onnxruntime"]
    assert classify(role, runs, codes, SIG) == expected


def test_depends_on_looks_through_the_imports():
    assert depends_on(["import onnxruntime as ort"], "onnxruntime")
    assert depends_on(["from onnxsim import simplify"], "onnxruntime")  # onnxsim runs onnxruntime
    assert not depends_on(["import onnx\nimport torch"], "onnxruntime")
    assert depends_on(["import torch"], "onnx")


def test_old_releases_get_the_numpy_they_were_built_for():
    assert requirements("onnxruntime", "1.17.3") == ["onnxruntime==1.17.3", "numpy<2"]
    assert requirements("onnxruntime", "1.32.0") == ["onnxruntime==1.32.0"]


# -- a real run against the installed release ----------------------------------------------------



def _kb(*args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "COLUMNS": "80"}
    return subprocess.run([sys.executable, "-m", "kb", *args], capture_output=True, text=True, timeout=600, env=env)


def test_kb_verify_installed_measures_one_entry_and_a_rerun_changes_nothing(tmp_path):
    root = entry_tree(tmp_path, "OT0001")
    installed = version("onnxruntime")
    proc = _kb("verify", "--installed", "--only", "ot1", "--root", str(root), "--jobs", "1")
    assert proc.returncode == 0, proc.stderr
    m = load_matrix(root / "verified" / "OT0001.yaml")
    assert m.outcomes("reproduce") == {installed: "reproduced"}
    assert m.outcomes("fixed") == {installed: "works"}
    assert m.using["onnx"] == version("onnx") and m.measured
    assert proc.stdout.startswith("OT0001: first measured: reproduced on onnxruntime")
    again = _kb("verify", "--installed", "--only", "OT0001", "--root", str(root), "--jobs", "1")
    assert again.returncode == 0 and again.stdout == "", again.stdout + again.stderr
    assert "0 change(s)" in again.stderr


def test_kb_verify_bad_input_is_one_line(tmp_path):
    root = entry_tree(tmp_path, "OT0001")
    for args, word in ((["--add", "one.two"], "not a release"), (["--only", "OT9999", "--installed"], "no entry"),
                       ([], "no release recorded")):
        proc = _kb("verify", "--root", str(root), *args)
        assert proc.returncode == 2 and word in proc.stderr and "Traceback" not in proc.stderr, proc.stderr


# -- lint and display ----------------------------------------------------------------------------

def _with_record(tmp_path: Path, spec: str | None) -> tuple[Path, Path]:
    root = entry_tree(tmp_path, "OT0001")
    doc = load(root, strict=False).documents["OT0001"]
    digest = {r: code_hash(codes_of(doc, r)) for r in ("reproduce", "fixed")}
    save_matrix(root, _m(_split("1.21"), {r: "works" for r in RELEASES}, code=digest))
    entry = root / "OT0001.md"
    if spec:
        text = entry.read_text(encoding="utf-8")
        entry.write_text(text.replace("versions:\n", f"versions:\n  onnxruntime: \"{spec}\"\n", 1), encoding="utf-8")
    return root, entry


def _measured_problems(root: Path) -> list[str]:
    return [str(p) for p in lint(load(root, strict=False), extra=()) if "kb verify" in p.message or "record" in p.message]


def test_lint_accepts_a_claim_the_matrix_agrees_with(tmp_path):
    root, _ = _with_record(tmp_path, "<1.21")
    assert _measured_problems(root) == []


def test_lint_rejects_a_claim_the_matrix_contradicts_with_its_line(tmp_path):
    root, entry = _with_record(tmp_path, "<1.20")
    line = entry.read_text(encoding="utf-8").splitlines().index('  onnxruntime: "<1.20"') + 1
    problems = _measured_problems(root)
    assert problems == [f"{entry}:{line}: measured by kb verify: 1.20.1 is outside versions.onnxruntime '<1.20' "
                        "but the reproduction reproduces"]


def test_lint_asks_for_a_claim_when_the_reproduction_depends_on_the_release(tmp_path):
    root, _ = _with_record(tmp_path, None)
    assert any("depends on the onnxruntime release" in p for p in _measured_problems(root))
    save_matrix(root, _m({}, ident="OT0999"))
    assert any("record of OT0999, which is not an entry" in p for p in _measured_problems(root))


def test_lint_rejects_a_specifier_that_is_not_one(tmp_path):
    root, _ = _with_record(tmp_path, "before 1.21")
    assert any("not a version specifier" in str(p) for p in lint(load(root, strict=False), extra=()))


def test_the_line_is_on_the_page_and_in_kb_show(tmp_path):
    from kb.faq import load_faq
    from kb.docs.pages import render_all

    root, _ = _with_record(tmp_path, "<1.21")
    line = "reproduced on onnxruntime 1.17.3\u20131.20.1 (linux x86_64 CPU); not on 1.21.1\u20131.32.0; fix works on all"
    pages = render_all(load(root, strict=False), load_faq(root, strict=False))
    assert line in pages["docs/en/entries/OT0001.md"]
    assert "可复现于 onnxruntime 1.17.3\u20131.20.1" in pages["docs/zh/entries/OT0001.md"]
    shown = _kb("show", "OT0001", "--root", str(root))
    assert shown.returncode == 0
    para = next(p for p in shown.stdout.split("\n\n") if p.startswith("measured: "))
    assert " ".join(ln.strip() for ln in para.splitlines()) == "measured: " + line
    assert all(len(ln) <= 80 for ln in para.splitlines())


def test_hand_written_verified_stamps_are_rejected_with_their_line(tmp_path):
    root = entry_tree(tmp_path, "OT0001")
    entry = root / "OT0001.md"
    text = re.sub(r"^verified:\n(?:  .*\n)*", "", entry.read_text(encoding="utf-8"), flags=re.M)
    entry.write_text(text.replace("versions:\n", 'verified: {onnxruntime: "1.31.1"}\nversions:\n', 1), encoding="utf-8")
    line = entry.read_text(encoding="utf-8").splitlines().index('verified: {onnxruntime: "1.31.1"}') + 1
    problems = [str(p) for p in lint(load(root, strict=False), extra=())]
    assert any(p.startswith(f"{entry}:{line}:") and "kb verify" in p for p in problems), problems

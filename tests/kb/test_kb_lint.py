"""`kb lint` passes on the real database and catches each kind of broken entry, with its line."""
from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from kb import load
from kb.checks.lint import lint
from kb.paths import entries_dir
from tests.entry_trees import entry_tree

REAL = entries_dir()


def test_real_entries_lint_clean():
    problems = lint(load(REAL, strict=False))
    assert problems == [], "\n".join(map(str, problems))


def test_kb_lint_command_passes_a_clean_tree(tmp_path):
    """The command's exit 0 (the real database is linted in-process above, and a broken tree by the
    command below; linting the real database twice cost a minute of CI)."""
    root = entry_tree(tmp_path, "OT0005", "OT0006")
    proc = subprocess.run([sys.executable, "-m", "kb", "lint", "--root", str(root)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "2 entries, no problems" in proc.stdout + proc.stderr




def _problems(root: Path) -> list[str]:
    return [str(p) for p in lint(load(root, strict=False))]


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, f"fixture text not found: {old!r}"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def _line_of(path: Path, needle: str) -> int:
    text = path.read_text(encoding="utf-8")
    return text[: text.index(needle)].count("\n") + 1


def test_fixture_tree_is_clean_before_breaking(tmp_path):
    assert _problems(entry_tree(tmp_path, "OT0005", "OT0006")) == []


def test_schema_error_reports_its_line(tmp_path):
    root = entry_tree(tmp_path, "OT0005")
    f = root / "OT0005.md"
    _edit(f, "category: ep.openvino-memcpy", "category: ep.openvino-memcpy\nseverity: high")
    problems = _problems(root)
    line = _line_of(f, "severity: high")
    assert any(p.startswith(f"{f}:{line}:") and "severity" in p for p in problems), problems


def test_unknown_category(tmp_path):
    root = entry_tree(tmp_path, "OT0005")
    _edit(root / "OT0005.md", "category: ep.openvino-memcpy", "category: ep.nonsense")
    assert any("unknown category 'ep.nonsense'" in p for p in _problems(root))


def test_duplicate_id(tmp_path):
    root = entry_tree(tmp_path, "OT0005")
    shutil.copy(root / "OT0005.md", root / "OT0007.md")
    problems = _problems(root)
    assert any("duplicate ID OT0005" in p for p in problems)
    assert any("file name must be the ID" in p for p in problems)


def test_regex_that_does_not_compile(tmp_path):
    root = entry_tree(tmp_path, "OT0005")
    _edit(root / "OT0005.md", "doesn't support memcpy\"\n    weight: 0.95", "doesn't support memcpy(\"\n    weight: 0.95")
    assert any("does not compile" in p for p in _problems(root))


def test_catastrophic_regex(tmp_path):
    root = entry_tree(tmp_path, "OT0005")
    _edit(root / "OT0005.md", "doesn't support memcpy\"\n    weight: 0.95", "doesn't support memcpy(\\\\w+\\\\s?)*x\"\n    weight: 0.95")
    assert any("backtrack catastrophically" in p for p in _problems(root))


def test_example_that_ranks_another_entry_first(tmp_path):
    root = entry_tree(tmp_path, "OT0005", "OT0006")
    f = root / "OT0005.md"
    _edit(f, '  - text: "Execution type OpenVINOExecutionProvider', '  - text: "RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu! during torch.onnx.export"\n    source: "https://example.org/x"\n  - text: "Execution type OpenVINOExecutionProvider')
    problems = _problems(root)
    assert any(re.search(r"example 1 ranks OT0005 (nowhere|#\d) \(top: OT0006", p) for p in problems), problems


def test_missing_related_entry(tmp_path):
    root = entry_tree(tmp_path, "OT0006")
    _edit(root / "OT0006.md", "related: []", "related: [OT0999]")
    assert any("related entry OT0999 does not exist" in p for p in _problems(root))


def test_missing_section(tmp_path):
    root = entry_tree(tmp_path, "OT0005")
    _edit(root / "OT0005.md", "## Verify", "## Checking")
    assert any("missing section '## Verify'" in p for p in _problems(root))


def test_sections_out_of_order(tmp_path):
    root = entry_tree(tmp_path, "OT0005")
    f = root / "OT0005.md"
    text = f.read_text(encoding="utf-8")
    cause = text[text.index("## Cause"): text.index("## Fix")]
    text = text.replace(cause, "")
    f.write_text(text.rstrip() + "\n\n" + cause, encoding="utf-8")
    assert any("out of order" in p for p in _problems(root))


def test_unknown_finding_code(tmp_path):
    root = entry_tree(tmp_path, "OT0005")
    _edit(root / "OT0005.md", "  confirm: []", "  confirm: [node.made-up]")
    assert any("finding code 'node.made-up'" in p for p in _problems(root))


def test_snippet_that_does_not_compile(tmp_path):
    root = entry_tree(tmp_path, "OT0005")
    _edit(root / "OT0005.md", "PREFERENCE = [", "PREFERENCE = [[")
    assert any("snippet does not compile" in p for p in _problems(root))


def test_snippet_model_for_onnxruntime_without_ir_version(tmp_path):
    """onnx's default IR version is its newest, which older onnxruntime releases refuse: kb verify
    would record 'fails differently' there instead of measuring the problem."""
    root = entry_tree(tmp_path, "OT0001")
    assert not any("without pinning ir_version" in p for p in _problems(root))
    _edit(root / "OT0001.md", 'make_opsetid("", 14)], ir_version=10)', 'make_opsetid("", 14)])')
    assert any("without pinning ir_version" in p for p in _problems(root))


def test_missing_front_matter(tmp_path):
    root = entry_tree(tmp_path)
    (root / "OT0009.md").write_text("# no front matter\n", encoding="utf-8")
    assert any("missing front matter" in p for p in _problems(root))


def test_bad_yaml_reports_line(tmp_path):
    root = entry_tree(tmp_path, "OT0005")
    f = root / "OT0005.md"
    _edit(f, "stage: load", "stage: [load")
    problems = _problems(root)
    assert any(p.startswith(str(f)) and "not valid YAML" in p for p in problems), problems


def test_kb_lint_command_fails_on_brokenentry_tree(tmp_path):
    root = entry_tree(tmp_path, "OT0005")
    _edit(root / "OT0005.md", "related: []", "related: [OT0999]")
    proc = subprocess.run([sys.executable, "-m", "kb", "lint", "--root", str(root)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1
    assert re.search(r"OT0005\.md:\d+: related entry OT0999 does not exist", proc.stdout)


@pytest.mark.parametrize("pattern,safe", [
    (r"Could not find an implementation for (?P<op>\w{1,60})", True),
    (r"(a+)+b", False),
    (r"(\w+\s?)*$", False),
    (r"(?:x{1,3})*", True),
    (r"(?:ab|cd){1,5}z+", True),
])
def test_regex_safety(pattern, safe):
    from kb.checks.regexsafety import backtracking_problem

    assert (backtracking_problem(pattern) is None) == safe


def test_heading_inside_a_code_block_is_not_a_section(tmp_path):
    root = entry_tree(tmp_path, "OT0005")
    f = root / "OT0005.md"
    _edit(f, "Execution type OpenVINOExecutionProvider doesn't support memcpy\n```", "Execution type OpenVINOExecutionProvider doesn't support memcpy\n## Exception summary\n```")
    assert _problems(root) == []

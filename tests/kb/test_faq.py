"""The interview-style FAQ: data that validates, covers the article's questions, runs its code,
and the `kb faq` commands (list, show, search, quiz through stdin)."""
from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from kb import load
from kb.faq import load_faq, normalise_faq_id
from kb.checks.lint import check_faq, lint
from kb.loader import _snippets
from kb.paths import entries_dir
from kb.schema import FAQ_TOPICS
from tests.snippets import run_or_skip

REAL = entries_dir()
FAQ = load_faq(REAL, strict=False)
CASES = [
    pytest.param(doc, snip, id=f"{doc.question.id}-L{snip.line}")
    for doc in FAQ.questions.values()
    for snip in doc.snippets
]


def kb(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "kb", *args], input=stdin, capture_output=True, text=True, timeout=120)


def test_faq_loads_clean_and_lint_agrees(db):
    assert FAQ.problems == ()
    assert list(check_faq(db)) == []


def test_at_least_40_questions_over_every_topic():
    assert len(FAQ.questions) >= 40
    topics = {t.key: docs for t, docs in FAQ.by_topic()}
    assert set(topics) == set(FAQ_TOPICS)
    assert all(len(docs) >= 3 for docs in topics.values())


def test_every_article_question_46_to_58_is_answered():
    sources = [d.question.source or "" for d in FAQ.questions.values()]
    found = {int(m.group(1)) for s in sources for m in [re.search(r"interview question Q(\d+)", s)] if m}
    assert found == set(range(46, 59))


def test_every_question_links_to_entries_or_categories_that_exist(db):
    for doc in FAQ.questions.values():
        assert doc.question.related
        for rel in doc.question.related:
            assert rel in db.documents or rel in db.categories, (doc.question.id, rel)


def test_chinese_answers_are_whole_answers():
    for doc in FAQ.questions.values():
        zh = doc.question.answer_zh
        assert len(re.findall(r"[\u4e00-\u9fff]", zh)) >= 60, doc.question.id
        english_code = {s.code.strip() for s in doc.snippets}
        assert {s.code.strip() for s in _snippets(zh, 1)} <= english_code


def test_corrected_article_answers_name_no_invented_api():
    """The article's invented names may be quoted as corrections, never used in code."""
    for doc in FAQ.questions.values():
        for snip in doc.snippets:
            assert "register_custom_op(" not in snip.code
            assert "torch.onnx象征性" not in snip.code and "@symbolic(" not in snip.code
            assert "nsight-systems" not in snip.code


@pytest.mark.parametrize(("doc", "snip"), CASES)
def test_faq_snippet_runs(doc, snip, tmp_path):
    outcome = run_or_skip(snip.code, tmp_path)
    assert outcome.returncode == 0, f"{doc.path}:{snip.line} failed:\n{outcome.output[-3000:]}"


def test_search_finds_english_and_chinese():
    assert normalise_faq_id("faq7") == "FAQ007" and normalise_faq_id("12") == "FAQ012"
    assert FAQ.search("opset downgrade")[0].question.id == FAQ.get("13").question.id
    assert "FAQ029" in [d.question.id for d in FAQ.search("内存拷贝")]
    zh_hits = [d.question.topic for d in FAQ.search("精度")[:3]]
    assert "quantization" in zh_hits
    assert FAQ.search("zzzz-not-a-word") == []


def test_kb_faq_list_and_json():
    out = kb("faq", "list", "--topic", "quantization")
    assert out.returncode == 0 and "FAQ034" in out.stdout and "FAQ001" not in out.stdout
    data = json.loads(kb("faq", "list", "--json").stdout)
    assert len(data) == len(FAQ.questions)
    first = next(d for d in data if d["id"] == "FAQ001")
    assert {"question", "question_zh", "answer", "answer_zh", "related", "topic", "source"} <= set(first)


def test_kb_faq_show_both_languages_and_unknown_id():
    en = kb("faq", "show", "faq1")
    zh = kb("faq", "show", "FAQ001", "--lang", "zh")
    flat = lambda text: "".join(text.split())  # noqa: E731 - output with its wrapping undone
    assert en.returncode == 0 and flat(FAQ.get("1").question.question) in flat(en.stdout)
    assert zh.returncode == 0 and flat(FAQ.get("1").question.question_zh) in flat(zh.stdout)
    missing = kb("faq", "show", "FAQ999")
    assert missing.returncode == 2 and "Traceback" not in missing.stderr


def test_kb_faq_search_command():
    hit = kb("faq", "search", "内存拷贝")
    assert hit.returncode == 0 and "FAQ029" in hit.stdout
    assert kb("faq", "search", "zzzz-not-a-word").returncode == 1


def test_kb_faq_quiz_scripted_through_stdin():
    out = kb("faq", "quiz", "--topic", "export", "--count", "2", "--seed", "1", stdin="\n\n\n")
    assert out.returncode == 0, out.stderr
    shown = re.findall(r"\[(\d)/2\] (FAQ\d{3})", out.stdout)
    assert [n for n, _ in shown] == ["1", "2"]
    for _, qid in shown:
        assert FAQ.get(qid).question.topic == "export"
        first = FAQ.get(qid).body.strip().splitlines()[0]
        assert "".join(first.split()) in "".join(out.stdout.split())  # the answer was revealed
    assert "2/2 questions reviewed" in out.stdout


def test_kb_faq_quiz_quits_and_survives_end_of_input():
    quit_early = kb("faq", "quiz", "--count", "3", "--seed", "2", stdin="q\n")
    assert quit_early.returncode == 0 and "0/3" in quit_early.stdout
    eof = kb("faq", "quiz", "--count", "3", "--seed", "2", "--lang", "zh", stdin="")
    assert eof.returncode == 0 and "0/3" in eof.stdout


def _tree(tmp_path: Path) -> Path:
    root = tmp_path / "entries"
    shutil.copytree(REAL, root, ignore=shutil.ignore_patterns("OT01*", "OT02*", "OT03*"))
    return root


def test_lint_reports_broken_faq_with_lines(tmp_path):
    root = _tree(tmp_path)
    path = root / "faq" / "FAQ005.md"
    text = path.read_text(encoding="utf-8")
    text = text.replace("related: [OT0006, export.device-mismatch]", "related: [OT0006, OT9999]", 1)
    text = text.replace("import numpy as np\nimport onnxruntime as ort\nimport torch\n\n\nclass Scale",
                        "import numpy as np\nimport onnxruntime as ort\nimport torch\n\n\nclass Scale(:", 1)
    path.write_text(text, encoding="utf-8")
    (root / "faq" / "FAQ100.md").write_text("---\nid: FAQ100\ntopic: nonsense\n---\nbody\n", encoding="utf-8")
    problems = [str(p) for p in lint(load(root, strict=False), extra=[])]
    related_line = text.splitlines().index("related: [OT0006, OT9999]") + 1
    assert any(p.endswith(f"FAQ005.md:{related_line}: related 'OT9999' is neither an entry ID nor a category") for p in problems), problems
    assert any("FAQ005.md" in p and "snippet does not compile" in p for p in problems)
    assert any("FAQ100.md:3: topic:" in p for p in problems), problems

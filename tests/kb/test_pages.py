"""Generated pages: one per entry, FAQ question and finding code in both languages, marked as
generated, deterministic, and `kb docs build --check` tells when the committed ones are stale."""
from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from kb import load
from kb.docs import pages
from kb.faq import load_faq
from kb.paths import project_root
from tests.sitebuild import built_site, scratch_project, skip_without_mkdocs


@pytest.fixture(scope="module")
def faq(db):
    return load_faq(db.root, strict=False)


@pytest.fixture(scope="module")
def rendered(db, faq):
    return pages.render_all(db, faq)


def test_every_entry_question_finding_and_category_has_a_page_in_both_languages(db, faq, rendered):
    for lang in pages.LANGS:
        for ident in db.documents:
            assert f"docs/{lang}/entries/{ident}.md" in rendered
        for qid in faq.questions:
            assert f"docs/{lang}/faq/{qid}.md" in rendered
        for code in db.findings:
            assert f"docs/{lang}/findings/{code}.md" in rendered
        for cat in db.categories:
            assert f"docs/{lang}/categories/{cat}.md" in rendered
        assert f"docs/{lang}/index.md" in rendered


def test_pages_are_marked_generated_and_deterministic(db, faq, rendered):
    assert rendered == pages.render_all(db, faq)
    for path, text in rendered.items():
        assert any(pages.MARKER in line for line in text.splitlines()[:2]), path


def test_chinese_pages_carry_the_chinese_text(db, faq, rendered):
    for ident, doc in db.documents.items():
        text = rendered[f"docs/zh/entries/{ident}.md"]
        assert pages.html_text(doc.entry.title_zh) in text  # as written, a <placeholder> as text
        assert pages.html_text(doc.entry.fixes[0].summary_zh.split()[0]) in text
    for qid, doc in faq.questions.items():
        zh = rendered[f"docs/zh/faq/{qid}.md"]
        en = rendered[f"docs/en/faq/{qid}.md"]
        assert pages.html_text(doc.question.question_zh) in zh and pages.html_text(doc.question.question) in en
        assert pages.html_text(doc.question.answer_zh.splitlines()[0][:20]) in zh


def test_retired_entries_stay_out_of_search_and_say_why_in_each_language(db, rendered):
    """A retired ID keeps its page (links and old reports still resolve) but is never a search
    answer, and the Chinese page gives the reason in Chinese."""
    retired = [d.entry for d in db.documents.values() if d.entry.retired]
    active = next(d.entry for d in db.documents.values() if not d.entry.retired)
    assert retired
    for e in retired:
        en, zh = rendered[f"docs/en/entries/{e.id}.md"], rendered[f"docs/zh/entries/{e.id}.md"]
        for page in (en, zh):
            assert "exclude: true" in page.split("\n---\n", 1)[0] and "boost:" not in page.split("\n---\n", 1)[0]
        assert e.retired_zh[:20] in zh and e.retired[:20] not in zh
        assert e.retired[:20] in en
    head = rendered[f"docs/en/entries/{active.id}.md"].split("\n---\n", 1)[0]
    assert float(re.search(r"boost: ([\d.]+)", head).group(1)) >= 2.0  # entry pages outweigh FAQ and finding pages


def test_placeholders_in_titles_and_bodies_are_text_not_html():
    """`Load <path> failed` is shown as written: raw, `<path>` opened an element that never
    closed (the heading hid the rest, the search index took the whole page for its title)."""
    assert pages.html_text("Load <path> failed in `<b>` and </x>") == "Load &lt;path> failed in `<b>` and &lt;/x>"
    assert pages.html_text("see <https://example.com> and a < b") == "see <https://example.com> and a < b"
    assert pages.html_text("(`Load /<package>/m.onnx\nfailed`) <x>") == "(`Load /<package>/m.onnx\nfailed`) &lt;x>"  # a wrapped code span
    body = pages.page_body("Symptom <name> here\n```text\nLoad <path> failed\n```", "../", [])
    assert "&lt;name>" in body and "Load <path> failed" in body


def test_a_retired_entry_needs_its_reason_in_chinese_too():
    from pydantic import ValidationError

    from kb.schema import Entry

    doc = next(d for d in load(strict=False).documents.values() if d.entry.retired)
    data = doc.entry.model_dump(exclude_none=True)
    data.pop("retired_zh")
    with pytest.raises(ValidationError, match="retired_zh"):
        Entry.model_validate(data)


def test_home_page_indexes_by_category_and_stage(db, rendered):
    for lang in pages.LANGS:
        home = rendered[f"docs/{lang}/index.md"]
        assert "diagnose" in home and "--model" in home
        for cat, spec in db.categories.items():
            assert f"categories/{cat}.md" in home
            assert (spec["title_zh"] if lang == "zh" else spec["title"]) in home
        for ident, doc in db.documents.items():
            assert f"entries/{ident}.md" in home
    for stage in {d.entry.stage for d in db.documents.values()}:
        assert pages.STAGE_TITLES[stage][0] in rendered["docs/en/index.md"]
        assert pages.STAGE_TITLES[stage][1] in rendered["docs/zh/index.md"]


def test_finding_pages_list_the_entries_that_confirm_or_refute(db, rendered):
    for doc in db.documents.values():
        for code in doc.entry.findings.confirm:
            page = rendered[f"docs/en/findings/{code}.md"]
            confirm = page.split("## Entries it rules out")[0]
            assert f"entries/{doc.entry.id}.md" in confirm
        for code in doc.entry.findings.refute:
            page = rendered[f"docs/en/findings/{code}.md"]
            assert f"entries/{doc.entry.id}.md" in page.split("## Entries it rules out")[1]


def test_link_ids_skips_code():
    text = "See OT0002 and FAQ001.\n\n```python\nprint('OT0002')\n```\n\nInline `OT0002` stays.\n"
    out = pages.link_ids(text, "../", ["OT0002", "FAQ001"])
    assert "[OT0002](../entries/OT0002.md)" in out and "[FAQ001](../faq/FAQ001.md)" in out
    assert "print('OT0002')" in out and "`OT0002`" in out
    assert pages.link_ids("OT9999 is unknown", "", ["OT0002"]) == "OT9999 is unknown"


def test_check_reports_stale_missing_and_leftover_pages(db, faq, tmp_path):
    rendered = pages.render_all(db, faq)
    pages.write(tmp_path, rendered)
    assert pages.stale(tmp_path, rendered) == []
    page = tmp_path / "docs/en/faq/FAQ001.md"
    page.write_text(page.read_text(encoding="utf-8") + "hand edit\n", encoding="utf-8")
    (tmp_path / "docs/zh/entries/OT0001.md").unlink()
    (tmp_path / "docs/en/entries/OT9999.md").write_text("old page", encoding="utf-8")
    problems = pages.stale(tmp_path, rendered)
    assert "docs/en/faq/FAQ001.md: out of date" in problems
    assert "docs/zh/entries/OT0001.md: missing" in problems
    assert any(p.startswith("docs/en/entries/OT9999.md") for p in problems)
    written, removed = pages.write(tmp_path, rendered)
    assert (written, removed) == (2, 1) and pages.stale(tmp_path, rendered) == []


def test_kb_docs_build_check_command(tmp_path):
    """`kb docs build --check` exits 1 on a stale tree and 0 once `--pages-only` regenerated it."""
    run = lambda *a: subprocess.run([sys.executable, "-m", "kb", "docs", "build", "--dir", str(tmp_path), *a],  # noqa: E731
                                    capture_output=True, text=True, timeout=300)
    stale = run("--check")
    assert stale.returncode == 1 and "missing" in stale.stdout
    assert run("--pages-only").returncode == 0
    fresh = run("--check")
    assert fresh.returncode == 0, fresh.stdout + fresh.stderr


def test_committed_pages_are_up_to_date(db, faq):
    """The docs/ committed in this checkout match the database (run `kb docs build` after editing entries)."""
    problems = pages.stale(project_root(), pages.render_all(db, faq))
    assert problems == [], "stale generated pages, run `kb docs build`:\n" + "\n".join(problems[:20])


@pytest.mark.slow
def test_mkdocs_strict_build_has_a_page_per_id_in_both_languages(db, faq):
    skip_without_mkdocs()
    site = built_site()
    for lang_dir in (site, site / "zh"):
        for ident in db.documents:
            assert (lang_dir / "entries" / ident / "index.html").is_file()
        for qid in faq.questions:
            assert (lang_dir / "faq" / qid / "index.html").is_file()
        for code in db.findings:
            assert (lang_dir / "findings" / code / "index.html").is_file()
    html = (site / "zh" / "faq" / "FAQ001" / "index.html").read_text(encoding="utf-8")
    assert faq.questions["FAQ001"].question.question_zh.split("（")[0][:10] in html


@pytest.mark.slow
def test_chinese_search_index_is_segmented():
    """jieba split Chinese text at build time (zero-width spaces), so words are separate index terms."""
    skip_without_mkdocs()
    index = json.loads((built_site() / "zh" / "search" / "search_index.json").read_text(encoding="utf-8"))
    assert "\\u200b" in index["config"]["separator"]  # the regex escape, not the character
    text = " ".join(d["text"] + " " + d["title"] for d in index["docs"])
    assert "\u200b精度\u200b" in text or "\u200b精度" in text
    runs = re.findall(r"[\u4e00-\u9fff]+", text)  # Chinese runs between separators
    assert runs and max(map(len, runs)) <= 12, max(runs, key=len)


@pytest.mark.slow
def test_search_index_holds_each_page_once_under_its_own_title():
    """Every entry's article is indexed under its heading (no placeholder swallows the page into
    its title), the Related list and the automatic-fix boilerplate stay out, and neither site
    stems English (the browser's prefix queries are never stemmed)."""
    skip_without_mkdocs()
    for lang_dir in (built_site(), built_site() / "zh"):
        index = json.loads((lang_dir / "search" / "search_index.json").read_text(encoding="utf-8"))
        assert index["config"]["pipeline"] == ["stopWordFilter"]
        entries = [d for d in index["docs"] if re.fullmatch(r"entries/OT\d{4}/", d["location"])]
        assert entries and max(len(d["title"]) for d in entries) < 400, max(entries, key=lambda d: len(d["title"]))["location"]
        titles = {d["title"].replace("\u200b", "") for d in index["docs"] if d["location"].startswith("entries/OT")}
        assert not titles & {"Related", "相关条目", "Automatic fix", "自动修复"}
        boosts = {d["location"]: d.get("boost", 1) for d in entries}
        assert min(boosts.values()) >= 2 and len(set(boosts.values())) > 3  # graded by prominence


def test_scratch_project_builds_are_isolated():
    root = scratch_project()
    assert (root / "mkdocs.yml").is_file() and (root / "docs/zh/index.md").is_file()
    assert root.resolve() != project_root().resolve()


@pytest.mark.slow
def test_kb_docs_serve_serves_both_languages():
    """`kb docs serve` answers on localhost for the English root and the Chinese site."""
    import socket
    import time
    import urllib.request

    skip_without_mkdocs()
    project = built_site().parent
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([sys.executable, "-m", "kb", "docs", "serve", "--dir", str(project), "--port", str(port)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        pages_seen = {}
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and len(pages_seen) < 2:
            for path in ("/entries/OT0001/", "/zh/entries/OT0001/"):
                try:
                    with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=5) as resp:
                        pages_seen[path] = resp.read().decode("utf-8")
                except OSError:
                    time.sleep(0.2)
        assert set(pages_seen) == {"/entries/OT0001/", "/zh/entries/OT0001/"}
        assert "OT0001" in pages_seen["/zh/entries/OT0001/"]
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_kb_docs_serve_without_a_build_is_a_one_line_error(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "kb", "docs", "serve", "--dir", str(tmp_path), "--port", "0"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "kb docs build" in proc.stderr and "Traceback" not in proc.stderr


def test_chinese_text_folding_and_demoted_details():
    assert pages.oneline("张量，\n  或量化后的 int8\n tensors and\n more") == "张量，或量化后的 int8 tensors and more"
    folded = pages.join_cjk_lines("中文，\n继续\n- 列表项\n```python\n# 中文\n```\n| a |")
    assert folded.startswith("中文，继续\n- 列表项\n```python\n# 中文\n```")
    body = pages.page_body("## Fix\ntext\n```python fixed\n# not a heading\n```", "../", [], demote=True)
    assert body.startswith("### Fix") and "```python\n# not a heading" in body


def test_chinese_entry_page_nests_the_english_details(db, rendered):
    for ident in db.documents:
        zh = rendered[f"docs/zh/entries/{ident}.md"]
        details = zh.split("## 详细说明（英文原文）", 1)[1]
        assert "\n### Symptom" in details and "\n## Symptom" not in details

"""`diagnose` links to the page `kb docs build` generates: env base URL, else the local build, else nothing."""
from __future__ import annotations

from diagnoser import links
from kb.docs.pages import render_all


def test_env_base_url_wins(monkeypatch, tmp_path):
    monkeypatch.setenv("ONNX_KB_DOCS_URL", "https://docs.example/kb/")
    (tmp_path / "entries" / "OT0005").mkdir(parents=True)
    (tmp_path / "entries" / "OT0005" / "index.html").write_text("x")
    assert links.doc_url("OT0005", site=tmp_path) == "https://docs.example/kb/entries/OT0005/"
    assert links.doc_url("OT0005", lang="zh", site=tmp_path) == "https://docs.example/kb/zh/entries/OT0005/"


def test_local_built_page_when_present(monkeypatch, tmp_path):
    monkeypatch.delenv("ONNX_KB_DOCS_URL", raising=False)
    page = tmp_path / "zh" / "entries" / "OT0001" / "index.html"
    page.parent.mkdir(parents=True)
    page.write_text("x")
    assert links.doc_url("OT0001", lang="zh", site=tmp_path) == page.as_uri()
    # no English build here and no URL configured: no link at all (the report says `kb show`)
    assert links.doc_url("OT0001", site=tmp_path) is None


def test_link_paths_match_generated_pages(db):
    """Every entry's link path is where mkdocs puts the page generated for it (use_directory_urls)."""
    from kb.faq import load_faq

    rendered = render_all(db, load_faq(db.root, strict=False))
    for ident in db.documents:
        for lang in ("en", "zh"):
            source = f"docs/{lang}/entries/{ident}.md"
            assert source in rendered
            expected = ("" if lang == "en" else "zh/") + f"entries/{ident}/"
            assert links.page_path(ident, lang) == expected

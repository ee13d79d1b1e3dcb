"""Build the documentation site once per test run, in a scratch copy of the project.

The tests never touch the checkout's docs/ or site/: they render the pages from the database
into a temporary project (configs + docs/), run both mkdocs builds there, and share the result.
"""
from __future__ import annotations

import atexit
import functools
import importlib.util
import shutil
import tempfile
from pathlib import Path

from kb.docs import pages
from kb.database import load
from kb.faq import load_faq
from kb.paths import entries_dir, project_root
from kb.docs.site import mkdocs_build

HAND_WRITTEN = ("docs/mkdocs.base.yml",)


def scratch_project() -> Path:
    """A temporary project with the hand-written config and freshly generated pages."""
    root = Path(tempfile.mkdtemp(prefix="kb-docs-test-"))
    atexit.register(shutil.rmtree, root, ignore_errors=True)
    for rel in HAND_WRITTEN:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(project_root() / rel, root / rel)
    db = load(entries_dir(), strict=False)
    pages.write(root, pages.render_all(db, load_faq(db.root, strict=False)))
    return root


def skip_without_mkdocs() -> None:
    """The site tests need the 'docs' extra; say so instead of failing where it is absent."""
    import pytest

    for module in ("mkdocs", "material", "jieba"):
        if importlib.util.find_spec(module) is None:
            pytest.skip(f"needs {module} (pip install -e '.[docs]')")


@functools.lru_cache(maxsize=1)
def built_site() -> Path:
    """The site/ folder of a scratch project, built with `mkdocs build --strict` (both languages)."""
    root = scratch_project()
    mkdocs_build(root)
    return root / "site"

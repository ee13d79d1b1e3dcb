"""Where the database and the documentation live.

In a checkout the entries are `entries/` and `kb docs build` writes docs/ and site/ beside them,
as the project commits them. In an installed wheel the entries ship as `kb/_entries` and the one
hand-written site config as `kb/_docs/mkdocs.base.yml`; the docs are then built in a user cache
folder (or a folder the user names), never inside the installed package.
"""
from __future__ import annotations

import os
from pathlib import Path

_HERE = Path(__file__).resolve().parent
BASE_CONFIG = "docs/mkdocs.base.yml"  # the hand-written part of the site config, relative to a docs project


def entries_dir() -> Path:
    """The entries folder. `ONNX_KB_ENTRIES` overrides it (tests, out-of-tree databases)."""
    override = os.environ.get("ONNX_KB_ENTRIES")
    if override:
        return Path(override)
    packaged = _HERE / "_entries"
    if packaged.is_dir():
        return packaged
    return _HERE.parent / "entries"


def project_root() -> Path:
    """The checkout holding mkdocs.yml and docs/. `ONNX_KB_PROJECT` overrides it (tests)."""
    override = os.environ.get("ONNX_KB_PROJECT")
    return Path(override) if override else _HERE.parent


def is_checkout(root: Path) -> bool:
    """A source checkout (its docs are built in place and committed), not an installed package."""
    return (root / BASE_CONFIG).is_file() and (root / "pyproject.toml").is_file()


def user_docs_dir() -> Path:
    """The docs project of an installed package: ~/.cache/onnx-troubleshooter/docs (XDG_CACHE_HOME)."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "onnx-troubleshooter" / "docs"


def base_config() -> Path:
    """The hand-written site config: the checkout's, else the copy shipped in the wheel."""
    packaged = _HERE / "_docs" / "mkdocs.base.yml"
    return packaged if packaged.is_file() else project_root() / BASE_CONFIG


def docs_project(explicit: Path | None = None) -> Path:
    """Where `kb docs build` writes pages and the site: a folder the user names, the checkout,
    or the user cache folder when running from an installed package."""
    if explicit is not None:
        return explicit
    root = project_root()
    return root if is_checkout(root) else user_docs_dir()


def built_sites() -> list[Path]:
    """Site folders that may hold a local build, most specific first (for links from reports)."""
    root = project_root()
    sites = [root / "site"] if is_checkout(root) else []
    return [*sites, user_docs_dir() / "site"]

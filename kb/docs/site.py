"""`kb docs build` / `kb docs serve`: generate the pages, then build both mkdocs sites into site/.

The docs project is the checkout itself, or, for an installed package, a user cache folder that
gets the shipped base config (kb.paths.docs_project): nothing is written into site-packages.

Both languages build at once in subprocesses with --strict (a warning fails the build): the
English site into site/, the Chinese one into a scratch folder that then becomes site/zh/.
"""
from __future__ import annotations

import functools
import http.server
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from kb.docs import pages
from kb.database import Database
from kb.faq import Faq

CONFIGS = ("mkdocs.yml", "mkdocs.zh.yml")  # the first builds into site/ itself and empties it first


@dataclass(frozen=True)
class BuildResult:
    """What generating the Markdown did (or, with check, what is stale)."""

    written: int
    removed: int
    stale: tuple[str, ...]


class SiteError(Exception):
    """mkdocs is missing or the build failed; the message is for the user."""


def generate(project: Path, db: Database, faq: Faq, check: bool = False) -> BuildResult:
    """Write the generated Markdown (or, with check, only report what is stale)."""
    rendered = pages.render_all(db, faq, site_url=os.environ.get("ONNX_KB_DOCS_URL", ""))
    if check:
        return BuildResult(0, 0, tuple(pages.stale(project, rendered)))
    _ensure_base_config(project)
    written, removed = pages.write(project, rendered)
    return BuildResult(written, removed, ())


def _ensure_base_config(project: Path) -> None:
    """A docs project outside the checkout gets the hand-written base config copied in."""
    from kb.paths import BASE_CONFIG, base_config

    target = project / BASE_CONFIG
    source = base_config()
    if target.resolve() != source.resolve():
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target)


def mkdocs_build(project: Path) -> str:
    """Build both languages with --strict; raises SiteError with mkdocs' output on failure."""
    try:
        import mkdocs  # noqa: F401
        import material  # noqa: F401
    except ImportError as exc:
        raise SiteError(f"{exc.name} is not installed; install the docs extra: pip install 'onnx-troubleshooter[docs]'") from None
    # Both languages build at once: the Chinese site goes to a scratch folder first, because the
    # English build empties site/ when it starts, and moves into site/zh/ when both are done.
    site = project / "site"
    scratch = Path(tempfile.mkdtemp(prefix="kb-site-zh-"))
    try:
        procs = [
            (config, subprocess.Popen(
                [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "-f", str(project / config),
                 *(["-d", str(scratch)] if config != CONFIGS[0] else [])],
                cwd=project, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},  # Material's end-of-life banner
            ))
            for config in CONFIGS
        ]
        logs, failed = [], []
        for config, proc in procs:
            out, _ = proc.communicate(timeout=900)
            logs.append(out)
            if proc.returncode != 0:
                failed.append(f"mkdocs build -f {config} failed:\n{out.strip()}")
        if failed:
            raise SiteError("\n".join(failed))
        shutil.rmtree(site / "zh", ignore_errors=True)
        shutil.move(str(scratch), str(site / "zh"))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return "".join(logs)


def serve(site_dir: Path, host: str = "127.0.0.1", port: int = 8000, quiet: bool = True) -> http.server.ThreadingHTTPServer:
    """An HTTP server over the built site (both languages), for `kb docs serve` and the tests."""
    if not (site_dir / "index.html").is_file():
        raise SiteError(f"no built site in {site_dir}: run `kb docs build` first")
    cls = _QuietHandler if quiet else http.server.SimpleHTTPRequestHandler
    handler = functools.partial(cls, directory=str(site_dir))
    return http.server.ThreadingHTTPServer((host, port), handler)


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - stdlib signature
        pass

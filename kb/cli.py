"""`kb`: lint, show, list and search the knowledge base, build its site, browse its FAQ."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from kb.database import load
from kb.checks.problems import EntryError
from kb.schema import FAQ_TOPICS
from kb.termtext import columns, fit_markdown, width, wrap


def _db(root: str | None):
    """Load what loads: a broken entry is skipped with a warning, never fatal (`kb lint` is the gate)."""
    try:
        db = load(Path(root) if root else None, strict=False)
    except EntryError as exc:
        click.echo(f"kb: error: {exc.problems[0]}", err=True)
        sys.exit(2)
    if db.problems:
        click.echo(f"kb: warning: {len(db.problems)} problem(s) in the database; run `kb lint`", err=True)
    return db


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="onnx-troubleshooter", prog_name="kb", message="%(prog)s %(version)s")
def cli() -> None:
    """The ONNX troubleshooting knowledge base."""


@cli.command("lint")
@click.option("--root", metavar="DIR", help="Entries folder (default: the installed database).")
def lint_cmd(root: str | None) -> None:
    """Check every entry; print problems as path:line: message."""
    from kb.checks.lint import lint

    db = load(Path(root) if root else None, strict=False)
    problems = lint(db)
    for p in problems:
        click.echo(str(p))
    if problems:
        click.echo(f"kb lint: {len(problems)} problem(s) in {len(db.documents)} entries", err=True)
        sys.exit(1)
    click.echo(f"kb lint: {len(db.documents)} entries, no problems", err=True)


@cli.command("show")
@click.argument("ident")
@click.option("--lang", type=click.Choice(["en", "zh"]), default="en", show_default=True)
@click.option("--json", "as_json", is_flag=True)
@click.option("--root", metavar="DIR", hidden=True)
def show_cmd(ident: str, lang: str, as_json: bool, root: str | None) -> None:
    """Explain an entry, like `rustc --explain` (OT0001, ot1 and 1 all work)."""
    from kb.docs.render import entry_text

    db = _db(root)
    doc = db.get(ident)
    if doc is None:
        click.echo(f"kb: error: no entry '{ident}' (try `kb list`)", err=True)
        sys.exit(2)
    from kb.measure.verify_matrix import read_entry_line

    measured = read_entry_line(db.root, doc, lang)
    if as_json:
        data = {**doc.entry.model_dump(mode="json"), "measured": read_entry_line(db.root, doc, "en") or None}
        click.echo(json.dumps(data, indent=2, ensure_ascii=False))
    else:
        click.echo(entry_text(doc, lang=lang, width=width(), measured=measured), nl=False)


@cli.command("list")
@click.option("--json", "as_json", is_flag=True)
@click.option("--category", metavar="CAT", help="Only entries of this category.")
@click.option("--root", metavar="DIR", hidden=True)
def list_cmd(as_json: bool, category: str | None, root: str | None) -> None:
    """List entries: ID, category and title."""
    db = _db(root)
    rows = [d.entry for d in db.documents.values() if not category or d.entry.category == category]
    if as_json:
        click.echo(json.dumps([
            {"id": e.id, "title": e.title, "title_zh": e.title_zh, "category": e.category, "stage": e.stage,
             "summary": e.summary, "retired": e.retired}
            for e in rows], indent=2, ensure_ascii=False))
        return
    for line in columns([(e.id, e.category, e.title + ("  (retired)" if e.retired else "")) for e in rows], width()):
        click.echo(line)


def _faq(root: str | None):
    from kb.faq import load_faq

    try:
        return load_faq(Path(root) if root else None)
    except EntryError as exc:
        for p in exc.problems:
            click.echo(str(p), err=True)
        click.echo(f"kb: error: the FAQ has {len(exc.problems)} problem(s); run `kb lint`", err=True)
        sys.exit(2)


@cli.command("search")
@click.argument("query", nargs=-1, required=True)
@click.option("--limit", default=10, show_default=True, help="How many entries at most.")
@click.option("--lang", type=click.Choice(["en", "zh"]), default=None, help="Title language (default: Chinese for a Chinese query).")
@click.option("--json", "as_json", is_flag=True)
@click.option("--root", metavar="DIR", hidden=True)
def search_cmd(query: tuple[str, ...], limit: int, lang: str | None, as_json: bool, root: str | None) -> None:
    """Find entries by words (English or Chinese) in titles, summaries, symptoms and examples."""
    from kb.search import search

    text = " ".join(query)
    hits = search(_db(root), text, limit=limit)
    if as_json:
        click.echo(json.dumps([h.__dict__ for h in hits], indent=2, ensure_ascii=False))
        return
    if not hits:
        click.echo(f"kb: no entry matches '{text}'", err=True)
        sys.exit(1)
    zh = lang == "zh" or (lang is None and any("\u4e00" <= ch <= "\u9fff" for ch in text))
    for line in columns([(h.id, h.category, h.title_zh if zh else h.title) for h in hits], width()):
        click.echo(line)


@cli.command("verify")
@click.option("--add", "add", multiple=True, metavar="X", help="Add onnxruntime release X to the measured list and measure it (repeatable).")
@click.option("--onnx", "onnx_rel", multiple=True, metavar="X", help="Measure onnx release X instead (an axis of its own).")
@click.option("--torch", "torch_rel", multiple=True, metavar="X", help="Measure torch release X instead (an axis of its own).")
@click.option("--only", multiple=True, metavar="ID", help="Only this entry (repeatable).")
@click.option("--installed", is_flag=True, help="Measure the installed onnxruntime with this interpreter: no download.")
@click.option("--jobs", type=click.IntRange(1, 8), default=2, show_default=True, help="Snippets run at the same time.")
@click.option("--timeout", type=click.FloatRange(1), default=300, show_default=True, help="Seconds per snippet.")
@click.option("--envs", metavar="DIR", help="Where release environments are cached (default ~/.cache/onnx-troubleshooter/verify-envs).")
@click.option("--root", metavar="DIR", help="Entries folder (default: the checkout's entries/).")
def verify_cmd(add: tuple[str, ...], onnx_rel: tuple[str, ...], torch_rel: tuple[str, ...], only: tuple[str, ...],
               installed: bool, jobs: int, timeout: float, envs: str | None, root: str | None) -> None:
    """Measure each entry's reproduce/fixed snippets on a list of releases; record it under entries/verified/.

    With no option, re-measure every recorded onnxruntime release; print what changed."""
    import time

    from kb.database import normalise_id
    from kb.measure.verify import check_release, verify
    from kb.measure.verify_matrix import load_releases

    start = time.perf_counter()
    db = _db(root)
    axis = "onnx" if onnx_rel else "torch" if torch_rel else "onnxruntime"
    asked = onnx_rel or torch_rel or add
    try:
        releases = [check_release(r) for r in asked] or sorted(load_releases(db.root).get(axis, {}))
    except ValueError as exc:
        click.echo(f"kb: error: {exc}", err=True)
        sys.exit(2)
    ids = [normalise_id(i) or i for i in only]
    unknown = [i for i in ids if i not in db.documents]
    if unknown:
        click.echo(f"kb: error: no entry {', '.join(unknown)} (try `kb list`)", err=True)
        sys.exit(2)
    if not releases and not installed:
        click.echo("kb: error: no release recorded yet; name one with --add X (or use --installed)", err=True)
        sys.exit(2)
    out = verify(db, axis, releases, ids, jobs, installed, Path(envs) if envs else None, timeout,
                 log=lambda m: click.echo(m, err=True))
    for line in out.env_errors:
        click.echo(f"kb verify: cannot set up {line}", err=True)
    for line in out.changes:
        click.echo(line)
    click.echo(f"kb verify: {out.runs} run(s) over {out.entries} entries on {axis} {', '.join(out.releases) or '-'}; "
               f"{len(out.changes)} change(s); {time.perf_counter() - start:.0f}s", err=True)
    if out.env_errors:
        sys.exit(1)


@cli.group("docs")
def docs_group() -> None:
    """Generate the documentation pages and build the site."""


@docs_group.command("build")
@click.option("--check", is_flag=True, help="Only check that the committed pages are up to date; exit 1 if stale.")
@click.option("--pages-only", is_flag=True, help="Write the Markdown pages but skip `mkdocs build`.")
@click.option("--dir", "project", metavar="DIR", help="Build in this folder (default: the checkout, or ~/.cache/onnx-troubleshooter/docs for an installed package).")
@click.option("--root", metavar="DIR", hidden=True)
def docs_build_cmd(check: bool, pages_only: bool, project: str | None, root: str | None) -> None:
    """Render every entry, FAQ question and finding code into docs/, then build site/ (mkdocs --strict)."""
    import time

    from kb.paths import docs_project
    from kb.docs.site import SiteError, generate, mkdocs_build

    start = time.perf_counter()
    proj = docs_project(Path(project) if project else None)
    result = generate(proj, _db(root), _faq(root), check=check)
    if check:
        for line in result.stale:
            click.echo(line)
        if result.stale:
            click.echo(f"kb docs build --check: {len(result.stale)} generated file(s) stale; run `kb docs build`", err=True)
            sys.exit(1)
        click.echo("kb docs build --check: generated pages are up to date", err=True)
        return
    click.echo(f"kb docs build: {result.written} page(s) written in {proj / 'docs'}, {result.removed} removed", err=True)
    if pages_only:
        return
    try:
        mkdocs_build(proj)
    except SiteError as exc:
        click.echo(f"kb: error: {exc}", err=True)
        sys.exit(1)
    click.echo(f"kb docs build: site built in {proj / 'site'} ({time.perf_counter() - start:.1f}s); `kb docs serve` serves it", err=True)


@docs_group.command("serve")
@click.option("--port", type=int, default=8000, show_default=True)
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--dir", "project", metavar="DIR", help="The folder given to `kb docs build --dir` (default: where it builds by default).")
def docs_serve_cmd(port: int, host: str, project: str | None) -> None:
    """Serve the built site (both languages) locally; build it first with `kb docs build`."""
    from kb.paths import docs_project
    from kb.docs.site import SiteError, serve

    proj = docs_project(Path(project) if project else None)
    try:
        server = serve(proj / "site", host, port, quiet=False)
    except (SiteError, OSError) as exc:
        click.echo(f"kb: error: {exc}", err=True)
        sys.exit(2)
    click.echo(f"serving {proj / 'site'} at http://{host}:{server.server_address[1]}/ (Chinese: /zh/); Ctrl-C stops", err=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


@cli.group("faq")
def faq_group() -> None:
    """The interview-style FAQ: list, show, search and quiz."""


@faq_group.command("list")
@click.option("--topic", type=click.Choice(FAQ_TOPICS), help="Only this topic.")
@click.option("--lang", type=click.Choice(["en", "zh"]), default="en", show_default=True)
@click.option("--json", "as_json", is_flag=True, help="Every question with its answers, as JSON.")
@click.option("--root", metavar="DIR", hidden=True)
def faq_list_cmd(topic: str | None, lang: str, as_json: bool, root: str | None) -> None:
    """List the questions by topic."""
    from kb.faq import as_json as faq_json

    groups = _faq(root).by_topic(topic)
    if as_json:
        click.echo(json.dumps([faq_json(d) for _, docs in groups for d in docs], indent=2, ensure_ascii=False))
        return
    for t, docs in groups:
        click.echo(f"{t.title_zh if lang == 'zh' else t.title} ({t.key})")
        for d in docs:
            q = d.question.question_zh if lang == "zh" else d.question.question
            for line in wrap(q, width(), f"  {d.question.id}  ", " " * (4 + len(d.question.id))):
                click.echo(line)


@faq_group.command("show")
@click.argument("ident")
@click.option("--lang", type=click.Choice(["en", "zh"]), default="en", show_default=True)
@click.option("--json", "as_json", is_flag=True)
@click.option("--root", metavar="DIR", hidden=True)
def faq_show_cmd(ident: str, lang: str, as_json: bool, root: str | None) -> None:
    """Show one question and its answer (FAQ001, faq1 and 1 all work)."""
    from kb.faq import as_json as faq_json
    from kb.docs.render import faq_text

    doc = _faq(root).get(ident)
    if doc is None:
        click.echo(f"kb: error: no FAQ question '{ident}' (try `kb faq list`)", err=True)
        sys.exit(2)
    click.echo(json.dumps(faq_json(doc), indent=2, ensure_ascii=False) if as_json else faq_text(doc, lang=lang, width=width()), nl=False)


@faq_group.command("search")
@click.argument("query", nargs=-1, required=True)
@click.option("--lang", type=click.Choice(["en", "zh"]), help="Language of the listed questions (default: the query's).")
@click.option("--root", metavar="DIR", hidden=True)
def faq_search_cmd(query: tuple[str, ...], lang: str | None, root: str | None) -> None:
    """Find questions whose question or answer (English or Chinese) contains every word of QUERY."""
    text = " ".join(query)
    lang = lang or ("zh" if any("\u3400" <= ch <= "\u9fff" for ch in text) else "en")
    hits = _faq(root).search(text)
    if not hits:
        click.echo(f"kb faq search: nothing matches {' '.join(query)!r}", err=True)
        sys.exit(1)
    rows = [(d.question.id, f"[{d.question.topic}]", d.question.question_zh if lang == "zh" else d.question.question) for d in hits]
    for line in columns(rows, width()):
        click.echo(line)


@faq_group.command("quiz")
@click.option("--topic", type=click.Choice(FAQ_TOPICS), help="Only this topic.")
@click.option("--count", type=click.IntRange(min=1), help="How many questions (default: all).")
@click.option("--seed", type=int, help="Shuffle reproducibly.")
@click.option("--lang", type=click.Choice(["en", "zh"]), default="en", show_default=True)
@click.option("--root", metavar="DIR", hidden=True)
def faq_quiz_cmd(topic: str | None, count: int | None, seed: int | None, lang: str, root: str | None) -> None:
    """Show a question, reveal the answer on Enter, move on (reads answers from stdin; q quits)."""
    from kb import quiz

    docs = [d for _, group in _faq(root).by_topic(topic) for d in group]
    quiz.run(quiz.pick(docs, count, seed), ask=_ask, say=lambda text: click.echo(fit_markdown(text, width())), lang=lang)


def _ask(prompt: str) -> str | None:
    click.echo(f"{prompt} ", nl=False)
    line = sys.stdin.readline()
    if not line:
        click.echo("")
        return None
    return line


def main() -> None:
    cli.main(prog_name="kb")


if __name__ == "__main__":
    main()

"""`kb`: lint, show and list the knowledge base from the terminal."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from kb.database import load
from kb.problems import EntryError


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
def cli() -> None:
    """The ONNX troubleshooting knowledge base."""


@cli.command("lint")
@click.option("--root", metavar="DIR", help="Entries folder (default: the installed database).")
def lint_cmd(root: str | None) -> None:
    """Check every entry; print problems as path:line: message."""
    from kb.lint import lint

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
    from kb.render import entry_text

    db = _db(root)
    doc = db.get(ident)
    if doc is None:
        click.echo(f"kb: error: no entry '{ident}' (try `kb list`)", err=True)
        sys.exit(2)
    if as_json:
        click.echo(json.dumps(doc.entry.model_dump(mode="json"), indent=2, ensure_ascii=False))
    else:
        click.echo(entry_text(doc, lang=lang))


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
    for e in rows:
        click.echo(f"{e.id}  {e.category:<26} {e.title}{'  (retired)' if e.retired else ''}")


def main() -> None:
    cli.main(prog_name="kb")


if __name__ == "__main__":
    main()

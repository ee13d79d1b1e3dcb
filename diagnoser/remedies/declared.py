"""Which remedies the diagnosed entries name, and what the target runtime reads."""
from __future__ import annotations

from collections.abc import Iterable


def declared_remedies(entry_ids: Iterable[str]) -> dict[str, tuple[str, ...]]:
    """remedy name -> the entries naming it, read from the entries' front matter (the matcher's
    compact index does not carry it; only the diagnosed entries' files are read)."""
    import yaml

    from kb.loader import split_front_matter
    from kb.paths import entries_dir

    out: dict[str, tuple[str, ...]] = {}
    for eid in entry_ids:
        path = entries_dir() / f"{eid}.md"
        try:
            split = split_front_matter(path.read_text(encoding="utf-8"))
        except OSError:
            continue
        if split is None:
            continue
        data = yaml.safe_load(split[0]) or {}
        for name in data.get("remedies") or ():
            out[name] = (*out.get(name, ()), eid)
    return out


def target_limits(ort_version: str | None) -> tuple[int | None, int | None]:
    """(max IR, max opset) of --ort-version (measured table rows) or of the installed runtime
    (its own refusals, else its table row)."""
    from diagnoser.model import runtime
    from diagnoser.model.datafiles import parse_version, row_for

    rt = runtime.snapshot()
    if ort_version and not (rt.version and parse_version(rt.version)[:2] == parse_version(ort_version)[:2]):
        row = row_for("onnxruntime", ort_version)
        return (row[1]["ir"], row[1]["opset"]) if row else (None, None)
    row = row_for("onnxruntime", rt.version) if rt.version else None
    max_ir = rt.max_ir if rt.max_ir is not None else (row[1]["ir"] if row else None)
    max_op = rt.max_opset if rt.max_opset is not None else (row[1]["opset"] if row else None)
    return max_ir, max_op

"""Models near or over the 2 GB protobuf limit: how they must be saved and loaded."""
from __future__ import annotations

from typing import Any

from diagnoser.report import Finding

NAME = "model_size"
LIMIT = 2**31
NEAR = int(LIMIT * 0.9)


def applies(ctx: Any) -> bool:
    return ctx.model is not None


def run(ctx: Any) -> list[Finding]:
    ext = next((f for f in ctx.findings if f.code == "external-data.present"), None)
    external = int(ext.details.get("bytes", 0)) if ext else 0
    inline = ctx.model.size
    total = inline + external
    if total > LIMIT:
        return [Finding("model.over-2gb", "info",
                        f"the model holds {total / 2**30:.2f} GiB ({external / 2**30:.2f} GiB external): it must keep its weights as external data; "
                        "load it from its path (not from bytes), run onnx.checker on the path, and save with save_as_external_data=True",
                        NAME, details={"inline_bytes": inline, "external_bytes": external})]
    if inline > NEAR:
        return [Finding("model.near-2gb-inline", "warning",
                        f"{inline / 2**30:.2f} GiB of weights are stored inside the protobuf, close to its 2 GiB limit: one more layer or a re-save will fail; store weights as external data",
                        NAME, details={"inline_bytes": inline})]
    return []

"""Diagnose ONNX export and ONNX Runtime errors against the knowledge base.

Public API: `diagnose(text=..., model=..., providers=...) -> Report`; `fix(...)` also repairs a
copy of the model and returns the Report with its `fixes`.

Names are imported on first use (PEP 562), so `diagnoser.probes` or `diagnoser.model.modelfile` can be
used without loading the knowledge base and its schema library.
"""
from __future__ import annotations

from typing import Any

__all__ = ["SCHEMA_VERSION", "Diagnosis", "Evidence", "Finding", "Report", "UserInputError", "diagnose", "fix", "install", "uninstall"]
_WHERE = {"diagnose": "diagnoser.api", "fix": "diagnoser.api", "UserInputError": "diagnoser.errors", "SCHEMA_VERSION": "diagnoser.report",
          "Diagnosis": "diagnoser.report", "Evidence": "diagnoser.report", "Finding": "diagnoser.report", "Report": "diagnoser.report"}


def install() -> None:
    """Print a diagnosis under the traceback of uncaught onnxruntime/onnx/torch.onnx errors."""
    from diagnoser.frontends.hook import install as _install

    _install()


def uninstall() -> None:
    from diagnoser.frontends.hook import uninstall as _uninstall

    _uninstall()


def load_ipython_extension(ipython: Any) -> None:
    """`%load_ext diagnoser`: diagnose ONNX-family exceptions under their traceback in notebooks."""
    from diagnoser.frontends.notebook import load

    load(ipython)


def unload_ipython_extension(ipython: Any) -> None:
    from diagnoser.frontends.notebook import unload

    unload(ipython)


def __getattr__(name: str) -> Any:
    if name in _WHERE:
        import importlib

        value = getattr(importlib.import_module(_WHERE[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'diagnoser' has no attribute {name!r}")

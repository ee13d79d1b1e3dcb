from __future__ import annotations

from typing import Any

import pytest


@pytest.fixture
def fixit():
    """Run diagnoser.fix on a model with the named remedies (static probes: the fix is what is tested)."""
    from diagnoser.api import fix

    def run(path: Any, *names: str, **kw: Any) -> Any:
        kw.setdefault("probes", "static")
        return fix(model=path, remedies=list(names) if names else None, **kw)
    return run


def record(report: Any, name: str) -> Any:
    return next(r for r in report.fixes.remedies if r.name == name)

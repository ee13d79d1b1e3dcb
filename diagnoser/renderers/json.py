"""The JSON report: a stable contract for scripts and CI (see SCHEMA_VERSION)."""
from __future__ import annotations

import json

from diagnoser.report import Report


def render(report: Report) -> str:
    return json.dumps(report.to_dict(), indent=2, ensure_ascii=False, sort_keys=False) + "\n"

"""Every finding code a probe can emit is documented in entries/findings.yaml, and every
documented probe code is emitted somewhere (no dead documentation)."""
from __future__ import annotations

import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
CODE = re.compile(r'(?:Finding\(|_fail\(|code=|, )\s*f?"((?:[a-z0-9-]+)\.[a-z0-9{}-]+(?:\.[a-z0-9-]+)*)"')


def emitted() -> set[str]:
    codes: set[str] = set()
    for path in [*(ROOT / "diagnoser" / "probes").glob("*.py"), ROOT / "diagnoser" / "model" / "modelfile.py"]:
        text = path.read_text(encoding="utf-8")
        for m in re.finditer(r'Finding\(\s*f?"([^"]+)"', text):
            codes.add(m.group(1))
        for m in re.finditer(r'"(file\.[a-z0-9-]+)"', text):
            codes.add(m.group(1))
        for m in re.finditer(r'\("(?:missing-[a-z]+)", "(kernel\.[a-z-]+)"', text):
            codes.add(m.group(1))
    expanded = set()
    for c in codes:
        if "{which}" in c:
            expanded |= {c.replace("{which}", w) for w in ("runtime", "target")}
        elif "{" not in c:
            expanded.add(c)
    return expanded


def test_every_emitted_code_is_documented():
    documented = set(yaml.safe_load((ROOT / "entries" / "findings.yaml").read_text(encoding="utf-8")))
    missing = emitted() - documented
    assert not missing, f"undocumented finding codes: {sorted(missing)}"
    assert {"kernel.cpu-missing", "kernel.cpu-missing-op-version", "ir.newer-than-target", "file.git-lfs-pointer"} <= emitted()


def test_codes_are_stable_dotted_lower_case():
    documented = yaml.safe_load((ROOT / "entries" / "findings.yaml").read_text(encoding="utf-8"))
    for code, spec in documented.items():
        assert re.fullmatch(r"[a-z0-9-]+(\.[a-z0-9-]+)+", code), code
        assert spec["severity"] in ("info", "warning", "error") and spec["title_zh"], code

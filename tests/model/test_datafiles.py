from __future__ import annotations

from importlib import resources

import pytest
import yaml

from diagnoser.model import datafiles

TABLES = sorted(p.name.removesuffix(".yaml") for p in resources.files("diagnoser").joinpath("data").iterdir() if p.name.endswith(".yaml"))


@pytest.mark.parametrize("name", TABLES)
def test_a_table_reads_the_same_from_yaml_and_from_the_cache(name, tmp_path, monkeypatch):
    """The cache stores JSON: a YAML key that is not a string (1.20 read as a float) would come back different."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    source = yaml.safe_load(resources.files("diagnoser").joinpath("data", f"{name}.yaml").read_text(encoding="utf-8"))
    datafiles.table.cache_clear()
    parsed = datafiles.table(name)
    datafiles.table.cache_clear()
    cached = datafiles.table(name)
    datafiles.table.cache_clear()
    assert list((tmp_path / "onnx-troubleshooter").glob("table-*.json"))
    assert parsed == source == cached


def test_tables_present():
    assert {"versions", "providers"} <= set(TABLES)

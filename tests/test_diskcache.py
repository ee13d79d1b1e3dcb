from __future__ import annotations

import json

import pytest

from diagnoser import diskcache


@pytest.fixture
def folder(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.delenv("ONNX_KB_CACHE", raising=False)
    return tmp_path / "onnx-troubleshooter"


def test_a_value_comes_back_only_for_its_own_key(folder):
    diskcache.store("thing", "key-a", {"x": [1, 2]})
    assert diskcache.load("thing", "key-a") == {"x": [1, 2]}
    assert diskcache.load("thing", "key-b") is None
    assert diskcache.load("other", "key-a") is None


def test_a_file_written_for_another_key_under_the_same_name_is_not_used(folder):
    diskcache.store("thing", "key-a", 1)
    (path,) = folder.glob("thing-*.json")
    path.write_text(json.dumps({"key": "key-z", "value": 2}))  # what a crc32 collision would leave
    assert diskcache.load("thing", "key-a") is None


def test_damaged_files_read_as_missing(folder):
    diskcache.store("thing", "k", 1)
    (path,) = folder.glob("thing-*.json")
    for junk in ("{not json", "[1, 2]", ""):
        path.write_text(junk)
        assert diskcache.load("thing", "k") is None


def test_only_the_newest_files_of_a_kind_are_kept(folder):
    for i in range(diskcache.KEEP + 5):
        diskcache.store("thing", f"key-{i}", i)
    diskcache.store("other", "k", 0)
    assert len(list(folder.glob("thing-*.json"))) == diskcache.KEEP
    assert diskcache.load("thing", f"key-{diskcache.KEEP + 4}") == diskcache.KEEP + 4
    assert diskcache.load("other", "k") == 0
    assert not list(folder.glob("*.tmp"))


def test_turned_off_it_neither_reads_nor_writes(folder, monkeypatch):
    monkeypatch.setenv("ONNX_KB_CACHE", "0")
    diskcache.store("thing", "k", 1)
    assert diskcache.load("thing", "k") is None and not folder.exists()


def test_an_unwritable_cache_is_not_an_error(tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))
    diskcache.store("thing", "k", 1)
    assert diskcache.load("thing", "k") is None


def test_stat_key_changes_when_a_file_changes(tmp_path):
    (tmp_path / "a.yaml").write_text("x: 1")
    (tmp_path / "b.txt").write_text("ignored")
    before = diskcache.stat_key(tmp_path, (".yaml",))
    assert "b.txt" not in before and "a.yaml" in before
    (tmp_path / "a.yaml").write_text("x: 12")
    assert diskcache.stat_key(tmp_path, (".yaml",)) != before
    assert diskcache.stat_key(tmp_path / "missing").endswith("unreadable")


def test_marshal_values_keep_their_types_and_only_their_key(folder):
    value = {"idf": {"cuda": 1.25}, "by_owner": {3: (1, 2)}, "words": (frozenset({"a"}),)}
    diskcache.store_marshal("vec", "key-a", value)
    assert diskcache.load_marshal("vec", "key-a") == value  # int keys, tuples, sets survive
    assert diskcache.load_marshal("vec", "key-b") is None
    (path,) = folder.glob("vec-*.bin")
    path.write_bytes(b"\x00garbage")
    assert diskcache.load_marshal("vec", "key-a") is None
    diskcache.store_marshal("vec", "key-c", {"f": lambda: 1})  # not plain data: not stored, no error
    assert diskcache.load_marshal("vec", "key-c") is None
    for i in range(diskcache.KEEP + 3):
        diskcache.store_marshal("vec", f"k{i}", i)
    assert len(list(folder.glob("vec-*.bin"))) == diskcache.KEEP

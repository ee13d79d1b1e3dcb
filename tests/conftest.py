from __future__ import annotations

import os
import shutil
import tempfile

import pytest

from kb import load

_CACHE: list[str] = []


def pytest_configure(config: pytest.Config) -> None:
    """The tests (and the tools they run in subprocesses) cache into a folder of their own, not ~/.cache."""
    _CACHE.append(tempfile.mkdtemp(prefix="onnx-kb-test-cache-"))
    os.environ["XDG_CACHE_HOME"] = _CACHE[0]


def pytest_unconfigure(config: pytest.Config) -> None:
    for folder in _CACHE:
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="session")
def db():
    return load(strict=False)

from __future__ import annotations

import pytest

from kb import load


@pytest.fixture(scope="session")
def db():
    return load(strict=False)

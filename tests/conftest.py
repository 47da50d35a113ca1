"""Shared fixtures: paths to the repository, the sample data and ../shared."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
SAMPLE = REPO / "sample_data"
DEV = SHARED / "data" / "dev"


def read_lines(path: Path) -> list[str]:
    """A test-side reader (independent of mtdiag.io): UTF-8, one segment per line."""
    return path.read_text(encoding="utf-8").split("\n")[:-1]


@pytest.fixture(scope="session")
def shared() -> Path:
    if not SHARED.is_dir():
        pytest.fail(f"{SHARED} is missing: the tests need ../shared beside the repository")
    return SHARED

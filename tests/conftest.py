"""Shared fixtures: paths to the repository, the sample data and the test data (``tests/data``, see its README)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from mtdiag.core.arrow_memory import use_the_system_allocator

use_the_system_allocator()  # the tests run mtdiag as its own processes do (the command, the dashboard)

REPO = Path(__file__).resolve().parents[1]
SAMPLE = REPO / "sample_data"
DATA = REPO / "tests" / "data"
DEV = DATA / "dev"
WORKED_NUMBERS = DATA / "worked-numbers.json"


def spec_path(path: str) -> Path:
    """A file named as in the specification's worked numbers (``data/sample/...``, ``data/dev/...``): the same file
    in this repository (``sample_data/...``, ``tests/data/dev/...``)."""
    for prefix, folder in (("data/sample/", SAMPLE), ("data/dev/", DEV)):
        if path.startswith(prefix):
            return folder / path[len(prefix):]
    raise ValueError(f"{path}: not a data/sample or data/dev path")


def read_lines(path: Path) -> list[str]:
    """A test-side reader (independent of mtdiag.io): UTF-8, one segment per line."""
    return path.read_text(encoding="utf-8").split("\n")[:-1]


def en_de_texts() -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """The WMT21 en-de dev set as plain lists, read independently of mtdiag.io: references A, C, D and the 12
    systems (named by their file names)."""
    folder = DEV / "wmt21" / "en-de"
    refs = {name: read_lines(folder / f"ref.{name}.txt") for name in "ACD"}
    hyps = {p.name.split(".")[-2]: read_lines(p) for p in sorted(folder.glob("newstest2021.en-de.*.txt"))}
    assert len(hyps) == 12
    return refs, hyps



@pytest.fixture
def clean_streamlit():
    """Streamlit's caches empty before and after a test (an AppTest run must not see another test's frames)."""
    import streamlit as st

    st.cache_data.clear()
    st.cache_resource.clear()
    yield
    st.cache_data.clear()
    st.cache_resource.clear()


@pytest.fixture(autouse=True, scope="session")
def report_cache_folder(tmp_path_factory):
    """The dashboard keeps the reports of test-set folders on disk (:mod:`mtdiag.scoring.report_cache`): the tests', and
    those of the servers they start, go to a folder of this session, never the user's cache."""
    folder = tmp_path_factory.mktemp("report-cache")
    before = os.environ.get("MTDIAG_CACHE_DIR")
    os.environ["MTDIAG_CACHE_DIR"] = str(folder)
    yield folder
    if before is None:
        os.environ.pop("MTDIAG_CACHE_DIR", None)
    else:
        os.environ["MTDIAG_CACHE_DIR"] = before

"""The Segments page in a real Chromium shows the worst-first queue of mtdiag.triage.ranking (issue 19): its first row opens
in the one-source view (the heading is the core's first row), and *Strict pair order* reruns the page in the pair
order without error (the first row of both orders is the same pair; the row order itself is asserted in
tests/test_app_segments.py, where the grid's rows can be read)."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import expect

from mtdiag.triage import ranking
from mtdiag.scoring.evaluate import evaluate
from mtdiag.io import load_folder

REPO = Path(__file__).resolve().parents[2]
DE = REPO / "sample_data" / "wmt21.en-de"


@pytest.fixture(scope="module")
def queues():
    report = evaluate(load_folder(DE))
    queues = ranking.worst_first(report), ranking.worst_first(report, strict=True)
    return [q.assign(seg_id=report.evalset.seg_ids[q["seg"].to_numpy()]) for q in queues]  # the page's ids


def test_segments_page_shows_the_queue_and_its_strict_order(streamlit_server, page, wait_for_app, queues):
    default, strict = queues
    page.goto(f"{streamlit_server}/segments", wait_until="domcontentloaded")
    wait_for_app(page)
    expect(page.get_by_role("heading", name="Segments", exact=True)).to_be_visible(timeout=60_000)
    first = default.iloc[0]
    expect(page.get_by_role("heading", name=f"Segment {first['seg_id']} · {first['system']}")).to_be_visible(
        timeout=60_000)
    expect(page.get_by_test_id("stException")).to_have_count(0)
    page.get_by_role("button", name="More").click()  # the order's option sits in the "More" popover
    page.get_by_text("Strict pair order", exact=True).click()
    wait_for_app(page)
    top = strict.iloc[0]
    expect(page.get_by_role("heading", name=f"Segment {top['seg_id']} · {top['system']}")).to_be_visible(
        timeout=60_000)
    expect(page.get_by_test_id("stException")).to_have_count(0)


def test_a_search_pattern_over_the_limit_is_refused_with_a_message(streamlit_server, page, wait_for_app):
    """Issue 39: a pasted pattern longer than the limit was dropped by the browser's text box without a word; now
    the page says how long it is and what the limit is, and the queue stays."""
    page.goto(f"{streamlit_server}/segments", wait_until="domcontentloaded")
    wait_for_app(page)
    box = page.get_by_role("textbox", name="Search source, references and outputs (regular expression)")
    box.fill("a" * 2_001)
    box.press("Enter")
    wait_for_app(page)
    expect(page.get_by_test_id("stAlertContentError")).to_contain_text(
        "the search pattern has 2,001 characters; at most 2,000", timeout=60_000)
    expect(page.get_by_test_id("stException")).to_have_count(0)
    expect(page.get_by_role("heading", name="Segments", exact=True)).to_be_visible()

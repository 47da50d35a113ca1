"""Tags in a real Chromium (issue 21 Build 4): tick two rows of the Segments queue (the grid is a canvas: its row
markers are clicked by position), tag them, and filter with the slice box ``tag == "…"`` — the slice keeps exactly
those rows' segments (two sources: the first screen shows one pair per source)."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from tests.e2e.conftest import grid_box

HEADER_PX = 35  # the grid's header row (Streamlit's default)
ROW_PX = 72  # pages/segments.py ROW_HEIGHT


def test_tag_two_rows_and_filter_by_the_tag(streamlit_server, page, wait_for_app):
    page.goto(streamlit_server, wait_until="domcontentloaded")
    wait_for_app(page)
    page.get_by_test_id("stSidebarNav").get_by_role("link", name="Segments", exact=True).click()
    wait_for_app(page)
    expect(page.get_by_role("heading", name="Segments", exact=True)).to_be_visible(timeout=60_000)
    box = grid_box(page)
    for row in (0, 1):  # the row-marker column: a checkbox per row in a multi-row selection
        page.mouse.click(box["x"] + 18, box["y"] + HEADER_PX + ROW_PX * row + ROW_PX / 2)
        wait_for_app(page)
    expect(page.get_by_text("Tag the 2 selected rows", exact=False)).to_be_visible(timeout=60_000)
    page.get_by_role("textbox", name="Tag", exact=True).fill("e2e check")
    page.get_by_role("button", name="Add tag").click()
    wait_for_app(page)
    expect(page.get_by_text(re.compile(r"Tagged 2 outputs"))).to_be_visible(timeout=60_000)
    slice_box = page.get_by_role("textbox", name="Slice: only segments where …")
    slice_box.fill('tag == "e2e check"')
    slice_box.press("Enter")
    wait_for_app(page)
    expect(page.get_by_text(re.compile(r"The slice keeps 2 of 117 segments"))).to_be_visible(timeout=60_000)
    expect(page.get_by_test_id("stException")).to_have_count(0)

"""The sidebar's slice box in a real Chromium (issue 21): typing an expression restricts the page to the slice — the
banner names it with its size on every page — and a bad expression is one
warning while every segment stays shown."""

from __future__ import annotations

from playwright.sync_api import expect

EXPRESSION = "seg_id <= 40"


def test_the_slice_box_restricts_every_page_and_explains_a_bad_expression(streamlit_server, page, wait_for_app):
    page.goto(streamlit_server, wait_until="domcontentloaded")
    wait_for_app(page)
    expect(page.get_by_role("heading", name="Overview", exact=True)).to_be_visible(timeout=60_000)
    box = page.get_by_role("textbox", name="Slice: only segments where …")
    box.fill(EXPRESSION)
    box.press("Enter")
    wait_for_app(page)
    expect(page.get_by_text("40 of 117 segments", exact=False).first).to_be_visible(timeout=60_000)
    expect(page.get_by_test_id("stException")).to_have_count(0)
    page.get_by_test_id("stSidebarNav").get_by_role("link", name="Segments", exact=True).click()
    wait_for_app(page)
    expect(page.get_by_role("heading", name="Segments", exact=True)).to_be_visible(timeout=60_000)
    expect(page.get_by_text("40 of 117 segments", exact=False).first).to_be_visible(timeout=60_000)
    box = page.get_by_role("textbox", name="Slice: only segments where …")
    box.fill("chrf[Nobody] < 40")
    box.press("Enter")
    wait_for_app(page)
    expect(page.get_by_text("The slice cannot be used", exact=False)).to_be_visible(timeout=60_000)
    expect(page.get_by_test_id("stException")).to_have_count(0)

"""The Slice finder on uploaded data, in a real Chromium: upload a set through the sidebar's uploaders (source, a
reference, three systems, an MQM error file), open the finder, follow "Open this slice", and land on the Segments
page of the *same* data with the slice applied — before, the link's page switch reset the sidebar and the session fell
back to the sample set. Screenshots of both pages at 1,600 x 1,000 go to artifacts/screenshots/."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from tests.conftest import DEV

TED = DEV / "ted" / "zh-en"
SYSTEMS = ("Borderline", "DIDI-NLP", "Facebook-AI")


def test_a_slice_opened_from_the_finder_keeps_the_uploaded_data(streamlit_server, page, wait_for_app,
                                                                screenshot_dir):
    page.set_viewport_size({"width": 1600, "height": 1000})
    page.goto(streamlit_server, wait_until="domcontentloaded")
    wait_for_app(page)
    page.get_by_test_id("stRadio").get_by_text("Upload files").click()
    wait_for_app(page)

    def upload(label: str, *paths) -> None:
        page.get_by_test_id("stFileUploader").filter(has_text=label).get_by_test_id(
            "stFileUploaderDropzoneInput").set_input_files([str(p) for p in paths])
        wait_for_app(page, timeout=180_000)

    upload("Source", TED / "src.txt")
    upload("References", TED / "ref.B.txt")
    upload("System outputs", *(TED / f"tedtalks2021.zh-en.{name}.txt" for name in SYSTEMS))
    page.get_by_text("Human error spans and metric scores").click()
    upload("MQM/ESA annotations", TED / "mqm.errors.tsv")
    sidebar = page.get_by_test_id("stSidebar")
    expect(sidebar.get_by_text("529 segments · 3 systems · 1 reference", exact=False)).to_be_visible(timeout=60_000)

    page.get_by_test_id("stSidebarNav").get_by_role("link", name="Slice finder", exact=True).click()
    wait_for_app(page, timeout=180_000)
    expect(page.get_by_role("heading", name="Slice finder", exact=True)).to_be_visible(timeout=60_000)
    found = page.get_by_text(re.compile(r"slices tried on 529 segments; \d+ significant")).first
    expect(found).to_be_visible(timeout=120_000)
    expect(found).to_contain_text("Largest departure from the rest of the set first")  # the default test (issue 35)
    expect(page.get_by_text("(^|", exact=False)).to_have_count(0)  # slices read as said, no regular expressions
    screenshot_path = screenshot_dir / "slice_finder_upload.png"
    page.screenshot(path=str(screenshot_path))

    page.get_by_role("link", name="Open this slice").click()
    wait_for_app(page, timeout=180_000)
    expect(page.get_by_role("heading", name="Segments", exact=True)).to_be_visible(timeout=60_000)
    banner = page.get_by_text(re.compile(r"Slice .+: \d+ of 529 segments")).first
    expect(banner).to_be_visible(timeout=60_000)
    # the same uploaded data: upload mode, its three systems, its annotations — not the sample set
    expect(sidebar.get_by_text("529 segments · 3 systems · 1 reference", exact=False)).to_be_visible()
    expect(sidebar.get_by_text("wmt21.en-de", exact=False)).to_have_count(0)
    expect(page.get_by_test_id("stAlertContentWarning")).to_have_count(0)
    box = page.get_by_role("textbox", name="Slice: only segments where …")
    assert box.input_value() and "?where=" not in page.url  # in the box, off the address
    expect(page.get_by_test_id("stException")).to_have_count(0)
    page.screenshot(path=str(screenshot_dir / "segments_after_open_slice.png"))

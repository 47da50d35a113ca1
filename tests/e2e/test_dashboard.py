"""The dashboard in a real headless Chromium: every page renders (screenshots in artifacts/screenshots/), a system
output uploads through the browser, and segment text with <script>/<img onerror> is shown as text, never run.

Row selection in the data grid (a canvas) is covered by tests/test_app.py (AppTest); here the browser checks what
only a browser can: rendering, uploads, navigation within one session, and that markup in data stays inert.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import expect

from mtdiag.views import REGISTRY

REPO = Path(__file__).resolve().parents[2]
DE = REPO / "sample_data" / "wmt21.en-de"
PAGES = [(view.name, view.title) for view in REGISTRY.values()]  # every page of the dashboard
SCRIPT = "<script>window.__xss=1</script>"
IMG = '<img src=x onerror="window.__xss=2">'


@pytest.fixture(autouse=True)
def _wait(wait_for_app):
    """The conftest's ``wait_for_app`` helper for the functions below (imported as a fixture: a plain
    ``from conftest import`` is ambiguous next to tests/conftest.py)."""
    global wait_for_app_helper
    wait_for_app_helper = wait_for_app


wait_for_app_helper = None


def settle(page, title: str | None = None) -> None:
    """Wait for the run to finish, the page heading, and every plotly chart on the page to have drawn."""
    wait_for_app = wait_for_app_helper
    wait_for_app(page)
    if title:
        expect(page.get_by_role("heading", name=title, exact=True).first).to_be_visible(timeout=60_000)
    page.wait_for_timeout(300)  # a rerun (e.g. a bootstrap or a widget) may start right after
    wait_for_app(page)
    page.wait_for_function(
        """() => [...document.querySelectorAll("[data-testid='stPlotlyChart']")]
                   .every(c => c.querySelector('.main-svg'))""", timeout=30_000)


def open_page(page, title: str) -> None:
    """Navigate with the sidebar (same session: uploads stay)."""
    page.get_by_test_id("stSidebarNav").get_by_role("link", name=title, exact=True).click()
    settle(page, title)


def screenshot(page, path: Path) -> None:
    """The whole page: the main area scrolls inside the app, so grow the viewport to its height first."""
    height = page.evaluate(
        "() => { const m = document.querySelector(\"[data-testid='stMain']\"); "
        "return m ? m.scrollHeight : document.body.scrollHeight; }")
    page.set_viewport_size({"width": 1440, "height": min(max(int(height) + 40, 1000), 10_000)})
    settle(page)
    page.screenshot(path=str(path), full_page=True)
    page.set_viewport_size({"width": 1440, "height": 1000})
    assert path.stat().st_size > 10_000


def test_every_page_renders(streamlit_server, page, blocked_requests, screenshot_dir):
    page.goto(streamlit_server, wait_until="domcontentloaded")
    settle(page, "Overview")
    expect(page.get_by_test_id("stSidebar").get_by_text("wmt21.en-de", exact=False).first).to_be_visible()
    for slug, title in PAGES:
        open_page(page, title)
        expect(page.get_by_test_id("stException")).to_have_count(0)
        expect(page.get_by_test_id("stAlertContentError")).to_have_count(0)
        # issue 13: every page of the default sample shows data with nothing clicked
        expect(page.get_by_test_id("stDataFrame").first).to_be_visible(timeout=60_000)
        screenshot(page, screenshot_dir / f"{slug}.png")
    # the sample set with human term annotations, for the terminology view with data
    page.get_by_test_id("stSelectbox").filter(has_text="Test set").locator("input").fill("tico19")
    page.keyboard.press("Enter")
    settle(page, PAGES[-1][1])  # still on the last page of the navigation
    expect(page.get_by_test_id("stSidebar").get_by_text("term occurrences", exact=False)).to_be_visible()
    open_page(page, "Terminology")
    expect(page.get_by_role("heading", name="Occurrences in context")).to_be_visible()
    expect(page.locator(".mtd-k-term_ok, .mtd-k-term_miss").first).to_be_visible()
    screenshot(page, screenshot_dir / "terminology_tico19.png")
    assert not blocked_requests, f"the page tried to leave loopback: {blocked_requests}"


def test_deep_link_on_a_page(streamlit_server, page):
    page.goto(f"{streamlit_server}/waft_neva", wait_until="domcontentloaded")
    settle(page, "WAFT vs NEVA")
    expect(page.get_by_test_id("stSidebar").get_by_text("Test set", exact=True)).to_be_visible()
    expect(page.get_by_test_id("stException")).to_have_count(0)


def test_uploaded_system_is_scored_and_its_markup_never_runs(streamlit_server, page, tmp_path, screenshot_dir):
    lines = (DE / "ref.D.txt").read_text(encoding="utf-8").split("\n")[:-1]
    lines[4] = f"Vorsicht {SCRIPT} und {IMG} bitte"
    system = tmp_path / "xss-probe.txt"
    system.write_text("\n".join(lines) + "\n", encoding="utf-8")

    page.goto(streamlit_server, wait_until="domcontentloaded")
    settle(page, "Overview")
    page.get_by_test_id("stFileUploader").filter(has_text="Add system outputs").get_by_test_id(
        "stFileUploaderDropzoneInput").set_input_files(str(system))
    settle(page, "Overview")
    expect(page.get_by_test_id("stSidebar").get_by_text("wmt21.en-de + 1 uploaded")).to_be_visible()
    expect(page.get_by_test_id("stSidebar").get_by_text("7 systems", exact=False)).to_be_visible()
    expect(page.get_by_test_id("stAlertContentError")).to_have_count(0)

    open_page(page, "Segments")
    search = page.get_by_role("textbox", name="Search source, references and outputs")
    search.fill("__xss")
    search.press("Enter")
    settle(page, "Segments")
    expect(page.get_by_text("1 of 819 rows")).to_be_visible()
    expect(page.get_by_role("heading", name="Segment 5 · xss-probe")).to_be_visible()
    shown = page.locator(".mtd-text", has_text="Hypothesis (xss-probe)")
    expect(shown).to_contain_text(SCRIPT)
    expect(shown).to_contain_text(IMG)
    screenshot(page, screenshot_dir / "segments_xss.png")

    open_page(page, "Compare")
    page.get_by_test_id("stSelectbox").filter(has_text="System A").locator("input").fill("xss-probe")
    page.keyboard.press("Enter")
    settle(page, "Compare")

    for where in ("segments", "compare"):
        assert page.evaluate("() => typeof window.__xss") == "undefined", f"markup ran on {where}"
    assert page.locator("img[src='x']").count() == 0
    assert page.locator("script", has_text="__xss").count() == 0

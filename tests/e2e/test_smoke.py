"""Page-level smoke test in a real browser: the app opens on a closed network and shows its name."""

from __future__ import annotations

from playwright.sync_api import expect


def test_home_renders_offline(streamlit_server, page, blocked_requests, wait_for_app, screenshot_dir):
    response = page.goto(streamlit_server, wait_until="domcontentloaded")
    assert response is not None and response.ok, f"GET {streamlit_server} -> {response and response.status}"
    wait_for_app(page)

    expect(page).to_have_title("mtdiag")
    expect(page.get_by_role("heading", name="mtdiag").first).to_be_visible()
    # A user never sees a Python exception on the home page.
    expect(page.get_by_test_id("stException")).to_have_count(0)

    shot = screenshot_dir / "home.png"
    page.screenshot(path=str(shot), full_page=True)
    assert shot.stat().st_size > 0

    print(f"\n[e2e] blocked non-loopback requests: {blocked_requests or 'none'}")
    assert not blocked_requests, f"the page tried to leave loopback: {blocked_requests}"

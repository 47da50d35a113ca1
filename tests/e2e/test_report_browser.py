"""The HTML report in real Chromium, opened from a file with every other request aborted: it makes none, shows
every system, shows a <script> segment as text and draws its plotly charts (issue 15, Must show)."""

from __future__ import annotations

import pytest

from mtdiag.report import html_report as html
from mtdiag.scoring.evaluate import evaluate
from mtdiag.core.evalset import evalset_from_lists
from tests.e2e.conftest import SCREENSHOTS

pytestmark = pytest.mark.e2e

REFS = {"A": ["the cat sat on the mat .", "a dog runs in the park .", "we like tea ."] * 4}
HYPS = {"good": list(REFS["A"]),
        "<b>bold</b>": ["the cat cat cat sat .", "a dog in park .", "we like <script>window.pwned=1</script> ."] * 4,
        "mid": ["the cat sat on a mat .", "a dog runs in a park .", "we like tea !"] * 4}


def test_report_opens_offline_with_every_system(browser, tmp_path):
    report = evaluate(evalset_from_lists(REFS, HYPS, src=["le chat .", "un chien .", "thé ."] * 4))
    path = tmp_path / "report.html"
    path.write_text(html.html_report(report, top=36, n=200), encoding="utf-8")  # every pair: the script output too
    url = path.as_uri()
    context = browser.new_context()
    page = context.new_page()
    requests, errors = [], []

    def route(r):
        if r.request.url == url:
            r.continue_()
        else:
            requests.append(r.request.url)
            r.abort()

    page.route("**/*", route)
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(url, wait_until="load")
    page.wait_for_selector(".js-plotly-plot .main-svg", timeout=30_000)
    try:
        assert requests == []
        assert errors == []
        body = page.inner_text("body")
        for system in ("good", "mid", "<b>bold</b>"):
            assert system in body
        assert "<script>window.pwned=1</script>" in body  # shown as text ...
        assert page.evaluate("window.pwned === undefined")  # ... never run
        assert page.locator(".js-plotly-plot").count() >= 2
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SCREENSHOTS / "report.png"), full_page=False)
    finally:
        context.close()

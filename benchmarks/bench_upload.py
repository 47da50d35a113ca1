"""The dashboard at size in real Chromium (issue 14, Targets): upload dev WMT21 zh-en (source, reference A, 12
systems × 1,948 segments, MQM scores) through the "Upload files" inputs of a fresh ``streamlit run app.py`` server,
then time

- **Overview ready after the last file**: from setting the system-output files (the last input) until the Overview
  is drawn (scoring included) — target ≤ 8 s;
- **first visit of every other page** (in the sidebar's order, ``mtdiag.views.REGISTRY``) — target ≤ 3 s each.

The server, browser and wait conditions are ``benchmarks/bench_dashboard.py``'s (script finished, no skeleton,
every plotly chart drawn). Prints one line per view with its target; exit status 1 when a target is missed.

Run: ``python benchmarks/bench_upload.py`` (needs /usr/bin/chromium; never ``playwright install``).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import bench_dashboard as dash  # noqa: E402  (the server and browser helpers)
import devdata  # noqa: E402

from mtdiag.views import REGISTRY  # noqa: E402

DATA = devdata.root() / "wmt21" / "zh-en"
OVERVIEW_TARGET_S, VIEW_TARGET_S = 8.0, 3.0


def measure() -> dict[str, float]:
    from playwright.sync_api import sync_playwright

    titles = [view.title for view in REGISTRY.values()]
    proc, base = dash.start_server()
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=dash.CHROMIUM, args=dash.CHROMIUM_ARGS, headless=True)
            page = browser.new_context(viewport={"width": 1440, "height": 1000}).new_page()
            page.set_default_timeout(300_000)
            page.goto(base, wait_until="domcontentloaded")
            page.get_by_role("heading", name=titles[0], exact=True).wait_for()
            dash.ready(page)
            sidebar = page.get_by_test_id("stSidebar")
            dash.after(page, lambda: sidebar.get_by_text("Upload files", exact=True).click())
            dash.after(page, lambda: dash.uploader(page, "Source").set_input_files(str(DATA / "src.txt")))
            dash.after(page, lambda: dash.uploader(page, "References").set_input_files(str(DATA / "ref.A.txt")))
            dash.after(page, lambda: dash.uploader(page, "Human scores").set_input_files(str(DATA / "mqm.seg.tsv")))
            hyps = sorted(DATA.glob("newstest2021.zh-en.*.txt"))
            views = {titles[0]: dash.after(page, lambda: dash.uploader(page, "System outputs").set_input_files(
                [str(p) for p in hyps]), titles[0], timeout=300_000)}
            sidebar.get_by_text(f"{len(hyps)} systems", exact=False).wait_for()
            for title in titles[1:]:
                views[title] = dash.after(page, dash.nav(page, title), title, timeout=300_000)
            page.screenshot(path="/tmp/bench_upload_last_view.png", full_page=False)
            browser.close()
    finally:
        dash.stop_server(proc)
    return views


def main() -> int:
    views = measure()
    missed = 0
    print("dev wmt21/zh-en upload (src, 1 ref, 12 systems × 1,948, MQM) in Chromium:")
    for i, (view, seconds) in enumerate(views.items()):
        target = OVERVIEW_TARGET_S if i == 0 else VIEW_TARGET_S
        what = "ready after the last file" if i == 0 else "first visit"
        ok = seconds <= target
        missed += not ok
        print(f"  {view:<34} {what:<26} {seconds:6.2f} s  (target ≤ {target:g} s{'' if ok else ', MISSED'})")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())

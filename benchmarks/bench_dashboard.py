"""Benchmark: the dashboard in a real browser (Debian chromium + Playwright) against a running Streamlit server.

Measures, wall clock, as a user sees it:

1. **first render** — a fresh server (its own process, new caches) is up (``/_stcore/health`` says ``ok``); then
   the browser opens ``/`` and we wait until the Overview of the sample set is drawn (script finished, no
   skeleton, every plotly chart drawn). Target < 4 s.
2. **upload** — switch to "Upload files" and upload the dev set ``wmt21/en-de`` (``benchmarks/devdata.py``) (source, 3 references,
   12 systems, MQM scores) through the file inputs; then open every view in turn and wait until it is drawn. Each
   view's time and the total from the first upload to the last view drawn. Target: every view ready < 10 s.
3. **rerun after a widget click** — on views whose data is computed (the dev set), change a widget and time
   until the rerun is drawn. Target < 0.5 s.

A browser timing includes the websocket round trip and the browser's drawing; script-only times from AppTest are
printed for the rerun case as well (``--apptest``). Results go to stdout and ``artifacts/bench_dashboard.json``;
the exit status is 1 when a target is missed.

Run: ``python benchmarks/bench_dashboard.py [--apptest]`` (needs /usr/bin/chromium: ``make browser``).
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import devdata  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
DEV = devdata.root() / "wmt21" / "en-de"
ARTIFACTS = REPO / "artifacts"
CHROMIUM = os.environ.get("MTDIAG_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
VIEWS = ["Overview", "Segments", "Over/under-translation", "WAFT vs NEVA", "Terminology", "N-grams",
         "Human scores & likeness", "Compare"]
TARGETS = {"first_render_s": 4.0, "view_ready_s": 10.0, "rerun_s": 0.5}

OBSERVER = """() => {
  const app = document.querySelector("[data-testid='stApp']");
  if (!app || window.__mtdObserved) return;
  window.__mtdObserved = true; window.__mtdRuns = 0;
  // a run has ended each time the script state leaves "running" (records keep every change, however quick)
  new MutationObserver(records => {
    for (const r of records) if (r.oldValue === 'running') window.__mtdRuns++;
  }).observe(app, {attributes: true, attributeOldValue: true, attributeFilter: ['data-test-script-state']});
}"""


# ------------------------------------------------------------------------------------------------ server


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def healthy(url: str) -> bool:
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with opener.open(url, timeout=2) as response:
            return response.read().strip() == b"ok"
    except OSError:
        return False


def start_server() -> tuple[subprocess.Popen, str]:
    port = free_port()
    ARTIFACTS.mkdir(exist_ok=True)
    log = open(ARTIFACTS / "bench-dashboard-server.log", "wb")
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "app.py", "--server.address", "127.0.0.1", "--server.port",
         str(port), "--server.headless", "true", "--browser.gatherUsageStats", "false",
         "--server.fileWatcherType", "none"],
        cwd=REPO, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True,
        env=dict(os.environ, PYTHONUNBUFFERED="1"))
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while not healthy(f"{base}/_stcore/health"):
        if proc.poll() is not None or time.monotonic() > deadline:
            stop_server(proc)
            raise SystemExit(f"the Streamlit server did not come up; see {log.name}")
        time.sleep(0.05)
    return proc, base


def stop_server(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)


# ------------------------------------------------------------------------------------------------ browser


def ready(page, timeout: int = 120_000) -> None:
    """Script finished, no skeleton, every plotly chart drawn."""
    page.wait_for_selector("[data-testid='stApp'][data-test-connection-state='CONNECTED']", state="attached",
                           timeout=timeout)
    page.wait_for_selector("[data-testid='stApp'][data-test-script-state='notRunning']", state="attached",
                           timeout=timeout)
    page.wait_for_function("""() => ![...document.querySelectorAll("[data-testid='stSkeleton']")]
        .some(e => e.offsetParent !== null || e.getClientRects().length > 0)""", timeout=timeout)
    page.wait_for_function("""() => [...document.querySelectorAll("[data-testid='stPlotlyChart']")]
        .every(c => c.querySelector('.main-svg'))""", timeout=timeout)


def after(page, action, title: str | None = None, timeout: int = 120_000) -> float:
    """Seconds from ``action()`` until its script run has finished and the page is drawn (and shows ``title``).

    When the run triggers another run (a widget that reruns, the deep-link bootstrap), the time runs until the
    last one is drawn; the short quiet period used to detect that is not counted."""
    page.evaluate(OBSERVER)
    runs = page.evaluate("() => window.__mtdRuns")
    start = time.perf_counter()
    action()
    page.wait_for_function(f"() => window.__mtdRuns > {runs}", timeout=timeout)
    if title:
        page.get_by_role("heading", name=title, exact=True).first.wait_for(timeout=timeout)
    ready(page, timeout)
    elapsed = time.perf_counter() - start
    while True:
        settled = page.evaluate("() => window.__mtdRuns")
        page.wait_for_timeout(200)
        state = page.evaluate("() => document.querySelector(\"[data-testid='stApp']\").getAttribute('data-test-script-state')")
        if page.evaluate("() => window.__mtdRuns") == settled and state == "notRunning":
            return elapsed
        ready(page, timeout)
        elapsed = time.perf_counter() - start


def nav(page, title: str):
    return lambda: page.get_by_test_id("stSidebarNav").get_by_role("link", name=title, exact=True).click()


def uploader(page, label: str):
    return page.get_by_test_id("stFileUploader").filter(has_text=label).get_by_test_id("stFileUploaderDropzoneInput")


def pick(page, label: str, option: str):
    """Choose ``option`` in the selectbox labelled ``label``."""
    def act():
        page.get_by_test_id("stSelectbox").filter(has_text=label).locator("input").fill(option)
        page.keyboard.press("Enter")
    return act


# ------------------------------------------------------------------------------------------------ runs


def measure(results: dict) -> None:
    from playwright.sync_api import sync_playwright

    proc, base = start_server()
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
            page = browser.new_context(viewport={"width": 1440, "height": 1000}).new_page()
            page.set_default_timeout(120_000)

            # 1. first render after the server is up
            start = time.perf_counter()
            page.goto(base, wait_until="domcontentloaded")
            page.get_by_role("heading", name="Overview", exact=True).wait_for()
            ready(page)
            results["first_render_s"] = time.perf_counter() - start

            # 2. upload the dev set, then every view
            sidebar = page.get_by_test_id("stSidebar")
            after(page, lambda: sidebar.get_by_text("Upload files", exact=True).click())
            start = time.perf_counter()
            hyps = sorted(DEV.glob("newstest2021.en-de.*.txt"))
            after(page, lambda: uploader(page, "Source").set_input_files(str(DEV / "src.txt")))
            after(page, lambda: uploader(page, "References").set_input_files(
                [str(DEV / f"ref.{r}.txt") for r in "ACD"]))
            after(page, lambda: uploader(page, "Human scores").set_input_files(str(DEV / "mqm.seg.tsv")))
            views = {}
            views["Overview"] = after(page, lambda: uploader(page, "System outputs").set_input_files(
                [str(p) for p in hyps]), "Overview")
            results["upload_files_s"] = time.perf_counter() - start - views["Overview"]
            sidebar.get_by_text("12 systems", exact=False).wait_for()
            for view in VIEWS[1:]:
                views[view] = after(page, nav(page, view), view)
            results["upload_to_all_views_s"] = time.perf_counter() - start
            results["view_ready_s"] = views

            # 3. reruns after a widget click, on the dev set (everything below is already computed once)
            reruns = {}
            after(page, nav(page, "Overview"), "Overview")
            after(page, pick(page, "Baseline", "Online-W"))  # computes the test for this baseline
            reruns["Overview: baseline back to a tested one"] = after(page, pick(page, "Baseline", "eTranslation"))
            after(page, nav(page, "Segments"), "Segments")
            search = page.get_by_role("textbox", name="Search source, references and outputs")
            reruns["Segments: free-text filter"] = after(page, lambda: (search.fill("Hund"), search.press("Enter")))
            reruns["Segments: clear the filter"] = after(page, lambda: (search.fill(""), search.press("Enter")))
            after(page, nav(page, "Over/under-translation"), "Over/under-translation")
            after(page, lambda: page.get_by_role("radio", name="UTEM ↓").click())
            reruns["Over/under: switch OTEM/UTEM"] = after(page, lambda: page.get_by_role("radio",
                                                                                          name="OTEM ↓").click())
            after(page, nav(page, "Compare"), "Compare")
            reruns["Compare: change the metric"] = after(page, pick(page, "By", "BLEU"))
            results["rerun_s"] = reruns
            browser.close()
    finally:
        stop_server(proc)


def apptest_reruns(results: dict) -> None:
    """Script-only rerun times (no browser): AppTest on the sample set, after a first run."""
    from streamlit.testing.v1 import AppTest

    from mtdiag.ui.navigation import layout

    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=120)
    at.run()
    timings = {}
    for page, key, value in [("overview", "ov_baseline", "Online-W"), ("segments", "seg_text", "Hund"),
                             ("waft_neva", "wn_system", "UEdin")]:
        at.switch_page(str(layout(page).relative_to(REPO))).run()
        at.run()
        widget = at.selectbox(key=key) if key != "seg_text" else at.text_input(key=key)
        start = time.perf_counter()
        widget.set_value(value).run()
        timings[f"{page}: {key}"] = time.perf_counter() - start
        assert not at.exception, [e.value for e in at.exception]
    results["apptest_rerun_s"] = timings


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--apptest", action="store_true", help="also time reruns with AppTest (script only)")
    args = parser.parse_args()
    devdata.folder("wmt21/en-de")
    results: dict = {}
    measure(results)
    if args.apptest:
        apptest_reruns(results)

    print(f"first render of the sample set after the server is up: {results['first_render_s']:.2f} s "
          f"(target < {TARGETS['first_render_s']} s)")
    print(f"dev wmt21/en-de upload (3 refs, 12 systems, src, MQM): file inputs {results['upload_files_s']:.2f} s")
    for view, seconds in results["view_ready_s"].items():
        print(f"  {view:32s} ready {seconds:6.2f} s")
    print(f"  first upload to every view drawn: {results['upload_to_all_views_s']:.2f} s "
          f"(target per view < {TARGETS['view_ready_s']} s)")
    print("rerun after a widget click (browser, round trip + drawing):")
    for what, seconds in results["rerun_s"].items():
        print(f"  {what:45s} {seconds:6.3f} s")
    for what, seconds in results.get("apptest_rerun_s", {}).items():
        print(f"  AppTest (script only) {what:34s} {seconds:6.3f} s")
    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / "bench_dashboard.json").write_text(json.dumps(results, indent=2))

    missed = []
    if results["first_render_s"] >= TARGETS["first_render_s"]:
        missed.append("first render")
    missed += [f"view {v}" for v, s in results["view_ready_s"].items() if s >= TARGETS["view_ready_s"]]
    missed += [f"rerun {w}" for w, s in results["rerun_s"].items() if s >= TARGETS["rerun_s"]]
    if missed:
        print("MISSED TARGETS: " + "; ".join(missed))
        return 1
    print("all targets met")
    return 0


if __name__ == "__main__":
    sys.exit(main())

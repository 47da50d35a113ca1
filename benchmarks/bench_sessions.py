"""Benchmark: server memory across 10 parallel browser sessions that upload data and then close (issue 11,
"Memory kept per session").

1. Start the Streamlit server (its own process; ``bench_dashboard.start_server``) and open the app once so that
   every module is imported and the sample set is computed: the **start** RSS is read then.
2. Open ``--sessions`` (10) browser contexts at once (Debian chromium + Playwright), each uploading the sample set
   ``wmt21.en-de`` (source, 3 references, 6 systems, MQM scores) with a marker of its own on every system line, so
   no two sessions share a cache entry; each opens Overview, Segments, Over/under-translation and N-grams. The
   server's RSS is sampled throughout: **peak**.
3. Close every context (their websockets end), wait ``--wait`` seconds (the per-upload cache ``ttl`` plus the
   sweeper's period, ``docs/dashboard.md``), sampling RSS: **after**.

Target: after − start ≤ 150 MB. Prints the figures, writes ``artifacts/bench_sessions.json`` and exits 1 when the
target is missed.

Run: ``python benchmarks/bench_sessions.py [--sessions 10] [--wait 150]`` (needs /usr/bin/chromium).
"""

from __future__ import annotations

import argparse
import json
import threading
import time
from pathlib import Path

import psutil

from bench_dashboard import ARTIFACTS, CHROMIUM, CHROMIUM_ARGS, ready, start_server, stop_server

REPO = Path(__file__).resolve().parents[1]
SAMPLE = REPO / "sample_data" / "wmt21.en-de"
VIEWS = ["Segments", "Over/under-translation", "N-grams"]
TARGET_MB = 150.0
MB = 1024 * 1024


class Sampler:
    """Samples a process's RSS every ``period`` seconds in a thread; keeps the peak and the last value."""

    def __init__(self, pid: int, period: float = 0.25) -> None:
        self._process = psutil.Process(pid)
        self._period = period
        self._stop = threading.Event()
        self.peak = self.last = self.rss()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def rss(self) -> int:
        return self._process.memory_info().rss

    def _run(self) -> None:
        while not self._stop.is_set():
            self.last = self.rss()
            self.peak = max(self.peak, self.last)
            self._stop.wait(self._period)

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()


def session_files(folder: Path, index: int) -> dict[str, list[Path]]:
    """The sample set as upload files, every system line marked with the session's number (distinct content)."""
    folder.mkdir(parents=True, exist_ok=True)
    files: dict[str, list[Path]] = {"src": [], "refs": [], "hyps": [], "human": []}
    for path in sorted(SAMPLE.iterdir()):
        target = folder / path.name
        text = path.read_text(encoding="utf-8")
        if path.name == "src.txt":
            files["src"].append(target)
        elif path.name.startswith("ref."):
            files["refs"].append(target)
        elif path.suffix == ".txt":
            text = "".join(f"s{index} {line}\n" for line in text.split("\n")[:-1])
            files["hyps"].append(target)
        elif path.name == "mqm.seg.tsv":
            files["human"].append(target)
        else:
            continue
        target.write_text(text, encoding="utf-8")
    return files


def idle(page, timeout: int = 300_000) -> None:
    """Connected and the script run finished. (Not ``ready``: with ten pages open, a page the browser does not
    paint may never draw its lazily loaded plotly charts.)"""
    page.wait_for_timeout(300)  # let a run that an action triggered start
    page.wait_for_selector("[data-testid='stApp'][data-test-connection-state='CONNECTED']", state="attached",
                           timeout=timeout)
    page.wait_for_selector("[data-testid='stApp'][data-test-script-state='notRunning']", state="attached",
                           timeout=timeout)


def step(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", flush=True)


def uploader(page, label: str):
    return page.get_by_test_id("stFileUploader").filter(has_text=label).get_by_test_id("stFileUploaderDropzoneInput")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", type=int, default=10)
    parser.add_argument("--wait", type=float, default=360.0, help="seconds to wait after the sessions closed")
    parser.add_argument("--sweep", type=float, default=30.0, help="the server's sweep period (MTDIAG_SWEEP_PERIOD_S)")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    work = ARTIFACTS / "bench_sessions"
    proc, base = start_server()
    result: dict = {"sessions": args.sessions}
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
            warm = browser.new_page()
            warm.goto(base, wait_until="domcontentloaded")
            ready(warm)
            warm.context.close()
            time.sleep(2)
            sampler = Sampler(proc.pid)
            start = sampler.rss()
            contexts, pages = [], []
            t0 = time.perf_counter()
            step(f"start RSS {start / MB:.0f} MB; opening {args.sessions} sessions")
            for i in range(args.sessions):
                context = browser.new_context(viewport={"width": 1280, "height": 900})
                context.route("**/*", lambda route: route.continue_() if "127.0.0.1" in route.request.url
                              else route.abort())
                page = context.new_page()
                page.set_default_timeout(300_000)
                page.goto(base, wait_until="domcontentloaded")
                contexts.append(context)
                pages.append(page)
            for page in pages:
                idle(page)
                page.get_by_test_id("stRadio").get_by_text("Upload files").click()
            for page in pages:  # a click that landed while a run was starting is repeated
                for _ in range(5):
                    idle(page)
                    try:
                        uploader(page, "Source (optional)").wait_for(state="attached", timeout=10_000)
                        break
                    except Exception:  # noqa: BLE001 - playwright's TimeoutError: click again
                        page.get_by_test_id("stRadio").get_by_text("Upload files").click()
            step("uploading")
            for i, page in enumerate(pages):  # every session uploads; the server computes them side by side
                files = session_files(work / f"s{i}", i)
                for label, key in (("Source (optional)", "src"), ("References (optional", "refs"),
                                   ("Human scores", "human")):
                    uploader(page, label).set_input_files([str(p) for p in files[key]][:1 if key != "refs" else None],
                                                          timeout=60_000)
                    idle(page)
                uploader(page, "System outputs (one or more)").set_input_files([str(p) for p in files["hyps"]])
            for page in pages:
                idle(page)
                page.get_by_test_id("stSidebar").get_by_text("uploaded files", exact=False).first.wait_for()
            step("views")
            for view in VIEWS:
                for page in pages:
                    page.get_by_test_id("stSidebarNav").get_by_role("link", name=view, exact=True).click()
                for page in pages:
                    page.get_by_role("heading", name=view, exact=True).first.wait_for(timeout=300_000)
                    idle(page)
            result["sessions_s"] = round(time.perf_counter() - t0, 1)
            peak = sampler.peak
            step(f"closing; peak {peak / MB:.0f} MB")
            for context in contexts:
                context.close()
            closed = sampler.rss()
            timeline = []
            t_close = time.perf_counter()
            while time.perf_counter() - t_close < args.wait:
                time.sleep(5)
                timeline.append((round(time.perf_counter() - t_close), round(sampler.last / MB)))
            after = sampler.rss()
            # a next visitor: Streamlit removes the closed sessions it kept for reconnection only when another
            # session connects (its storage expires lazily)
            visitor = browser.new_page()
            visitor.goto(base, wait_until="domcontentloaded")
            ready(visitor)
            visitor.context.close()
            time.sleep(args.sweep + 5)
            after_visit = sampler.rss()
            sampler.stop()
            browser.close()
    finally:
        stop_server(proc)
    result.update(start_mb=round(start / MB, 1), peak_mb=round(peak / MB, 1), at_close_mb=round(closed / MB, 1),
                  after_mb=round(after / MB, 1), after_visitor_mb=round(after_visit / MB, 1),
                  growth_mb=round((min(after, after_visit) - start) / MB, 1), wait_s=args.wait,
                  timeline=timeline, target_mb=TARGET_MB)
    print(f"server RSS: start {result['start_mb']} MB, peak {result['peak_mb']} MB ({args.sessions} sessions, "
          f"{result['sessions_s']} s), at close {result['at_close_mb']} MB, after {args.wait:.0f} s "
          f"{result['after_mb']} MB, after one more visitor {result['after_visitor_mb']} MB: "
          f"{result['growth_mb']:+} MB (target ≤ {TARGET_MB:.0f} MB)")
    print("after close (s, MB):", timeline)
    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / "bench_sessions.json").write_text(json.dumps(result, indent=2))
    return 0 if result["growth_mb"] <= TARGET_MB else 1


if __name__ == "__main__":
    raise SystemExit(main())

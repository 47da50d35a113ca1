"""Concurrent sessions on one test-set folder, every page of the dashboard in each, then the server's memory after
they close (issue 47, "Must show": 20 sessions; each page answers; the server within 150 MB of its start).

1. A fresh server on the loopback interface (``bench_dashboard.start_server``) offering ``--data DIR`` first (the set
   it opens on), run as ``mtdiag serve`` runs it (``MALLOC_ARENA_MAX=2``), with the sweeper every 10 s, reports kept
   60 s unused and closed sessions kept 30 s (``STREAMLIT_SERVER_DISCONNECTED_SESSION_TTL``). One visitor opens
   every page once and leaves; ``--settle`` seconds later the **start** RSS is read.
2. ``--sessions`` (20) Chromium contexts open the app at once; each then visits every page of the navigation in
   turn (all sessions side by side): a page **answers** when its title is drawn, the script run has finished and
   no exception is shown on it (Streamlit's ``stException``). The server's RSS is sampled throughout (**peak**).
3. The contexts close; after ``--wait`` seconds with no other visitor the RSS is read (**after**); the server must
   still answer ``/_stcore/health``.

Prints per page the sessions it answered in and their median and slowest time, the RSS figures, and the machine's
load average; exit status 1 when a page failed in a session, the server went down, or after − start > 150 MB.

Run: ``python benchmarks/bench_every_page.py --data DIR [--sessions 20] [--wait 120]`` (needs /usr/bin/chromium).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench_dashboard import CHROMIUM, CHROMIUM_ARGS, healthy, start_server, stop_server  # noqa: E402
from bench_sessions import Sampler, idle, step  # noqa: E402

MB = 2**20
TARGET_MB = 150.0


def titles() -> list[str]:
    """The pages' titles, in the navigation's order (the views' registry)."""
    from mtdiag import views

    return [view.title for view in views.REGISTRY.values()]


def visit(page, title: str) -> tuple[bool, float, str]:
    """(answered, seconds, why not) of one page: its link clicked, its title drawn, no exception on it."""
    start = time.perf_counter()
    try:
        page.get_by_test_id("stSidebarNav").get_by_role("link", name=title, exact=True).click()
        page.get_by_role("heading", name=title, exact=True).first.wait_for(timeout=600_000)
        idle(page, timeout=600_000)
    except Exception as exc:  # noqa: BLE001 - playwright's TimeoutError: the page did not answer
        return False, time.perf_counter() - start, f"{type(exc).__name__}: {str(exc).splitlines()[0][:120]}"
    failed = page.get_by_test_id("stException").count()
    return not failed, time.perf_counter() - start, "an exception on the page" if failed else ""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", required=True, help="the test-set folder the server opens on")
    parser.add_argument("--sessions", type=int, default=20)
    parser.add_argument("--settle", type=float, default=60.0, help="seconds before the start is read")
    parser.add_argument("--wait", type=float, default=120.0, help="seconds after the sessions closed")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    env = {"MTDIAG_DATA": str(Path(args.data).resolve()), "MALLOC_ARENA_MAX": "2", "MTDIAG_SWEEP_PERIOD_S": "10",
           "MTDIAG_REPORT_TTL_S": "60", "STREAMLIT_SERVER_DISCONNECTED_SESSION_TTL": "30"}
    proc, base = start_server(env=env)
    pages_shown = titles()
    answers: dict[str, list[float]] = {title: [] for title in pages_shown}
    failures: list[str] = []
    try:
        with sync_playwright() as play:
            browser = play.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            guard = lambda route: route.continue_() if route.request.url.startswith(base) else route.abort()  # noqa: E731
            warm = browser.new_context(viewport={"width": 1600, "height": 1000})
            warm.route("**/*", guard)
            page = warm.new_page()
            page.goto(base, timeout=600_000)
            idle(page, timeout=600_000)
            for title in pages_shown:
                visit(page, title)
            warm.close()
            time.sleep(args.settle)
            sampler = Sampler(proc.pid)
            start = sampler.rss()
            step(f"start {start / MB:,.0f} MB; {args.sessions} sessions, {len(pages_shown)} pages each; load "
                 f"average {os.getloadavg()[0]:.1f}")
            contexts, tabs = [], []
            began = time.perf_counter()
            for _ in range(args.sessions):
                context = browser.new_context(viewport={"width": 1600, "height": 1000})
                context.route("**/*", guard)
                tab = context.new_page()
                tab.set_default_timeout(600_000)
                tab.goto(base, wait_until="domcontentloaded", timeout=600_000)
                contexts.append(context)
                tabs.append(tab)
            for tab in tabs:
                idle(tab, timeout=600_000)
            for title in pages_shown:  # every session on the same page at the same time
                for k, tab in enumerate(tabs):
                    answered, seconds, why = visit(tab, title)
                    if answered:
                        answers[title].append(seconds)
                    else:
                        failures.append(f"session {k + 1}, {title}: {why}")
                step(f"{title}: answered in {len(answers[title])} of {args.sessions} sessions")
            spent, peak = time.perf_counter() - began, sampler.peak
            load = os.getloadavg()
            for context in contexts:
                context.close()
            closed = sampler.rss()
            time.sleep(args.wait)
            after = sampler.rss()
            sampler.stop()
            browser.close()
        up = healthy(f"{base}/_stcore/health")
    finally:
        stop_server(proc)
    for title, seconds in answers.items():
        slowest = f"{max(seconds):.1f}" if seconds else "-"
        median = f"{statistics.median(seconds):.1f}" if seconds else "-"
        print(f"{title}: {len(seconds)} of {args.sessions} sessions; median {median} s, slowest {slowest} s")
    for failure in failures:
        print(f"  failed: {failure}")
    print(f"{args.sessions} sessions x {len(pages_shown)} pages in {spent:,.0f} s; load average (1, 5, 15 min) at the "
          f"end {load[0]:.1f}, {load[1]:.1f}, {load[2]:.1f} on {os.cpu_count()} cores")
    print(f"RSS: start {start / MB:,.0f} MB, peak {peak / MB:,.0f} MB, at close {closed / MB:,.0f} MB, {args.wait:.0f} s "
          f"later {after / MB:,.0f} MB ({(after - start) / MB:+,.0f} MB; target within {TARGET_MB:.0f} MB); server "
          f"up: {up}")
    return 0 if up and not failures and after - start <= TARGET_MB * MB else 1


if __name__ == "__main__":
    sys.exit(main())

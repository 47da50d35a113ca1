"""Load test (issue 22, "Must show"): ten sessions upload their data while an eleventh uploads a table bomb; the
server must stay up, every session must get its own data and no other's, and the bomb must cost nothing but its
own refusal.

1. A fresh Streamlit server on the loopback interface only (``bench_dashboard.start_server``: ``127.0.0.1``), with
   the sweeper shortened (``MTDIAG_REPORT_TTL_S``/``MTDIAG_SWEEP_PERIOD_S``) so that memory is handed back within the
   run. Every browser context may reach ``127.0.0.1`` only (other requests are aborted).
2. ``--sessions`` (10) headless Chromium contexts switch to *Upload files* and each uploads a reference and 4 systems
   × ``--segments`` (2,000) segments, cycled from dev WMT21 zh-en, every line marked with the session's number and
   the systems named ``sN-A`` … ``sN-D`` (distinct content: no shared cache entry). The uploads are all set before
   any result is awaited, so the server scores them side by side.
3. Meanwhile an 11th context uploads the issue's table bomb (a 290 KB ``.tsv.gz`` of 24.9 million tiny rows, ~200 MB
   inflated) as a *Test set file* and waits for its refusal.
4. Each session is polled until its Overview is drawn; its systems are read from the Overview's bar chart (the x
   tick labels, drawn from the server's report) and must be exactly its own four, and no other session's system
   name may appear anywhere on its page.
5. The contexts close; after ``--wait`` seconds (and one more visitor, which makes Streamlit drop closed sessions)
   the server's RSS is read again. The server must still answer ``/_stcore/health``.

Reports per-session time (uploads set → Overview drawn with its own systems), the bomb's refusal time, the server's
RSS at start, peak and after close; writes ``artifacts/bench_hostile_load.json``; exit status 1 when a session
failed, saw another's data, the bomb was not refused, or the server went down. Bounded: ``--deadline`` seconds for
the sessions, every browser wait has a timeout.

Run: ``python benchmarks/bench_hostile_load.py [--sessions 10] [--segments 2000] [--wait 90]`` (needs
/usr/bin/chromium and the dev set ``wmt21/zh-en``, ``benchmarks/devdata.py``).
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import re
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_dashboard import ARTIFACTS, CHROMIUM, CHROMIUM_ARGS, healthy, ready, start_server, stop_server  # noqa: E402
from bench_sessions import Sampler, idle, step, uploader  # noqa: E402
import devdata  # noqa: E402

DATA = devdata.root() / "wmt21" / "zh-en"
SYSTEMS = "ABCD"
MB = 1024 * 1024
BOMB_ROWS = 24_900_000


def table_bomb(path: Path) -> Path:
    """The issue's bomb: ``src ref A B`` then 24.9 million rows ``a b c d`` (tab-separated), gzip members of 100,000
    rows each (~290 KB on disk, ~200 MB inflated)."""
    block = gzip.compress(b"a\tb\tc\td\n" * 100_000, compresslevel=9)
    path.write_bytes(gzip.compress(b"src\tref\tA\tB\n") + block * (BOMB_ROWS // 100_000))
    return path


def session_files(folder: Path, index: int, segments: int) -> tuple[Path, list[Path]]:
    """A reference and four systems of ``segments`` lines cycled from dev zh-en, marked with the session."""
    folder.mkdir(parents=True, exist_ok=True)
    sources = sorted(DATA.glob("newstest2021.zh-en.*.txt"))[: len(SYSTEMS)]

    def cycled(path: Path, mark: str) -> str:
        lines = path.read_text(encoding="utf-8").split("\n")[:-1]
        return "".join(f"{mark}{lines[i % len(lines)]}\n" for i in range(segments))

    ref = folder / "ref.A.txt"
    ref.write_text(cycled(DATA / "ref.A.txt", ""), encoding="utf-8")
    hyps = []
    for letter, source in zip(SYSTEMS, sources):
        path = folder / f"s{index}-{letter}.txt"
        path.write_text(cycled(source, f"s{index} "), encoding="utf-8")
        hyps.append(path)
    return ref, hyps


SHOWN_SYSTEMS = """() => {
  const app = document.querySelector("[data-testid='stApp']");
  if (!app || app.getAttribute('data-test-script-state') !== 'notRunning') return null;
  const ticks = [...document.querySelectorAll("[data-testid='stPlotlyChart'] .xtick text")].map(t => t.textContent);
  return {ticks: [...new Set(ticks)], text: document.body.innerText};
}"""


def upload_mode(page) -> None:
    idle(page)
    for _ in range(5):
        page.get_by_test_id("stRadio").get_by_text("Upload files").click()
        idle(page)
        try:
            uploader(page, "References (optional").wait_for(state="attached", timeout=10_000)
            return
        except Exception:  # noqa: BLE001 - playwright's TimeoutError: the click landed during a run; again
            continue
    raise RuntimeError("the Upload files mode did not open")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", type=int, default=10)
    parser.add_argument("--segments", type=int, default=2000)
    parser.add_argument("--wait", type=float, default=90.0, help="seconds after the sessions closed")
    parser.add_argument("--deadline", type=float, default=1200.0, help="seconds for every session to finish")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    work = ARTIFACTS / "bench_hostile_load"
    work.mkdir(parents=True, exist_ok=True)
    bomb = table_bomb(work / "bomb.tsv.gz")
    files = [session_files(work / f"s{i}", i, args.segments) for i in range(args.sessions)]
    os.environ.update(MTDIAG_REPORT_TTL_S="45", MTDIAG_SWEEP_PERIOD_S="10")  # the server inherits them
    proc, base = start_server()
    assert base.startswith("http://127.0.0.1:"), base  # loopback only
    result: dict = {"sessions": args.sessions, "segments": args.segments, "systems": len(SYSTEMS),
                    "bomb_bytes": bomb.stat().st_size}
    failures: list[str] = []
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
            warm = browser.new_page()
            warm.goto(base, wait_until="domcontentloaded")
            ready(warm)
            warm.context.close()
            sampler = Sampler(proc.pid)
            start_rss = sampler.rss()
            step(f"start RSS {start_rss / MB:.0f} MB; opening {args.sessions} + 1 sessions")
            pages = []
            for _ in range(args.sessions + 1):
                context = browser.new_context(viewport={"width": 1280, "height": 900})
                context.route("**/*", lambda route: route.continue_() if route.request.url.startswith(base)
                              else route.abort())
                page = context.new_page()
                page.set_default_timeout(300_000)
                page.goto(base, wait_until="domcontentloaded")
                pages.append(page)
            for page in pages:
                upload_mode(page)
            sessions, attacker = pages[:-1], pages[-1]
            step("uploading: every session's reference, then its systems, then the bomb")
            for page, (ref, _) in zip(sessions, files):
                uploader(page, "References (optional").set_input_files(str(ref), timeout=60_000)
            for page in sessions:
                idle(page)
            started = {}
            for i, (page, (_, hyps)) in enumerate(zip(sessions, files)):
                uploader(page, "System outputs (one or more)").set_input_files([str(p) for p in hyps], timeout=60_000)
                started[i] = time.perf_counter()
            bomb_start = time.perf_counter()
            uploader(attacker, "Test set file").set_input_files(str(bomb), timeout=60_000)
            done: dict[int, float] = {}
            bomb_s = None
            deadline = time.monotonic() + args.deadline
            while (len(done) < len(sessions) or bomb_s is None) and time.monotonic() < deadline:
                if bomb_s is None and attacker.get_by_text("too many lines", exact=False).count():
                    bomb_s = time.perf_counter() - bomb_start
                    step(f"bomb refused after {bomb_s:.1f} s")
                for i, page in enumerate(sessions):
                    if i in done:
                        continue
                    shown = page.evaluate(SHOWN_SYSTEMS)
                    own = {f"s{i}-{letter}" for letter in SYSTEMS}
                    # the bars name systems; the ranked-significance chart adds its cluster: "s3-A (1)"
                    ticks = {re.sub(r" \(\d+\)$", "", tick) for tick in shown["ticks"]} if shown else set()
                    if own <= ticks:
                        done[i] = time.perf_counter() - started[i]
                        if ticks != own:
                            failures.append(f"session {i} shows systems {sorted(ticks)}")
                        others = [f"s{j}-" for j in range(args.sessions) if j != i and f"s{j}-" in shown["text"]]
                        if others:
                            failures.append(f"session {i} shows another session's names: {others}")
                        step(f"session {i}: its own {len(own)} systems after {done[i]:.1f} s")
                time.sleep(0.5)
            missing = [i for i in range(len(sessions)) if i not in done]
            if missing:
                failures.append(f"sessions {missing} did not finish within {args.deadline:.0f} s")
            if bomb_s is None:
                failures.append("the bomb was not refused")
            bomb_text = attacker.get_by_test_id("stAlert").all_inner_texts()
            peak = sampler.peak
            step(f"closing; peak {peak / MB:.0f} MB")
            for page in pages:
                page.context.close()
            time.sleep(args.wait)
            visitor = browser.new_page()
            visitor.goto(base, wait_until="domcontentloaded")
            ready(visitor)
            visitor.context.close()
            time.sleep(15)
            after = sampler.rss()
            sampler.stop()
            browser.close()
        alive = proc.poll() is None and healthy(f"{base}/_stcore/health")
        if not alive:
            failures.append("the server is down")
    finally:
        stop_server(proc)
    times = [round(done[i], 1) for i in sorted(done)]
    result.update(session_s=times, session_max_s=max(times) if times else None,
                  session_median_s=round(statistics.median(times), 1) if times else None,
                  bomb_refused_s=round(bomb_s, 1) if bomb_s is not None else None,
                  bomb_message=next((t for t in bomb_text if "too many lines" in t), None),
                  start_mb=round(start_rss / MB), peak_mb=round(peak / MB), after_close_mb=round(after / MB),
                  server_alive=alive, failures=failures)
    print(f"{args.sessions} sessions × {len(SYSTEMS)} systems × {args.segments:,} segments + the table bomb "
          f"({result['bomb_bytes']:,} bytes):")
    print(f"  per-session time (uploads set -> own Overview drawn): {times} s (median {result['session_median_s']}, "
          f"max {result['session_max_s']})")
    print(f"  bomb refused after {result['bomb_refused_s']} s: {result['bomb_message']}")
    print(f"  server RSS: start {result['start_mb']} MB, peak {result['peak_mb']} MB, after close "
          f"{result['after_close_mb']} MB; server alive: {alive}")
    print("  failures:", failures or "none")
    (ARTIFACTS / "bench_hostile_load.json").write_text(json.dumps(result, indent=2))
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())

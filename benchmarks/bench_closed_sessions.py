"""Memory held by closed sessions: sessions that upload a test-set file the dashboard refuses (over the session's
memory budget), then close; the server's RSS is read after they have been gone longer than Streamlit keeps a closed
session for a reconnect (``server.disconnectedSessionTTL``), with **no other visitor** in between.

Streamlit keeps a closed session (its session state and its uploaded files) in a cache for a reconnect; an expired
entry is dropped only when another session is stored (lazily), and dropped without its shutdown — so the bytes of
its uploads stay in Streamlit's uploaded-file manager (streamlit/streamlit#12506). The dashboard's sweeper shuts such
sessions down (:func:`mtdiag.ui.sessions.reap_closed_sessions`).

1. A fresh server on the loopback interface (``bench_dashboard.start_server``) with the sweeper every 5 s and closed
   sessions kept 10 s (``STREAMLIT_SERVER_DISCONNECTED_SESSION_TTL``); one visitor opens the sample set and the
   upload form — which loads the compiled TER kernel, once per server — and leaves (the start: RSS read ``--wait``
   seconds after).
2. ``--sessions`` (3) Chromium contexts each switch to *Upload files* and upload a ``--mb`` (25) MB TSV test set of
   18 systems that the default 2,048 MB budget refuses (by the set its bytes show; over 30.6 MB, by the file's
   bytes), wait for the refusal, and close.
3. After ``--wait`` (40) seconds the RSS is read again: it must be within ``--slack`` (150) MB of the start.

Run: ``python benchmarks/bench_closed_sessions.py [--sessions 3] [--mb 25] [--wait 40]`` (needs /usr/bin/chromium).
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_dashboard import CHROMIUM, CHROMIUM_ARGS, healthy, start_server, stop_server  # noqa: E402
from bench_hostile_load import upload_mode  # noqa: E402
from bench_sessions import Sampler, idle, step, uploader  # noqa: E402

MB = 2**20


def refused_table(path: Path, megabytes: float) -> Path:
    """A TSV test set (source, reference, 18 systems) of about ``megabytes`` MB: over the default budget."""
    rng = random.Random(0)
    words = "the cat dog house tree river bank blue green small large city road".split()
    columns = ["source", "ref"] + [f"sys{i}" for i in range(18)]
    block = "".join("\t".join(" ".join(rng.choice(words) for _ in range(24))[:120] for _ in columns) + "\n"
                    for _ in range(1_000)).encode()
    with path.open("wb") as out:
        out.write(("\t".join(columns) + "\n").encode())
        for _ in range(max(int(megabytes * MB / len(block)), 1)):
            out.write(block)
    return path


def refused_upload(browser, base: str, table: Path) -> float:
    """One session: Upload files, the table as a test-set file, its refusal; seconds until refused. Closed after."""
    context = browser.new_context()
    context.route("**/*", lambda route: route.continue_() if route.request.url.startswith(base) else route.abort())
    page = context.new_page()
    try:
        page.goto(base, timeout=300_000)
        upload_mode(page)
        start = time.perf_counter()
        uploader(page, "Test set file").set_input_files(str(table))
        page.get_by_text("too large").first.wait_for(timeout=300_000)  # by the file's bytes or the set's shape
        return time.perf_counter() - start
    finally:
        context.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", type=int, default=3)
    parser.add_argument("--mb", type=float, default=25.0)
    parser.add_argument("--wait", type=float, default=40.0, help="seconds after the sessions closed")
    parser.add_argument("--slack", type=float, default=150.0, help="MB the server may hold above its start")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    table = refused_table(Path(tempfile.mkdtemp()) / "refused.tsv", args.mb)
    env = {"MTDIAG_SWEEP_PERIOD_S": "5", "MTDIAG_REPORT_TTL_S": "20", "STREAMLIT_SERVER_DISCONNECTED_SESSION_TTL": "10",
           "MALLOC_ARENA_MAX": "2"}  # as mtdiag serve runs it
    proc, base = start_server(env=env)
    try:
        sampler = Sampler(proc.pid)
        with sync_playwright() as play:
            browser = play.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            context = browser.new_context()
            page = context.new_page()
            page.goto(base, timeout=300_000)
            upload_mode(page)  # the upload form loads the compiled TER kernel (~150 MB, once per server)
            page.wait_for_timeout(10_000)
            context.close()
            time.sleep(args.wait)
            start = sampler.rss()
            step(f"start: {start / MB:,.0f} MB")
            for k in range(args.sessions):
                seconds = refused_upload(browser, base, table)
                step(f"session {k + 1}: {table.stat().st_size / MB:,.1f} MB refused in {seconds:.1f} s; "
                     f"RSS {sampler.rss() / MB:,.0f} MB")
            closed = sampler.rss()
            time.sleep(args.wait)
            after = sampler.rss()
            browser.close()
        sampler.stop()
        up = healthy(f"{base}/_stcore/health")
    finally:
        stop_server(proc)
    print(f"RSS: start {start / MB:,.0f} MB, peak {sampler.peak / MB:,.0f} MB, when the sessions closed "
          f"{closed / MB:,.0f} MB, {args.wait:.0f} s later (no other visitor) {after / MB:,.0f} MB "
          f"({(after - start) / MB:+,.0f} MB); server up: {up}")
    return 0 if up and after - start <= args.slack * MB else 1


if __name__ == "__main__":
    sys.exit(main())

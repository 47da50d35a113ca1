"""Benchmark: a WMT release in mt-metrics-eval's layout, zipped and uploaded through the dashboard's uploader in a
real browser (Debian chromium + Playwright, 1,600 × 1,000), as a user opens it.

On a fresh server with an empty report cache: "Upload files", the ``.zip`` into "Test set file", then the language
pair (and human score type) in the sidebar; timed from choosing the pair until the Overview is drawn (reading the
pair's files, scoring, the Overview's tables and charts), then from the Metrics-vs-humans link until that page is
drawn. The server's peak resident memory (``VmHWM``) and CPU seconds are read from ``/proc`` and psutil after each
step. ``--shots DIR`` saves the Overview, the Metrics-vs-humans page and its disagreement table.

The machine may be shared: the load average is printed; CPU seconds move less with load than wall seconds.

Run: ``python benchmarks/bench_mtme_dashboard.py --release DIR --lp zh-en [--human mqm] [--shots DIR]``.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import zipfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_dashboard import (CHROMIUM, CHROMIUM_ARGS, after, cpu_seconds, nav, new_page, ready,  # noqa: E402
                             shot, start_server, stop_server, uploader)

RELEASE = os.environ.get("MTDIAG_MTME_WMT23", "/work/devdata/mt-metrics-eval/wmt23")
TIMEOUT = 600_000  # ms: a loaded shared machine may take minutes where an idle one takes seconds


def zipped(release: Path, into: Path) -> Path:
    """The release's folder as ``NAME.zip`` (members ``NAME/...``), deflated."""
    path = into / f"{release.name}.zip"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for file in sorted(p for p in release.rglob("*") if p.is_file()):
            archive.write(file, f"{release.name}/{file.relative_to(release).as_posix()}")
    return path


def selectbox(page, label: str):
    """The select box labelled exactly ``label`` (another label may contain the words: "… → human scores")."""
    return page.get_by_test_id("stSelectbox").filter(has=page.get_by_text(label, exact=True))


def choose(page, label: str, option: str):
    def act():  # typed, not filled: a filled value does not always reach the select box's own filter
        box = selectbox(page, label)
        box.scroll_into_view_if_needed()
        box.click()
        page.keyboard.type(option, delay=30)
        page.keyboard.press("Enter")
    return act


def peak_mb(pid: int) -> float:
    """The server's peak resident memory so far (``VmHWM``), in MB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--release", default=RELEASE, help="a year's folder (default: %(default)s)")
    parser.add_argument("--lp", default="zh-en")
    parser.add_argument("--human", help="the human score type to choose (default: the sidebar's)")
    parser.add_argument("--metric", help="the metric whose disagreements the last screenshot shows")
    parser.add_argument("--shots", type=Path)
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory(prefix="mtdiag-mtme-") as work, sync_playwright() as pw:
        archive = zipped(Path(args.release), Path(work))
        proc, base = start_server(env={"MTDIAG_CACHE_DIR": str(Path(work) / "cache")})
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            page = new_page(browser)
            page.goto(base, wait_until="domcontentloaded")
            ready(page)
            after(page, lambda: page.get_by_text("Upload files", exact=True).click())
            cpu = cpu_seconds(proc)
            files = uploader(page, "Test set file")
            upload = after(page, lambda: files.set_input_files(str(archive)), title="Overview", timeout=TIMEOUT)
            print(f"{archive.name}: {archive.stat().st_size / 2**20:.1f} MB; upload -> the first pair's Overview drawn "
                  f"{upload:.1f} s (server CPU {cpu_seconds(proc) - cpu:.1f} s); server peak "
                  f"{peak_mb(proc.pid):.0f} MB")
            cpu = cpu_seconds(proc)
            opened = 0.0
            first = sorted(p.name[:-4] for p in (Path(args.release) / "sources").glob("*.txt"))[0]
            if args.lp != first:  # the first pair opens by itself
                opened += after(page, choose(page, "Language pair", args.lp), title="Overview", timeout=TIMEOUT)
            if args.human:
                opened += after(page, choose(page, "Human scores", args.human), title="Overview", timeout=TIMEOUT)
            print(f"{args.lp}: choose the pair -> Overview drawn {opened:.1f} s (server CPU "
                  f"{cpu_seconds(proc) - cpu:.1f} s; 0 when the upload opened it); server peak "
                  f"{peak_mb(proc.pid):.0f} MB; load average {os.getloadavg()[0]:.1f}")
            shot(page, args.shots, f"{args.lp}-overview")
            cpu = cpu_seconds(proc)
            drawn = after(page, nav(page, "Metrics vs humans"), title="Metrics vs humans", timeout=TIMEOUT)
            print(f"Metrics vs humans drawn {drawn:.1f} s (server CPU {cpu_seconds(proc) - cpu:.1f} s); server peak "
                  f"{peak_mb(proc.pid):.0f} MB")
            shot(page, args.shots, f"{args.lp}-metrics-vs-humans")
            if args.metric:
                after(page, choose(page, "Metric", args.metric), timeout=TIMEOUT)
            page.get_by_role("heading", name="Where the metric disagrees with the humans").scroll_into_view_if_needed()
            page.mouse.wheel(0, 300)
            page.wait_for_timeout(1000)
            shot(page, args.shots, f"{args.lp}-disagreements")
            detail = page.get_by_text("the largest disagreement")
            if detail.count():  # human segment scores: a disagreement to draw
                detail.scroll_into_view_if_needed()
                page.wait_for_timeout(1000)
                shot(page, args.shots, f"{args.lp}-disagreement-detail")
        finally:
            browser.close()
            stop_server(proc)


if __name__ == "__main__":
    main()

"""Benchmark: CLD2 on every distinct output of a dev set, alone and beside a thread that runs Python.

pycld2 gives the GIL back during each detection and takes it again when the text is read; beside a thread running
Python code, each text then waits for the GIL up to Python's switch interval (5 ms by default).
:func:`mtdiag.core.gil.quick_gil_handoff` shortens the interval while texts are detected. Rows: the
texts read alone; beside a busy thread with the default interval (on the first ``--busy-texts`` texts only: at 5 ms a
text the whole set takes about a minute); beside a busy thread inside ``quick_gil_handoff``. Each row gives seconds
and texts per second, and for the busy rows how far the busy thread got (loops per second) — the hand-off must not
stop it.

Run: ``python benchmarks/bench_language_detection.py [--set wmt21/en-de] [--busy-texts 1000] [--data DIR]``.
"""

from __future__ import annotations

import argparse
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import devdata  # noqa: E402
from mtdiag.core import gil  # noqa: E402
from mtdiag.triage.checks import languages  # noqa: E402


def distinct_outputs(folder: Path) -> list[str]:
    """Every distinct line of the set's system outputs (not the source or the references)."""
    texts: dict[str, None] = {}
    for path in sorted(folder.glob("*.txt")):
        if path.name != "src.txt" and not path.name.startswith("ref."):
            texts.update(dict.fromkeys(path.read_text(encoding="utf-8").splitlines()))
    return list(texts)


def timed(texts: list[str], busy: bool, handoff: bool) -> tuple[float, float]:
    """(seconds to detect ``texts`` one by one, loops a second of the busy thread — 0 without one)."""
    stop, loops = threading.Event(), [0]

    def spin() -> None:
        while not stop.is_set():
            loops[0] += 1

    thread = threading.Thread(target=spin, daemon=True) if busy else None
    if thread:
        thread.start()
        time.sleep(0.05)
    start, before = time.perf_counter(), loops[0]
    if handoff:
        with gil.quick_gil_handoff():
            for text in texts:
                languages.detect(text)
    else:
        for text in texts:
            languages.detect(text)
    seconds = time.perf_counter() - start
    stop.set()
    if thread:
        thread.join()
    return seconds, (loops[0] - before) / seconds if busy else 0.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", default="wmt21/en-de", help="a dev set folder (default: %(default)s)")
    parser.add_argument("--busy-texts", type=int, default=1000, help="texts read beside a busy thread with the "
                        "default interval (default: %(default)s)")
    parser.add_argument("--data", help="the development data folder (default: $MTDIAG_DEV_DATA, else tests/data/dev)")
    args = parser.parse_args()
    texts = distinct_outputs(devdata.folder(args.set, args.data))
    print(f"{len(texts):,} distinct outputs of {args.set}; switch interval {sys.getswitchinterval() * 1e3:g} ms, "
          f"during detection {gil.HANDOFF_S * 1e6:g} µs\n")
    print("| how | texts | seconds | texts/s | busy thread, loops/s |\n|---|---|---|---|---|")
    for label, sample, busy, handoff in (("alone", texts, False, False),
                                         ("beside a busy thread, default interval", texts[:args.busy_texts], True,
                                          False),
                                         ("beside a busy thread, quick_gil_handoff", texts, True, True)):
        seconds, loops = timed(sample, busy, handoff)
        print(f"| {label} | {len(sample):,} | {seconds:.2f} | {len(sample) / seconds:,.0f} | "
              f"{f'{loops:,.0f}' if busy else '—'} |")


if __name__ == "__main__":
    main()

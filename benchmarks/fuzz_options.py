"""Options fuzzed like inputs: every option of every command (and of every ``mtdiag view NAME``: the views'
``ViewOption`` declarations, which the dashboard's widgets are drawn from; and the metric registry's ``OptionSpec``
flags, which the sidebar's metric options are) given extreme values — 0, negative, huge, NaN, infinities, a
400-digit number, empty, very long strings, control characters — on a small test set.

The options are read from the parser the command line builds from those declarations
(:func:`mtdiag.cli.build_parser`), so a new option is fuzzed without a line here. Options that name input files
(``--ref``, ``--testset``, …: fuzzed as inputs by ``benchmarks/fuzz_inputs.py``) and ``serve`` (it starts a
server) are left out; ``--dask`` is given ``local:N`` values only (any other value is an address to connect to).
The options every scoring command shares (inputs, tokenisation, metric options, ``--where``, ``--dask``) are fuzzed
on ``mtdiag score`` once, each command's own options on that command.

Each value runs ``mtdiag.cli.main`` in this process (stdout and stderr captured; files it writes go to a temporary
folder), timed in CPU seconds. An outcome is: **ran** (exit 0), **refused** (exit 1 with ``mtdiag: error: …``, or
argparse's usage error, exit 2) — and whether the one-line refusal names the option —, or **other** (an exception
that escaped ``main``: a traceback, the failure this benchmark looks for). Prints options × values, the counts, each
other exception and each refusal that does not name its option, and the slowest value's CPU time; exit status 1 when
any value raised anything else or took more than ``--slow`` (2) seconds of CPU beyond the command's run without it.

Run: ``nice python benchmarks/fuzz_options.py [--commands score,view:segments] [--memory-gb 4]``.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import math
import os
import shutil
import signal
import sys
import tempfile
import time
import traceback
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

REPO = Path(__file__).resolve().parents[1]
SAMPLE = REPO / "sample_data" / "wmt21.en-de"
SEGMENTS = 12
SYSTEMS = ("Online-W", "UEdin", "VolcTrans-GLAT")

VALUES = ["0", "-1", "1", "2147483648", "1000000000000000000", "-1000000000000000000", "9" * 400, "1e308", "nan",
          "inf", "-inf", "", "x" * 100_000, "\x00", "\u202e", "a\nb", "\x1b[2J", ",", "🙂" * 1000]
"""The extreme values every option gets (as text, as a command line gives them)."""
DASK_VALUES = ["local:0", "local:-1", "local:1000000", "local:nan", "local:" + "9" * 400, "local:"]
FILE_OPTIONS = {"--ref", "--hyp", "--testset", "--src", "--terms", "--annotations", "--scores", "--metric-spans",
                "--comet-checkpoint", "--human", "--ht", "--mt", "--data", "--workspace"}
SHARED = {"--metrics", "--tokenize", "--tgt-lang", "--error-weights", "--dask", "--where", "--max-file-mb",
          "--max-rows", "--max-cells", "--max-segment-chars", "--max-columns"}
"""Options of every scoring command (:func:`mtdiag.cli.arguments.add_input_options`, ``--where``): fuzzed on
``score`` only; the metric options (``--METRIC-OPTION``) are too."""
TIMEOUT_S = 60
"""CPU seconds after which a run is stopped and counted as a timeout."""


def tiny_set(folder: Path) -> Path:
    """The sample set's first :data:`SEGMENTS` segments with three systems, two references and its human scores."""
    out = folder / "tiny.en-de"
    out.mkdir()
    for name in ("src.txt", "ref.A.txt", "ref.C.txt", *(f"newstest2021.en-de.{s}.txt" for s in SYSTEMS)):
        lines = (SAMPLE / name).read_text(encoding="utf-8").split("\n")[:SEGMENTS]
        (out / name).write_text("\n".join(lines) + "\n", encoding="utf-8")
    rows = (SAMPLE / "mqm.seg.tsv").read_text(encoding="utf-8").split("\n")
    kept = [rows[0]] + [r for r in rows[1:] if r and r.split("\t")[0] in SYSTEMS and int(r.split("\t")[1]) <= SEGMENTS]
    (out / "mqm.seg.tsv").write_text("\n".join(kept) + "\n", encoding="utf-8")
    shutil.copy(SAMPLE / "glossary.tico19.google.en-de.tsv", out)
    return out


def tiny_terms(folder: Path) -> Path:
    """The TICO-19 sample's first :data:`SEGMENTS` segments with their terms: the set the terminology view needs."""
    sample, out = REPO / "sample_data" / "tico19.en-fr", folder / "tiny-terms.en-fr"
    out.mkdir()
    for path in sample.glob("*.txt"):
        (out / path.name).write_text("\n".join(path.read_text(encoding="utf-8").split("\n")[:SEGMENTS]) + "\n",
                                     encoding="utf-8")
    rows = (sample / "terms.tsv").read_text(encoding="utf-8").split("\n")
    kept = [rows[0]] + [r for r in rows[1:] if r and int(r.split("\t")[0]) <= SEGMENTS]
    (out / "terms.tsv").write_text("\n".join(kept) + "\n", encoding="utf-8")
    return out


def commands(tiny: Path, out: Path) -> dict[str, list[str]]:
    """Each command (``view:NAME`` for ``mtdiag view NAME``) and the arguments it runs with before an option."""
    from mtdiag import views

    files = tiny / "newstest2021.en-de."
    testset = ["--testset", str(tiny)]
    base = {"score": ["score", *testset], "triage": ["triage", *testset], "spans": ["spans", *testset],
            "pearmut": ["pearmut", "export", *testset, "-o", str(out / "campaign.json")],
            "report": ["report", *testset, "-o", str(out / "report.html"), "--top", "3"],
            "ngrams": ["ngrams", "--ht", str(tiny / "ref.A.txt"), "--mt", f"UEdin={files}UEdin.txt"],
            "likeness": ["likeness", "--ref", str(tiny / "ref.A.txt"), "--ref", str(tiny / "ref.C.txt"),
                         "--hyp", f"UEdin={files}UEdin.txt"],
            "buckets": ["buckets", *testset, "--by", "src_length"],
            "slices": ["slices", *testset, "--compare", "UEdin", "Online-W"]}
    base |= {f"view:{name}": ["view", name, *testset] for name in views.REGISTRY}
    base["view:terminology"] = ["view", "terminology", "--testset", str(tiny_terms(out))]
    return base


def options(argv: list[str], command: str) -> list[tuple[str, str | None]]:
    """(flag, argparse type name) of every option the command's parser takes a value for, but the input files and,
    beyond ``score``, the shared ones."""
    from mtdiag.cli import build_parser

    parser = build_parser(only=argv[0], argv=argv)
    sub = parser
    for word in argv[: 2 if argv[0] == "pearmut" else 1]:  # mtdiag view NAME: NAME is an argument
        sub = next(a for a in sub._actions if isinstance(a, argparse._SubParsersAction)).choices[word]
    found = []
    for action in sub._actions:
        flag = action.option_strings[-1] if action.option_strings else None
        if flag is None or action.nargs == 0 or flag in FILE_OPTIONS or flag in ("--help", "--output"):
            continue
        shared = flag in SHARED or (action.dest or "").startswith("metric_option:")
        if shared and command != "score":
            continue
        found.append((flag, getattr(action.type, "__name__", None)))
    return found


class Timeout(Exception):
    pass


def _alarm(*_):
    raise Timeout


def run(argv: list[str]) -> tuple[str, str, float]:
    """(outcome, the last line of stderr or the exception, CPU seconds) of ``mtdiag ARGV`` in this process."""
    from mtdiag.cli import main

    err = io.StringIO()
    signal.signal(signal.SIGVTALRM, _alarm)  # CPU seconds: the machine may be shared
    signal.setitimer(signal.ITIMER_VIRTUAL, TIMEOUT_S)
    start = time.process_time()
    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
            code = main(argv)
    except SystemExit as exc:
        code = exc.code
    except Timeout:
        return "timeout", f"over {TIMEOUT_S} s", time.process_time() - start
    except BaseException as exc:  # noqa: BLE001 - what the benchmark looks for
        where = traceback.extract_tb(exc.__traceback__)[-1]
        return "other", f"{type(exc).__name__}: {str(exc)[:160]} at {Path(where.filename).name}:{where.lineno}", \
            time.process_time() - start
    finally:
        signal.setitimer(signal.ITIMER_VIRTUAL, 0)
    lines = [line for line in err.getvalue().splitlines() if line.strip()]
    message = lines[-1] if lines else ""
    if code == 0:
        return "ran", message, time.process_time() - start
    if code in (1, 2):
        return "refused", message, time.process_time() - start
    return "other", f"exit status {code!r}: {message}", time.process_time() - start


def names_the_option(flag: str, message: str) -> bool:
    """Whether a refusal names ``flag``: the flag itself, or its words (``--max-rows``: "lines per file" is the
    limit's own wording, checked by its noun)."""
    words = flag.lstrip("-")
    nouns = {"max-file-mb": "bytes per file", "max-rows": "lines per file", "max-cells": "cells per file",
             "max-segment-chars": "characters per", "max-columns": "columns per"}
    return (flag in message or words.replace("-", " ") in message.lower() or words.replace("-", "_") in message
            or nouns.get(words, "\0") in message)


WIDGET_NUMBERS = [0, -1, 2**53 - 1, -(2**53), 1e308, float("nan"), float("inf")]
WIDGET_TEXTS = ["", "x" * 100_000, "\x00", "\u202e", "a\nb", "🙂" * 1000]


def _opened(place: str):
    """A fresh AppTest session on ``place``: a view's page, the sidebar, or the sidebar in upload mode."""
    from tests.test_app import start, visit

    at = start()
    if place == "sidebar, upload mode":
        at.radio(key="data_mode").set_value("Upload files").run()
    elif not place.startswith("sidebar"):
        visit(at, place).run()
    return at


def _boxes(at, place: str) -> list:
    """(kind, key) of the number and text boxes of a place: the page's own, or the sidebar's."""
    area = at.sidebar if place.startswith("sidebar") else at.main
    return [("number", w.key) for w in area.number_input] + [("text", w.key) for w in area.text_input]


def _streamlits_own(kind: str, value, failure: str) -> bool:
    """Whether a failure is Streamlit's, before the page runs: an integer box given NaN or infinity — which its
    browser widget cannot send (an integer box's state is an integer) — fails in ``NumberInputSerde.deserialize``
    (``int(val)``), in that session only."""
    return kind == "number" and isinstance(value, float) and not math.isfinite(value) and "convert float" in failure


def dashboard(slow: float) -> dict:
    """Every number and text box of every page and of the sidebar (the views' options, the metric options, the
    slice box, the upload form's language pair), each given the extreme values under Streamlit's AppTest: counted as
    **ran** (no exception on the page: a value past a widget's bounds is set back to its default by Streamlit, a
    value a check refuses is said in one line), or **other** (an exception on the page)."""
    from mtdiag import views

    counts, problems, slowest, seen = {"widgets": 0, "ran": 0, "streamlit": 0, "other": 0}, [], (0.0, ""), set()
    for place in ["sidebar", "sidebar, upload mode", *views.REGISTRY]:
        boxes = [box for box in _boxes(_opened(place), place) if box[1] is not None and box not in seen]
        seen.update(boxes)
        for kind, key in boxes:
            counts["widgets"] += 1
            for value in WIDGET_NUMBERS if kind == "number" else WIDGET_TEXTS:
                at = _opened(place)
                started = time.process_time()
                try:
                    (at.number_input if kind == "number" else at.text_input)(key=key).set_value(value).run()
                    failed = [e.value for e in at.exception]
                except (ValueError, TypeError):  # AppTest's own refusal of a value: no page failure
                    failed = []
                except Exception as exc:  # noqa: BLE001 - what the benchmark looks for
                    failed = [repr(exc)]
                cpu = time.process_time() - started
                outcome = "ran" if not failed else "streamlit" if _streamlits_own(kind, value, failed[0]) else "other"
                counts[outcome] += 1
                shown = repr(value) if not isinstance(value, str) or len(value) <= 24 else repr(value[:24] + "…")
                if outcome == "other":
                    problems.append(f"other: {place} {key} {shown}: {failed[0][:200]}")
                if cpu > slowest[0]:
                    slowest = (cpu, f"{place} {key} {shown}")
        print(f"dashboard {place}: {len(boxes)} boxes; so far {counts}", flush=True)
    print(f"\ndashboard: {counts['widgets']} boxes x {len(WIDGET_NUMBERS)} or {len(WIDGET_TEXTS)} values: "
          f"{counts['ran']:,} ran, {counts['streamlit']:,} raised in Streamlit's own deserializer (NaN or infinity "
          f"into an integer box), {counts['other']:,} other exceptions; slowest value: {slowest[1]}: "
          f"{slowest[0]:.2f} s of CPU (a page run with it)")
    for problem in problems:
        print(f"  {problem}")
    return {"other": counts["other"], "slow": slowest[0] > slow}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--commands", help="comma-separated commands (view:NAME for a view; default: all)")
    parser.add_argument("--dashboard", action="store_true", help="the dashboard's number and text boxes (AppTest) "
                        "instead of the commands")
    parser.add_argument("--slow", type=float, default=2.0, help="CPU seconds a value may add to its command's run")
    parser.add_argument("--memory-gb", type=float, default=4.0, help="this process's address space")
    args = parser.parse_args()
    import resource

    cap = int(args.memory_gb * 2**30)
    resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
    if args.dashboard:
        found = dashboard(args.slow)
        return 1 if found["other"] or found["slow"] else 0
    work = Path(tempfile.mkdtemp(prefix="fuzz-options-"))
    os.chdir(work)  # a value taken as a file name lands here
    tiny = tiny_set(work)
    table = commands(tiny, work)
    chosen = args.commands.split(",") if args.commands else list(table)
    counts = {"ran": 0, "refused": 0, "unnamed": 0, "other": 0, "timeout": 0}
    slowest, problems, total_options, begun = (0.0, "", "", 0.0), [], 0, time.perf_counter()
    for command in chosen:
        argv = table[command]
        run(argv)  # once for what a first run imports
        outcome, message, bare = run(argv)  # the command without the option: its own time
        if outcome != "ran":
            print(f"{command}: the command itself does not run: {message}", flush=True)
            continue
        flags = options(argv, command)
        total_options += len(flags)
        for flag, kind in flags:
            for value in DASK_VALUES if flag == "--dask" else VALUES:
                outcome, message, cpu = run([*argv, f"{flag}={value}"])  # one argument: "-1" is no flag
                extra = cpu - bare
                shown = repr(value if len(value) <= 24 else value[:24] + "…")
                if outcome == "refused" and not names_the_option(flag, message):
                    counts["unnamed"] += 1
                    problems.append(f"refused without naming the option: {command} {flag} {shown}: {message[:200]}")
                counts[outcome] += 1
                if outcome in ("other", "timeout"):
                    problems.append(f"{outcome}: {command} {flag} {shown}: {message}")
                if extra > slowest[0]:
                    slowest = (extra, f"{command} {flag} {shown}", outcome, cpu)
        print(f"{command}: {len(flags)} options, run {bare:.2f} s of CPU; so far {counts}", flush=True)
    runs = sum(counts[k] for k in ("ran", "refused", "other", "timeout"))
    print(f"\n{total_options} options x {len(VALUES)} values ({len(DASK_VALUES)} for --dask): {runs:,} runs in "
          f"{time.perf_counter() - begun:,.0f} s")
    print(f"ran {counts['ran']:,}, refused {counts['refused']:,} (of which not naming the option: "
          f"{counts['unnamed']:,}), other exceptions {counts['other']:,}, over {TIMEOUT_S} s {counts['timeout']:,}")
    print(f"slowest value: {slowest[1]} ({slowest[2]}): {slowest[3]:.2f} s of CPU, {slowest[0]:.2f} s beyond its "
          "command's run without it")
    for problem in problems:
        print(f"  {problem}")
    shutil.rmtree(work, ignore_errors=True)
    return 1 if counts["other"] or counts["timeout"] or slowest[0] > args.slow else 0


if __name__ == "__main__":
    sys.exit(main())

"""The performance table of ``docs/scaling.md``: each command-line row as a paired ratio against sacrebleu's CLI in
the same run (:mod:`paired`: A B A B …, the ratio taken pair by pair, medians of ``--runs``), with both sides' peak
resident memory; the significance row timed inside one process.

Rows (``--rows``, default all; the development data: :mod:`devdata`):

- ``six-ende``: ``mtdiag score --metrics otem,utem,waft,neva,bleu,chrf`` on ``wmt21/en-de`` (1,002 segments,
  12 systems, references A, C, D) against ``sacrebleu REFS -i SYSTEMS -m bleu chrf`` — target <= 0.25x the time,
  peak <= 2x sacrebleu's;
- ``six-ted``: the same on ``ted/zh-en`` (529 segments, its 8 MT systems — the ``metricsystem*`` controls left out
  —, references A and B);
- ``triage-ende``, ``triage-ted``: ``mtdiag triage`` (the worst-first queue: default metrics and every check, the
  source given) on the same files, against the same sacrebleu command — target <= 0.4x;
- ``scale-100k``: 100,000 segments x 4 systems + source (``wmt21/en-de`` lines cycled, as ``bench_scale.py``),
  ``mtdiag score`` with the default metrics against ``sacrebleu -m bleu chrf`` — target <= 0.3x, peak <= 1.5 GiB;
- ``bleu-2k``: ``mtdiag score --metrics bleu``, one system of 2,000 segments (``wmt21/zh-en`` lines, the last 52
  repeated) against ``sacrebleu -m bleu`` — target <= 0.3 s (start-up included);
- ``bootstrap-100k``: on the ``scale-100k`` set, every system against the first on every default metric, 1,000
  paired bootstrap resamples (``mtdiag.analysis.significance.significance``), timed in one process after scoring — target
  <= 3 s; the line also prints a digest of every p-value and score, which must not change when the code does;
- ``server-memory``: ``benchmarks/bench_sessions.py`` (a dashboard server, 10 browser sessions each uploading a set
  of its own and opening four pages, then closing) — the server's resident memory at the start, at the peak and
  after the sessions closed; target: after - start <= 150 MB;
- ``report-wmt23``, ``slices-wmt23``, ``triage-wmt23``: ``mtdiag report``, ``mtdiag slices --compare A B`` and
  ``mtdiag triage --top 10`` on a WMT23-sized set — WMT23 zh-en of an mt-metrics-eval folder (``--mme DIR``, or
  ``$MTDIAG_MME``: ``DIR/wmt23/sources/zh-en.txt``, ``references/zh-en.refA.txt``, ten of
  ``system-outputs/zh-en``, the MQM scores ``human-scores/zh-en.mqm-col1.seg.score``; 1,976 segments x 10 systems),
  timed alone (no peer) — targets report and slices <= 5 s (quiet machine). Held-out data: timed, never tuned on;
- ``cli-memory``: the command line's own weight on the sample set — ``mtdiag --help`` (start) and ``mtdiag score
  --where 'seg_id > 1000'`` (load, then the expression refused) — peak resident memory; target < 150 MiB.

Usage: ``python benchmarks/bench_table.py [--rows six-ende,triage-ted] [--runs 5] [--data DIR] [--workdir DIR]``.
``scale-100k`` takes about 20 minutes at 5 runs (sacrebleu needs 2-3 minutes a run).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import devdata
from bench_scale import SYSTEMS as SCALE_SYSTEMS, build
from paired import ENV, paired

SIX = "otem,utem,waft,neva,bleu,chrf"
ROWS = ("six-ende", "six-ted", "triage-ende", "triage-ted", "scale-100k", "bleu-2k", "bootstrap-100k",
        "server-memory", "report-wmt23", "slices-wmt23", "triage-wmt23", "cli-memory")
TARGETS = {"six": (0.25, "2x"), "triage": (0.4, None), "scale": (0.3, "1.5 GiB"), "bleu": (None, None)}
WMT23_SYSTEMS = ("ANVITA", "GPT4-5shot", "HW-TSC", "IOL_Research", "Lan-BridgeMT", "NLLB_Greedy", "ONLINE-A",
                 "ONLINE-B", "ONLINE-W", "Yishu")
WMT23_TARGETS = {"report": 5.0, "slices": 5.0, "triage": None}
SAMPLE = Path(__file__).resolve().parents[1] / "sample_data" / "wmt21.en-de"
MTDIAG = [sys.executable, "-m", "mtdiag"]
SACREBLEU = [sys.executable, "-m", "sacrebleu"]


def dev_set(name: str, data: str | None) -> dict:
    """Files of a dev set: ``src``, ``refs`` [(name, path)], ``hyps`` [(name, path)]."""
    if name == "ende":
        folder = devdata.folder("wmt21/en-de", data)
        refs = [(r, folder / f"ref.{r}.txt") for r in "ACD"]
        hyps = sorted(folder.glob("newstest2021.en-de.*.txt"))
    else:
        folder = devdata.folder("ted/zh-en", data)
        refs = [(r, folder / f"ref.{r}.txt") for r in "AB"]
        hyps = [p for p in sorted(folder.glob("tedtalks2021.zh-en.*.txt")) if ".metricsystem" not in p.name]
    return {"src": folder / "src.txt", "refs": refs, "hyps": [(p.name.split(".")[-2], p) for p in hyps]}


def mtdiag_args(files: dict, source: bool) -> list[str]:
    args = [arg for _, path in files["refs"] for arg in ("--ref", str(path))]
    args += [arg for name, path in files["hyps"] for arg in ("--hyp", f"{name}={path}")]
    return args + (["--src", str(files["src"])] if source else [])


def sacrebleu_command(files: dict, metrics: list[str]) -> list[str]:
    return [*SACREBLEU, *(str(p) for _, p in files["refs"]), "-i", *(str(p) for _, p in files["hyps"]),
            "-m", *metrics, "-f", "text"]


def scale_files(workdir: Path, data: str | None) -> dict:
    built = build(workdir, 100_000, SCALE_SYSTEMS, devdata.folder("wmt21/en-de", data))
    return {"src": built["src"], "refs": [("A", built["ref"])], "hyps": [(s, built[s]) for s in SCALE_SYSTEMS]}


def bleu_files(workdir: Path, data: str | None) -> dict:
    folder = devdata.folder("wmt21/zh-en", data)
    out = {}
    for key, source in (("ref", folder / "ref.A.txt"), ("hyp", folder / "newstest2021.zh-en.Facebook-AI.txt")):
        lines = source.read_text(encoding="utf-8").split("\n")[:-1]
        target = workdir / f"2000.zh-en.{key}.txt"
        target.write_text("".join(line + "\n" for line in (lines + lines)[:2000]), encoding="utf-8")
        out[key] = target
    return {"src": None, "refs": [("A", out["ref"])], "hyps": [("Facebook-AI", out["hyp"])]}


def command_row(label: str, kind: str, ours: list[str], theirs: list[str], runs: int, warmup: int) -> str:
    result = paired(ours, theirs, runs, warmup)
    time_target, peak_target = TARGETS[kind]
    wall, peak = result.ratio("wall"), result.ratio("peak_mib")
    cells = [label, f"{result.median('a', 'wall'):.2f} s", f"{result.median('b', 'wall'):.2f} s",
             f"**{wall:.2f}x** (cpu {cpu_ratio(result):.2f}x)",
             f"<= {time_target}x" if time_target else "<= 0.3 s",
             f"{result.median('a', 'peak_mib'):,.0f} MiB", f"{result.median('b', 'peak_mib'):,.0f} MiB",
             f"{peak:.2f}x", f"<= {peak_target}" if peak_target else "—"]
    return "| " + " | ".join(cells) + " |"


def cpu_ratio(result) -> float:
    """Median over pairs of (user + system) CPU seconds of A over B's."""
    return statistics.median((x.user + x.sys) / (y.user + y.sys) for x, y in zip(result.a, result.b))


def bootstrap_child(workdir: Path, runs: int) -> None:
    """In this process (mtdiag imported here, so PYTHONPATH may point at another checkout): score the 100k set,
    then time the paired bootstrap of every system against the first, every metric; print JSON."""
    from mtdiag.scoring.evaluate import evaluate
    from mtdiag.analysis.significance import significance
    from mtdiag.io import load_files

    paths = {p.name.split(".")[1]: p for p in workdir.glob("100000.*.txt")}
    evalset = load_files(src=str(paths["src"]), refs=[("A", str(paths["ref"]))],
                         hyps=[(s, str(paths[s])) for s in SCALE_SYSTEMS], name="bench", lang_pair="en-de")
    report = evaluate(evalset)
    seconds, frame = [], None
    for _ in range(runs):
        start = time.perf_counter()
        frame = significance(report, SCALE_SYSTEMS[0], "bs", 1000)
        seconds.append(time.perf_counter() - start)
    digest = hashlib.sha256(frame[["score", "p", "mean", "ci_lo", "ci_hi"]].to_numpy().tobytes()).hexdigest()[:16]
    print(json.dumps({"seconds": seconds, "digest": digest, "metrics": len(report.metrics),
                      "significant": int(frame["significant"].sum())}))


def bootstrap_row(workdir: Path, runs: int) -> str:
    done = subprocess.run([sys.executable, __file__, "--bootstrap-child", str(workdir), "--runs", str(runs)],
                          check=True, capture_output=True, text=True, env=ENV)
    out = json.loads(done.stdout.strip().splitlines()[-1])
    median = statistics.median(out["seconds"])
    return (f"| bootstrap-100k: 4 systems x {out['metrics']} metrics, 1,000 resamples | **{median:.2f} s** "
            f"(min {min(out['seconds']):.2f}) | — | — | <= 3 s | — | — | — | — |\n\n"
            f"p-values and scores digest: {out['digest']} ({out['significant']} significant at p < 0.05)")


def memory_row() -> str:
    """``bench_sessions.py`` in its own process; its figures from ``artifacts/bench_sessions.json``."""
    here = Path(__file__).resolve().parent
    done = subprocess.run([sys.executable, str(here / "bench_sessions.py")], env=ENV, capture_output=True, text=True)
    if done.returncode not in (0, 1):  # 1: the target was missed; anything else: it did not finish
        raise RuntimeError(f"bench_sessions.py exited with {done.returncode}: {done.stderr[-500:]}")
    result = json.loads((here.parent / "artifacts" / "bench_sessions.json").read_text())
    return (f"| server memory: {result['sessions']} sessions upload, open 4 pages, close | start "
            f"{result['start_mb']:,.0f} MB, peak {result['peak_mb']:,.0f} MB, after {result['after_mb']:,.0f} MB "
            f"(after one more visitor {result['after_visitor_mb']:,.0f} MB) | — | **{result['growth_mb']:+,.0f} MB** | "
            f"<= +150 MB | — | — | — | — |")


def wmt23_folder(workdir: Path, mme: str | None) -> Path:
    """A test-set folder of WMT23 zh-en (:data:`WMT23_SYSTEMS`) built from an mt-metrics-eval folder: ``src.txt``,
    ``ref.A.txt``, one file per system and ``mqm.seg.tsv`` from the first MQM column (segments without a score left
    out)."""
    root = Path(mme or os.environ.get("MTDIAG_MME", "")) / "wmt23"
    if not (root / "sources" / "zh-en.txt").is_file():
        sys.exit(f"missing {root}/sources/zh-en.txt: give --mme DIR (an mt-metrics-eval data folder) or $MTDIAG_MME")
    folder = workdir / "wmt23.zh-en"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "src.txt").write_bytes((root / "sources" / "zh-en.txt").read_bytes())
    (folder / "ref.A.txt").write_bytes((root / "references" / "zh-en.refA.txt").read_bytes())
    for system in WMT23_SYSTEMS:
        (folder / f"wmt23.zh-en.{system}.txt").write_bytes((root / "system-outputs" / "zh-en" / f"{system}.txt")
                                                             .read_bytes())
    rows, seen = ["system\tseg_id\tmqm_score"], {}
    for line in (root / "human-scores" / "zh-en.mqm-col1.seg.score").read_text(encoding="utf-8").splitlines():
        system, score = line.split("\t")
        seen[system] = seen.get(system, 0) + 1
        if system in WMT23_SYSTEMS and score != "None":
            rows.append(f"{system}\t{seen[system]}\t{score}")
    (folder / "mqm.seg.tsv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    return folder


def alone_row(label: str, command: list[str], runs: int, target: float | None) -> str:
    """A command timed alone: medians of wall, CPU and peak over ``runs`` runs (after one warm-up)."""
    from paired import run

    run(command)
    done = [run(command) for _ in range(runs)]
    wall = statistics.median(r.wall for r in done)
    cpu = statistics.median(r.user + r.sys for r in done)
    peak = statistics.median(r.peak_mib for r in done)
    return (f"| {label} | **{wall:.2f} s** ({cpu:.2f} s CPU) | — | — | {f'<= {target:g} s' if target else '—'} | "
            f"{peak:,.0f} MiB | — | — | — |")


def wmt23_row(kind: str, workdir: Path, mme: str | None, runs: int) -> str:
    folder = wmt23_folder(workdir, mme)
    extra = {"report": ["-o", str(workdir / "report.html")], "slices": ["--compare", "ONLINE-B", "GPT4-5shot"],
             "triage": ["--top", "10"]}[kind]
    return alone_row(f"mtdiag {kind}, WMT23 zh-en, 1,976 segments x 10 systems", [*MTDIAG, kind, "--testset",
                     str(folder), *extra], runs, WMT23_TARGETS[kind])


def memory_rows(runs: int) -> str:
    """The command line's start (``--help``) and load (the sample set, an expression that keeps no segment) peaks."""
    from paired import run

    lines = []
    for label, args, status in (("mtdiag --help (start)", ["--help"], 0),
                                ("mtdiag score --where 'seg_id > 1000' on the sample set (load, refused)",
                                 ["score", "--testset", str(SAMPLE), "--where", "seg_id > 1000"], 1)):
        done = []
        for _ in range(runs):
            try:
                done.append(run([*MTDIAG, *args]))
            except RuntimeError:  # the refusal exits with 1: its peak is what is measured
                if status == 0:
                    raise
                done.append(_refused([*MTDIAG, *args]))
        lines.append(f"| {label} | {statistics.median(r.wall for r in done):.2f} s | — | — | — | "
                     f"**{statistics.median(r.peak_mib for r in done):,.0f} MiB** | — | — | < 150 MiB |")
    return "\n".join(lines)


def _refused(command: list[str]):
    """A run of ``command`` that exits with an error, accounted for like :func:`paired.run`."""
    from paired import ENV, Run

    start = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=ENV)
    _, status, usage = os.wait4(process.pid, 0)
    return Run(time.perf_counter() - start, usage.ru_utime, usage.ru_stime, usage.ru_maxrss / 1024,
               os.waitstatus_to_exitcode(status))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", default=",".join(ROWS), help="comma-separated: " + ", ".join(ROWS))
    parser.add_argument("--runs", type=int, default=5, help="counted runs of each command (default 5)")
    parser.add_argument("--warmup", type=int, default=1, help="runs of each command before counting (default 1)")
    parser.add_argument("--data", help=f"the development data (default: ${devdata.ENV_VAR}, else {devdata.DEFAULT})")
    parser.add_argument("--workdir", type=Path, help="where the synthetic sets are written (default: a new temporary "
                        "folder)")
    parser.add_argument("--mme", help="an mt-metrics-eval data folder (its wmt23/ zh-en) for the WMT23 rows "
                        "(default: $MTDIAG_MME)")
    parser.add_argument("--bootstrap-child", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.bootstrap_child:
        bootstrap_child(args.bootstrap_child, args.runs)
        return
    rows = args.rows.split(",")
    unknown = [r for r in rows if r not in ROWS]
    if unknown:
        parser.error(f"unknown row {unknown[0]}; choose from {', '.join(ROWS)}")
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="mtdiag-table-"))
    workdir.mkdir(parents=True, exist_ok=True)
    print("| work | mtdiag (median) | sacrebleu (median) | paired ratio, wall | target | mtdiag peak | sacrebleu peak "
          "| peak ratio | target |")
    print("|---|---|---|---|---|---|---|---|---|")
    for row in rows:
        kind, _, where = row.partition("-")
        if where == "wmt23":
            line = wmt23_row(kind, workdir, args.mme, args.runs)
        elif row == "cli-memory":
            line = memory_rows(args.runs)
        elif kind in ("six", "triage"):
            files = dev_set(where, args.data)
            label = (f"{'six metrics' if kind == 'six' else 'triage'}, {where}: {len(files['hyps'])} systems x "
                     f"{len(files['refs'])} refs")
            ours = ([*MTDIAG, "score", "--metrics", SIX, *mtdiag_args(files, False)] if kind == "six"
                    else [*MTDIAG, "triage", *mtdiag_args(files, True)])
            line = command_row(label, kind, ours, sacrebleu_command(files, ["bleu", "chrf"]), args.runs, args.warmup)
        elif kind == "scale":
            files = scale_files(workdir, args.data)
            line = command_row("100k segments x 4 systems + source, default metrics", kind,
                               [*MTDIAG, "score", *mtdiag_args(files, True)],
                               sacrebleu_command(files, ["bleu", "chrf"]), args.runs, args.warmup)
        elif kind == "bleu":
            files = bleu_files(workdir, args.data)
            line = command_row("score, 1 system, BLEU, 2,000 segments", kind,
                               [*MTDIAG, "score", "--metrics", "bleu", *mtdiag_args(files, False)],
                               sacrebleu_command(files, ["bleu"]), args.runs, args.warmup)
        elif kind == "bootstrap":
            scale_files(workdir, args.data)
            line = bootstrap_row(workdir, args.runs)
        else:
            line = memory_row()
        print(line, flush=True)


if __name__ == "__main__":
    main()

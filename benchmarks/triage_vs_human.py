"""How well the worst-first queue and its flags find what human raters marked (issues 12 and 19).

For each test set with human segment scores (default: the three dev sets ``wmt21/en-de``, ``wmt21/zh-en`` and
``ted/zh-en`` in ``../shared/data/dev``; any other test-set folder can be given), over the (system, segment)
pairs that have a human score, it prints

- the **lift at 10 %** (share of the human-worst 10 % found in the worst 10 %, over 0.10; random = 1, perfect =
  10; ties counted fractionally, ``mtdiag.triage.lift``) of the queue as the user sees it (``mtdiag.triage
  .worst_first``: one pair per source on the first screen) and in strict order, of every single segment metric,
  and of segment length alone (the mean reference length: a human penalty is a sum over errors, so length is the
  baseline any estimate of it must beat);
- queue / best single metric;
- the share of the first 10 and first 50 rows with a major error (MQM ≤ −5, or ESA ≤ 33 on a 0–100 scale) and
  how many distinct sources the first 10 rows show;
- for each flag of ``mtdiag.checks``: its firing rate over all pairs and over the rated pairs, its lift against
  the human-worst 10 %, and — where the set has one row per human error (``mqm.errors.tsv``, read with mtdiag's
  own MQM reader) — its lift against the error categories it claims (``Check.claims``): the share of flagged
  pairs with such an error over the share of all rated pairs with one.

Targets (issue 19): on each set the queue's lift ≥ 1.0 × the best single metric's, ≥ 1.2 × in geometric mean over
the sets; ≥ 7 distinct sources in the first 10 rows; every flag firing on ≥ 1 % of rated pairs has lift ≥ 1.0
against the human-worst 10 % and against its categories.

With ``--no-references`` every set is measured with its references withheld (the source and the outputs only:
``mtdiag triage --src ... --hyp ...``): the reference-free queue (consensus of the systems × output length, the
critical checks first; issue 20), its flags (the reference-free QA checks among them), and its lift against the
reference-based queue's on the same set (target: ≥ 1.2, and ≥ 0.8 × the reference-based lift in geometric mean).

Usage: ``python benchmarks/triage_vs_human.py [FOLDER ...] [--no-references] [--scores NAME=FILE ...]
[--exclude REGEX]`` (Markdown on stdout). Systems matching ``--exclude`` (default ``^metricsystem``: TED's degraded controls) are left out.
``--scores`` adds metric scores computed elsewhere (COMET, MetricX, …) to the set named NAME (its folder name,
e.g. ``zh-en``); they join the problem score and appear as single metrics.
"""

from __future__ import annotations

import argparse
import math
import re
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd

import devdata

REPO = Path(__file__).resolve().parents[1]
DEV = devdata.root()
DEFAULT_SETS = ("wmt21/en-de", "wmt21/zh-en", "ted/zh-en")
sys.path.insert(0, str(REPO))

from mtdiag import checks, triage  # noqa: E402
from mtdiag.api import evaluate  # noqa: E402
from mtdiag.io import load_folder, with_metric_scores  # noqa: E402
from mtdiag.metrics import metric_info  # noqa: E402

MAJOR_MQM = -5.0  # an MQM segment score at or below this carries a major error
MAJOR_ESA = 33.0  # an ESA score (0-100) at or below this


def load(folder: Path, scores: list[str], exclude: str):
    evalset = load_folder(folder)
    for path in scores:
        evalset = with_metric_scores(evalset, path)
    kept = [s for s in evalset.systems if not re.search(exclude, s)] if exclude else evalset.systems
    return evalset.with_hyps(evalset.hyps[kept])


def human_frame(report) -> pd.DataFrame:
    """``system, seg, human, human_bad`` for the report's rated pairs (mean over raters), and whether each score is
    a major error."""
    human = report.evalset.human
    human = human[human["system"].isin(report.evalset.systems)].groupby(["system", "seg"])["score"].mean()
    frame = human.rename("human").reset_index()
    esa = frame["human"].min() >= 0 and frame["human"].max() > 25  # ESA: 0-100, higher better; MQM: <= 0
    frame["major"] = frame["human"] <= (MAJOR_ESA if esa else MAJOR_MQM)
    return frame.assign(human_bad=-frame["human"])


def claimed_errors(report, rated: pd.DataFrame) -> pd.DataFrame | None:
    """Per rated pair (rows of ``rated``) and flag: the pair has a human error of a category the flag claims;
    None without error rows."""
    spans = report.evalset.annotations
    if spans is None or len(spans) == 0:
        return None
    errors = spans[spans["weight"] > 0]
    out = {}
    for name, cls in checks.REGISTRY.items():
        if not cls.claims:
            continue
        hit = errors[errors["category"].str.lower().str.startswith(tuple(c.lower() for c in cls.claims))]
        pairs = set(zip(hit["system"], hit["seg"]))
        out[name] = np.fromiter(((s, g) in pairs for s, g in zip(rated["system"], rated["seg"])), dtype=bool,
                                count=len(rated))
    return pd.DataFrame(out, index=rated.index)


def without_references(evalset):
    """The set as a user without references has it: source, outputs, human judgements, imported scores."""
    return replace(evalset, refs=evalset.refs.iloc[:, :0], terms=None)


def queue_lift(report, human: pd.DataFrame) -> float:
    ranked = triage.worst_first(report)
    ranked = ranked.assign(seg=ranked["seg_id"] - 1, position=np.arange(len(ranked)))
    rated = ranked.merge(human, on=["system", "seg"], how="inner")
    return triage.lift(-rated["position"].to_numpy(float), rated["human_bad"].to_numpy())


def section(name: str, evalset, references: bool = True) -> tuple[str, dict]:
    with_refs = evalset
    if not references:
        evalset = without_references(evalset)
        name += " — references withheld"
    report = evaluate(evalset)
    flags = checks.flag_frame(report)
    if report.evalset.human is None:
        lines = [f"## {name} (no human scores: firing rates only)", "", "| flag | fires on |", "|---|---|"]
        lines += [f"| {f} | {flags[f].mean():.1%} |" for f in flags.columns]
        return "\n".join(lines), {}
    human = human_frame(report)
    queue = triage.worst_first(report)
    strict = triage.worst_first(report, strict=True)
    figures = {}
    for label, ranked in (("queue", queue), ("strict", strict)):
        ranked = ranked.assign(seg=ranked["seg_id"] - 1, position=np.arange(len(ranked)))
        rated = ranked.merge(human, on=["system", "seg"], how="inner").sort_values("position")
        figures[label] = triage.lift(-rated["position"].to_numpy(float), rated["human_bad"].to_numpy())
        if label == "queue":
            top10 = rated.head(10)
            figures["major10"], figures["major50"] = top10["major"].mean(), rated.head(50)["major"].mean()
            figures["sources10"] = int(ranked.head(10)["seg_id"].nunique())
            queue_rated = rated
    singles = []
    for metric in report.metrics:
        info = metric_info(metric, report)
        if info.segment_level and info.has_direction:
            singles.append((metric, triage.lift(-info.oriented(queue_rated[metric]).to_numpy(),
                                                queue_rated["human_bad"].to_numpy())))
    length = triage.segment_length(report).xs(report.evalset.systems[0], level="system").to_numpy()
    length_lift = triage.lift(length[queue_rated["seg"].to_numpy()], queue_rated["human_bad"].to_numpy())
    best = max(singles, key=lambda item: item[1]) if singles else ("none", float("nan"))
    figures["ratio"] = figures["queue"] / best[1]
    if not references:
        figures["with_refs"] = queue_lift(evaluate(with_refs), human)
        figures["ratio_refs"] = figures["queue"] / figures["with_refs"]
    lines = [f"## {name}", "",
             f"{len(queue_rated):,} rated pairs ({queue_rated['system'].nunique()} systems × "
             f"{queue_rated['seg'].nunique()} segments).", "",
             "| ranking | lift at 10 % |", "|---|---|",
             f"| **queue** as shown (one pair per source on the first screen) | **{figures['queue']:.2f}** |",
             f"| queue, strict pair order | {figures['strict']:.2f} |"]
    lines += [f"| {metric} | {value:.2f} |" for metric, value in singles]
    what = "mean reference tokens" if references else "median output tokens"
    lines += [f"| segment length alone ({what}) | {length_lift:.2f} |", ""]
    if not references:
        lines += [f"Reference-based queue on the same set: {figures['with_refs']:.2f}; reference-free / "
                  f"reference-based = **{figures['ratio_refs']:.2f}×**. Signals: {triage.signals(report)}.", ""]
    lines += [
              f"Best single metric: {best[0]} ({best[1]:.2f}); queue / best = **{figures['ratio']:.2f}×**. "
              f"First 10 rows: {figures['sources10']} distinct sources, {figures['major10']:.0%} with a major error; "
              f"first 50 rows: {figures['major50']:.0%} with a major error "
              f"(all rated pairs: {queue_rated['major'].mean():.0%}).", ""]
    lines += flag_table(report, flags, human)
    return "\n".join(lines), figures


def flag_table(report, flags: pd.DataFrame, human: pd.DataFrame) -> list[str]:
    rated = human.join(flags, on=["system", "seg"], how="inner").reset_index(drop=True)
    claimed = claimed_errors(report, rated)
    header = "| flag | fires on (all pairs) | fires on (rated) | rated pairs flagged | lift vs human-worst 10 % |"
    rule = "|---|---|---|---|---|"
    if claimed is not None:
        header += " claimed categories | their base rate | lift vs its categories |"
        rule += "---|---|---|"
    lines = [header, rule]
    for flag in flags.columns:
        fired = rated[flag].to_numpy(dtype=bool)
        rate, value = triage.flag_lift(fired, rated["human_bad"].to_numpy())
        shown = "never fires" if not fired.any() else f"{value:.2f}"
        row = f"| {flag} | {flags[flag].mean():.1%} | {rate:.1%} | {int(fired.sum())} | {shown} |"
        if claimed is not None:
            if flag in claimed:
                has = claimed[flag].to_numpy()
                base = has.mean()
                cat = f"{has[fired].mean() / base:.2f}" if fired.any() and base > 0 else "—"
                row += f" {', '.join(checks.REGISTRY[flag].claims)} | {base:.1%} | {cat} |"
            else:
                row += " — | — | — |"
        lines.append(row)
    return lines


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folders", nargs="*", help=f"test-set folders (default: {', '.join(DEFAULT_SETS)} in {DEV})")
    parser.add_argument("--scores", action="append", default=[], metavar="NAME=FILE",
                        help="metric scores computed elsewhere for one set (its folder name), e.g. zh-en=comet.tsv")
    parser.add_argument("--no-references", action="store_true",
                        help="withhold every set's references: measure the reference-free queue and checks")
    parser.add_argument("--exclude", default="^metricsystem", metavar="REGEX",
                        help="leave out systems whose name matches (default: %(default)s, TED's degraded controls)")
    args = parser.parse_args(argv)
    folders = [Path(f) for f in args.folders] or [DEV / s for s in DEFAULT_SETS]
    extra: dict[str, list[str]] = {}
    for item in args.scores:
        name, _, path = item.partition("=")
        extra.setdefault(name, []).append(path)
    print("# Triage against human judgements\n")
    summary = []
    for folder in folders:
        name = f"{folder.parent.name}/{folder.name}"
        text, figures = section(name, load(folder, extra.get(folder.name, []), args.exclude),
                                references=not args.no_references)
        print(text + "\n", flush=True)
        if figures:
            summary.append((name, figures))
    if summary:
        print("## Summary\n")
        if args.no_references:
            print("| set | reference-free queue lift | reference-based queue lift | ratio | distinct sources in the "
                  "first 10 |\n|---|---|---|---|---|")
            for name, f in summary:
                print(f"| {name} | {f['queue']:.2f} | {f['with_refs']:.2f} | {f['ratio_refs']:.2f}× | {f['sources10']} |")
            key, what = "ratio_refs", "reference-free / reference-based queue lift"
        else:
            print("| set | queue lift | queue / best single | distinct sources in the first 10 |\n|---|---|---|---|")
            for name, f in summary:
                print(f"| {name} | {f['queue']:.2f} | {f['ratio']:.2f}× | {f['sources10']} |")
            key, what = "ratio", "queue / best single metric"
        geomean = math.exp(np.mean([math.log(f[key]) for _, f in summary]))
        print(f"\nGeometric mean of {what} over the sets: **{geomean:.2f}×**.")


if __name__ == "__main__":
    main()

"""How well the worst-first queue and its flags find what human raters marked (docs/triage.md).

For each test set with human segment scores (default: the three dev sets ``wmt21/en-de``, ``wmt21/zh-en`` and
``ted/zh-en`` in the data folder; any other test-set folder can be given), over the (system, segment) pairs that
have a human score, it prints

- the **lift at 10 %** (share of the human-worst 10 % found in the worst 10 %, over 0.10; random = 1, perfect =
  10; ties counted fractionally, ``mtdiag.triage.ranking.lift``) of the queue as the user sees it (``mtdiag.triage.ranking
  .worst_first``: critical checks first, one pair per source on the first screen) and in strict order, of every
  single segment metric the queue reads (consensus included), and of segment length alone — against **two kinds
  of human score**:

  - **error sum** (MQM as given: a sum over a segment's errors, so it grows with length);
  - **holistic** (a proxy for a 0–100 judgement of the whole output such as ESA, which does not grow with length):
    the same MQM scores compared only among pairs of similar length — the lift within each tenth of the rated
    pairs by mean reference length, averaged over the tenths (weighted by their pairs). Among outputs of one
    length an error sum and a holistic judgement order alike, and length itself can no longer help (segment length
    alone scores about 1 by construction). The MQM score per output word is printed as a third, extreme bound
    (it makes one error in a 3-word line worse than five in a 30-word one);

- queue / best single metric for both kinds, and how noisy it is on the error sum: its 95 % interval over 1,000
  bootstrap resamples of the rated pairs by source segment (paired);
- the share of the first 10 and first 50 rows with a major error (MQM ≤ −5, or ESA ≤ 33 on a 0–100 scale) and
  how many distinct sources the first 10 rows show;
- the problem-score candidates (bare scores, no critical tier) behind the choice in docs/triage.md, the ways
  predicted MQM could join the problem score among them (read from the report, never computed twice);
- for each flag of ``mtdiag.triage.checks``: its firing rate over all pairs and over the rated pairs, its lift against
  the human-worst 10 %, and — where the set has one row per human error (``mqm.errors.tsv``, read with mtdiag's
  own MQM reader) — its lift against the error categories it claims (``Check.claims``): the share of flagged
  pairs with such an error over the share of all rated pairs with one;
- the **critical checks** (a pair they fire on leads the queue): pairs fired, lift against the human-worst 10 %,
  the share of fired pairs with a major error against all rated pairs', and where the problem score alone would
  have put them (median percentile);
- **word order** (``word_order`` on request, and NEVA > WAFT, Forsbom 2003 §5): firing rate, lift against the
  human-worst 10 % (and against pairs of the same length), on sets with error rows the lift against
  Fluency/Grammar errors (pair-level, and for the same length) and how often the moved words lie inside a human
  grammar (or grammar/awkward-style) error span compared with the output's other words; on sets with references,
  the share of two-phrase swaps planted in outputs of 12+ words that each finds.

Targets: on each set the queue's lift ≥ 1.0 × the best single metric's on both kinds of score, ≥ 1.2 × in
geometric mean over the sets on the error sum; ≥ 7 distinct sources in the first 10 rows; every flag firing on ≥ 1 %
of rated pairs has lift ≥ 1.0 against the human-worst 10 % and against its categories.

With ``--no-references`` every set is measured with its references withheld (the source and the outputs only:
``mtdiag triage --src ... --hyp ...``): the reference-free queue (consensus of the systems × output length, the
critical checks first), its flags, and its lift against the reference-based queue's on the same set. The
holistic proxy still bands by the reference length (the benchmark has it; the queue does not see it).

Usage: ``python benchmarks/triage_vs_human.py [FOLDER ...] [--data DIR] [--no-references] [--scores NAME=FILE ...]
[--exclude REGEX]`` (Markdown on stdout). The default sets are read from ``--data`` (else the environment variable
``MTDIAG_DEV_DATA``, else ``tests/data/dev``, ``benchmarks/devdata.py``). Systems matching ``--exclude`` (default
``^metricsystem``: TED's degraded controls) are left out. ``--scores`` adds metric scores computed elsewhere
(COMET, MetricX, …) to the set named NAME (its folder name, e.g. ``zh-en``); they join the problem score and appear
as single metrics.
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

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "benchmarks"))

import devdata  # noqa: E402

DATA_ENV = devdata.ENV_VAR
DEFAULT_SETS = ("wmt21/en-de", "wmt21/zh-en", "ted/zh-en")
WHERE_TO_GET = ("the dev sets with human scores (WMT21 news en-de and zh-en, WMT21 TED zh-en: test sets and outputs "
                "from github.com/wmt-conference/wmt21-news-systems, MQM scores and error rows from "
                "github.com/google/wmt-mqm-human-evaluation, one folder per set as tests/data/README.md "
                f"lays out); give their folder with --data DIR or {DATA_ENV}")
sys.path.insert(0, str(REPO))

from mtdiag.triage import checks, ranking  # noqa: E402
from mtdiag.scoring.evaluate import evaluate  # noqa: E402
from mtdiag.triage.checks import word_order  # noqa: E402
from mtdiag.triage.checks.tokens import reference_lengths, word_ids  # noqa: E402
from mtdiag.core.highlight import token_offsets  # noqa: E402
from mtdiag.io import load_folder, with_metric_scores  # noqa: E402
from mtdiag.metrics import metric_info  # noqa: E402
from mtdiag.metrics.predicted_mqm import STAT_NAMES  # noqa: E402

MAJOR_MQM = -5.0  # an MQM segment score at or below this carries a major error
MAJOR_ESA = 33.0  # an ESA score (0-100) at or below this
BANDS = 10  # the holistic proxy compares pairs within tenths of the set by reference length
GRAMMAR = ("Fluency/Grammar",)  # where MQM puts words in the wrong order (Freitag et al. 2021, Table 1)
AWKWARD = ("Fluency/Grammar", "Style/Awkward")
SWAP_MIN_WORDS = 12  # planted swaps: outputs of at least this many words, two 2-word phrases 4+ words apart
RESAMPLES = 1000  # bootstrap resamples of the source segments for the interval of queue / best single metric
KINDS = (("mqm", "error sum (MQM)"), ("holistic", "holistic proxy (MQM within length tenths)"),
         ("per_word", "MQM per output word (bound)"))


def load(folder: Path, scores: list[str], exclude: str):
    evalset = load_folder(folder)
    for path in scores:
        evalset = with_metric_scores(evalset, path)
    kept = [s for s in evalset.systems if not re.search(exclude, s)] if exclude else evalset.systems
    return evalset.with_hyps(evalset.hyps[kept])


def human_frame(report, lengths: np.ndarray) -> pd.DataFrame:
    """``system, seg, human, major, human_bad, band, per_word`` for the report's rated pairs (mean over raters),
    sorted by system and segment: whether each score is a major error, the tenth of the set by mean reference
    length (``lengths``, per segment) it falls in, and the penalty per output word."""
    human = report.evalset.human
    human = human[human["system"].isin(report.evalset.systems)].groupby(["system", "seg"])["score"].mean()
    frame = human.rename("human").reset_index()
    esa = frame["human"].min() >= 0 and frame["human"].max() > 25  # ESA: 0-100, higher better; MQM: <= 0
    frame["major"] = frame["human"] <= (MAJOR_ESA if esa else MAJOR_MQM)
    frame["human_bad"] = (100.0 - frame["human"]) if esa else -frame["human"]
    frame["band"] = pd.qcut(lengths[frame["seg"].to_numpy()], BANDS, labels=False, duplicates="drop")
    words = np.array([report.context.tokens.hyps[s].lengths[g] for s, g in zip(frame["system"], frame["seg"])])
    frame["per_word"] = frame["human_bad"] / np.maximum(words, 1)
    return frame


def lifts(badness: np.ndarray, rated: pd.DataFrame) -> dict[str, float]:
    """The lift of one ranking (``badness`` per row of ``rated``, higher = worse) against each kind of score."""
    badness = np.asarray(badness, dtype=float)
    human = rated["human_bad"].to_numpy()
    bands = rated["band"].to_numpy()
    within = [(ranking.lift(badness[bands == b], human[bands == b]), (bands == b).sum()) for b in np.unique(bands)]
    return {"mqm": ranking.lift(badness, human),
            "holistic": float(sum(v * n for v, n in within) / sum(n for _, n in within)),
            "per_word": ranking.lift(badness, rated["per_word"].to_numpy())}


def resampled_ratio(ours: np.ndarray, theirs: np.ndarray, rated: pd.DataFrame,
                    resamples: int | None = None) -> tuple[float, float, float]:
    """How noisy "queue / best single metric" is: over ``resamples`` (default :data:`RESAMPLES`) bootstrap
    resamples of the rated pairs by source segment (a segment drawn brings all its rated pairs; both rankings
    judged on the same resample), the 2.5 % and 97.5 % quantiles of lift(``ours``) / lift(``theirs``) against the
    error sum, and the share of resamples where it is at least 1. A segment is the unit because its systems' outputs
    share a source and a length: resampling pairs would understate the noise."""
    rng = np.random.default_rng(0)
    human = rated["human_bad"].to_numpy()
    groups = list(rated.groupby("seg").indices.values())
    ratios = np.empty(resamples or RESAMPLES)
    for i in range(len(ratios)):
        pick = np.concatenate([groups[g] for g in rng.integers(0, len(groups), len(groups))])
        theirs_lift = ranking.lift(theirs[pick], human[pick])
        ratios[i] = ranking.lift(ours[pick], human[pick]) / theirs_lift if theirs_lift > 0 else np.inf
    low, high = np.quantile(ratios, [0.025, 0.975])
    return float(low), float(high), float((ratios >= 1).mean())


def claimed_errors(report, rated: pd.DataFrame) -> pd.DataFrame | None:
    """Per rated pair (rows of ``rated``) and flag: the pair has a human error of a category the flag claims;
    None without error rows."""
    if not has_error_rows(report):
        return None
    return pd.DataFrame({name: has_error(report, rated, cls.claims) for name, cls in checks.REGISTRY.items()
                         if cls.claims}, index=rated.index)


def has_error_rows(report) -> bool:
    spans = report.evalset.annotations
    return spans is not None and len(spans) > 0


def has_error(report, rated: pd.DataFrame, categories: tuple[str, ...]) -> np.ndarray:
    """Per rated pair: a human error (weight > 0) of one of ``categories`` (prefixes, case-insensitive)."""
    errors = report.evalset.annotations
    errors = errors[(errors["weight"] > 0)
                    & errors["category"].str.lower().str.startswith(tuple(c.lower() for c in categories))]
    pairs = set(zip(errors["system"], errors["seg"]))
    return np.fromiter(((s, g) in pairs for s, g in zip(rated["system"], rated["seg"])), dtype=bool,
                       count=len(rated))


def without_references(evalset):
    """The set as a user without references has it: source, outputs, human judgements, imported scores."""
    return replace(evalset, refs=evalset.refs.iloc[:, :0], terms=None)


def positions(ranked: pd.DataFrame, rated: pd.DataFrame) -> np.ndarray:
    """Per row of ``rated``: its place in ``ranked`` (a queue), as a badness (the first row is the worst)."""
    place = pd.Series(np.arange(len(ranked)), index=pd.MultiIndex.from_arrays(
        [ranked["system"], ranked["seg"]]))
    return -place.reindex(pd.MultiIndex.from_arrays([rated["system"], rated["seg"]])).to_numpy(float)


def section(name: str, evalset, references: bool = True) -> tuple[str, dict]:
    with_refs = evaluate(evalset)
    report = with_refs
    if not references:
        report = evaluate(without_references(evalset))
        name += " — references withheld"
    flags = checks.flag_frame(report)
    if report.evalset.human is None:
        lines = [f"## {name} (no human scores: firing rates only)", "", "| flag | fires on |", "|---|---|"]
        lines += [f"| {f} | {flags[f].mean():.1%} |" for f in flags.columns]
        return "\n".join(lines), {}
    bands_by = reference_lengths(with_refs)  # the proxy's yardstick: every reference's mean length, whatever the queue
    rated = human_frame(report, bands_by)
    queue, strict = ranking.worst_first(report), ranking.worst_first(report, strict=True)
    figures = {"queue": lifts(positions(queue, rated), rated), "strict": lifts(positions(strict, rated), rated)}
    ordered = rated.assign(position=-positions(queue, rated)).sort_values("position")
    figures["major10"], figures["major50"] = ordered.head(10)["major"].mean(), ordered.head(50)["major"].mean()
    figures["sources10"] = int(queue.head(10)["seg"].nunique())
    index = pd.MultiIndex.from_arrays([rated["system"], rated["seg"]])
    singles, badness = {}, {}
    for metric in dict.fromkeys([*report.metrics, *ranking.ranking_metrics(report)]):
        info = metric_info(metric, report)
        if info.segment_level and info.has_direction:
            values = ranking.view_scores(report, metric).reindex(index).to_numpy()
            badness[metric] = -info.oriented(pd.Series(values)).to_numpy()
            singles[metric] = lifts(badness[metric], rated)
    length = ranking.segment_length(report).reindex(index).to_numpy()
    length_lifts = lifts(length, rated)
    best = {kind: max(singles.items(), key=lambda item: item[1][kind]) for kind, _ in KINDS}
    for kind, _ in KINDS:
        figures[f"best_{kind}"] = best[kind]
        figures[f"ratio_{kind}"] = figures["queue"][kind] / best[kind][1][kind]
    figures["interval_mqm"] = resampled_ratio(positions(queue, rated), badness[best["mqm"][0]], rated)
    if not references:
        with_rated = human_frame(with_refs, bands_by)
        figures["with_refs"] = lifts(positions(ranking.worst_first(with_refs), with_rated), with_rated)
        figures["ratio_refs"] = figures["queue"]["mqm"] / figures["with_refs"]["mqm"]
    header = " | ".join(label for _, label in KINDS)
    lines = [f"## {name}", "",
             f"{len(rated):,} rated pairs ({rated['system'].nunique()} systems × {rated['seg'].nunique()} segments).",
             "", f"| ranking | {header} |", "|---|---|---|---|"]
    row = lambda label, values: f"| {label} | " + " | ".join(f"{values[k]:.2f}" for k, _ in KINDS) + " |"  # noqa: E731
    lines += [row("**queue** as shown (critical first, one pair per source on the first screen)", figures["queue"]),
              row("queue, strict pair order", figures["strict"])]
    lines += [row(metric, values) for metric, values in singles.items()]
    what = "mean reference tokens" if references else "median output tokens"
    lines += [row(f"segment length alone ({what})", length_lifts), ""]
    if not references:
        lines += [f"Reference-based queue on the same set: {figures['with_refs']['mqm']:.2f} (holistic "
                  f"{figures['with_refs']['holistic']:.2f}); reference-free / reference-based = "
                  f"**{figures['ratio_refs']:.2f}×**.", ""]
    lines += [f"Signals: {ranking.signals(report)}.", ""]
    lines += [" ".join(f"Best single metric, {label}: {best[kind][0]} ({best[kind][1][kind]:.2f}); queue / best = "
                       f"**{figures[f'ratio_{kind}']:.3f}×**." for kind, label in KINDS[:2]), "",
              "Queue / best single metric on the error sum over {:,} resamples of the rated pairs by source segment "
              "(paired): 95 % interval [{:.3f}, {:.3f}], at least 1 in {:.0%} of them.".format(
                  RESAMPLES, *figures["interval_mqm"]), "",
              f"First 10 rows: {figures['sources10']} distinct sources, {figures['major10']:.0%} with a major error; "
              f"first 50 rows: {figures['major50']:.0%} with a major error "
              f"(all rated pairs: {rated['major'].mean():.0%}).", ""]
    lines += candidate_table(report, rated, index) + [""]
    lines += flag_table(report, flags, rated) + [""]
    lines += critical_table(report, flags, rated) + [""]
    lines += planted_broken(report.evalset, report) + [""]
    if references:
        lines += word_order_section(report, rated, evalset)
    return "\n".join(lines), figures


def candidate_table(report, rated: pd.DataFrame, index: pd.MultiIndex) -> list[str]:
    """The bare problem-score candidates: the error rate with and without consensus, with and without length."""
    views = ranking.ranking_metrics(report)
    without = [m for m in views if m != ranking.CONSENSUS] or views
    length = ranking.segment_length(report)
    rows = []
    for label, metrics in (("rate of " + ", ".join(without), without), ("rate of " + ", ".join(views), views)):
        rate = ranking.error_rate(report, metrics)
        rows += [(label, rate), (label + " × length", rate * length)]
    rows += predicted_mqm_candidates(report, views, rate, length)
    lines = ["Problem-score candidates (bare scores, no critical tier):", "",
             "| candidate | " + " | ".join(label for _, label in KINDS) + " |", "|---|---|---|---|"]
    for label, score in dict(rows).items():
        values = lifts(score.reindex(index).to_numpy(), rated)
        lines.append(f"| {label} | " + " | ".join(f"{values[k]:.2f}" for k, _ in KINDS) + " |")
    return lines


def predicted_mqm_candidates(report, views: list[str], rate: pd.Series, length: pd.Series) -> list[tuple]:
    """Ways the predicted MQM (``predicted_mqm``, the report's own column: never computed here) could join the
    problem score, every one measured in docs/triage.md ("Predicted MQM and the queue"): as a further view of the
    rank product — its predicted penalty per token of the length factor (reference tokens; without references the
    outputs' median), per output token, its spans' penalty (no omissions) per output token, or the raw count —, as
    one factor against the whole rate, or at the penalty level (the geometric or arithmetic mean of the percentiles
    of rate × length and of the predicted penalty; or every view as a count, rate × length, with the predicted
    penalty). None where the report has no predicted MQM."""
    if "predicted_mqm" not in report.segments.columns:
        return []
    pct = lambda values: values.rank(method="average", pct=True)  # noqa: E731
    product = lambda *factors: np.exp(sum(np.log(f) for f in factors) / len(factors))  # noqa: E731
    share = len(views) / (len(views) + 1)  # the rate's weight once one more view joins the rank product
    penalty = -report.segments["predicted_mqm"]
    stats = np.concatenate([report.result("predicted_mqm", s).stats for s in report.evalset.systems])
    spans = pd.Series(stats[:, STAT_NAMES.index("penalty")], index=report.segments.index)
    outputs = pd.Series(np.concatenate([report.context.tokens.hyps[s].lengths for s in report.evalset.systems]),
                        index=report.segments.index).clip(lower=1)
    with_view = lambda view: rate ** share * pct(view) ** (1 - share) * length  # noqa: E731
    counts = [pct(ranking.badness_percentile(ranking.view_scores(report, m), m, report) * length) for m in views]
    ranked = pct(rate * length)
    rates = "rate of " + ", ".join(views)
    return [(f"{rates}, predicted MQM per token of the length × length", with_view(penalty / length)),
            (f"{rates}, predicted MQM per output token × length", with_view(penalty / outputs)),
            (f"{rates}, predicted spans' penalty per output token × length", with_view(spans / outputs)),
            (f"{rates}, predicted MQM as a count × length", with_view(penalty)),
            ("rank product of the rate and predicted MQM per token of the length, × length",
             product(rate, pct(penalty / length)) * length),
            ("rank product of rate × length and predicted MQM", product(ranked, pct(penalty))),
            ("mean of the percentiles of rate × length and predicted MQM", (ranked + pct(penalty)) / 2),
            ("rank product of every view × length and predicted MQM", product(*counts, pct(penalty)))]


def flag_table(report, flags: pd.DataFrame, rated: pd.DataFrame) -> list[str]:
    rated = rated.join(flags, on=["system", "seg"], how="inner").reset_index(drop=True)
    claimed = claimed_errors(report, rated)
    header = "| flag | fires on (all pairs) | fires on (rated) | rated pairs flagged | lift vs human-worst 10 % |"
    rule = "|---|---|---|---|---|"
    if claimed is not None:
        header += " claimed categories | their base rate | lift vs its categories |"
        rule += "---|---|---|"
    lines = [header, rule]
    about_references = [f for f in flags.columns if checks.REGISTRY[f].about == "reference"]
    for flag in flags.columns:
        if flag in about_references:
            continue
        fired = rated[flag].to_numpy(dtype=bool)
        rate, value = ranking.flag_lift(fired, rated["human_bad"].to_numpy())
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
    for flag in about_references:  # a claim about the segment's reference, not its outputs: counted apart
        segments = flags[flag].groupby(level="seg").any()
        lines += ["", f"`{flag}` (about the reference, not the outputs; counted apart): {int(segments.sum())} of "
                      f"{len(segments):,} segments ({segments.mean():.1%}; benchmarks/damaged_references.py measures it)."]
    return lines


def critical_table(report, flags: pd.DataFrame, rated: pd.DataFrame) -> list[str]:
    """Each critical check: pairs fired (all, rated), lift vs the human-worst 10 %, share of its rated pairs with a
    major error (against all rated pairs'), and the median problem percentile of the pairs it fires on — where the
    problem score alone would have put them (1 = the top)."""
    problem = ranking.problem_scores(report)["problem"]
    joined = rated.join(flags, on=["system", "seg"], how="inner").reset_index(drop=True)
    base = joined["major"].mean()
    lines = ["Critical checks:", "",
             "| critical check | fires on (all pairs) | rated pairs | lift vs human-worst 10 % | with a major error "
             f"(all rated: {base:.0%}) | median problem percentile of its pairs |", "|---|---|---|---|---|---|"]
    for flag in checks.critical_columns(flags):
        fired = joined[flag].to_numpy(dtype=bool)
        n_all = int(flags[flag].sum())
        lift = f"{ranking.flag_lift(fired, joined['human_bad'].to_numpy())[1]:.2f}" if fired.any() else "—"
        major = f"{joined['major'][fired].mean():.0%} ({int(joined['major'][fired].sum())} of {int(fired.sum())})" \
            if fired.any() else "—"
        where = f"{problem[flags[flag]].median():.3f}" if n_all else "—"
        lines.append(f"| {flag} | {n_all} ({flags[flag].mean():.2%}) | {int(fired.sum())} | {lift} | {major} | "
                     f"{where} |")
    return lines


PLANTED = 20  # broken outputs of each kind planted per set


def _truncate(text: str) -> str:
    return text[: max(len(text) // 10, 1)]


def _flood(text: str) -> str:
    return text[: len(text) // 2] + "!" * 40


def _loop(text: str) -> str:
    words = text.split()
    return " ".join(words[:3] + words[3:6] * 3 + words[6:])


BROKEN = {  # critical check -> how an output is broken to plant one (with ``source``, another segment's source)
    "empty": lambda text, source, other: "",
    "truncated": lambda text, source, other: _truncate(text),
    "flood": lambda text, source, other: _flood(text),
    "repetition": lambda text, source, other: _loop(text),
    "wrong_language": lambda text, source, other: other,
    "source_copy": lambda text, source, other: source,
    "llm_artefact": lambda text, source, other: "Here is the translation:\n" + text,
}


def planted_broken(evalset, report) -> list[str]:
    """:data:`PLANTED` outputs of 100+ characters per critical check, broken as :data:`BROKEN` says (a fixed random
    generator: reproducible; another segment's source stands for a wrong-language output): how many the check
    finds, and where they land — in the queue (critical first) and by the problem score alone, as the share of the
    set's pairs above them (median) and the share of them in the first 1 % of the queue."""
    rng = np.random.default_rng(0)
    hyps = evalset.hyps.copy()
    src = evalset.src.astype(str).to_numpy()
    long_enough = [(s, g) for s in evalset.systems for g in range(evalset.n_segments)
                   if len(str(hyps.at[g, s])) >= 100 and len(src[g]) >= 20]
    chosen = rng.choice(len(long_enough), size=min(PLANTED * len(BROKEN), len(long_enough)), replace=False)
    planted = {}
    for k, name in enumerate(BROKEN):
        planted[name] = [long_enough[i] for i in chosen[k * PLANTED:(k + 1) * PLANTED]]
        for system, seg in planted[name]:
            other = src[(seg + evalset.n_segments // 2) % evalset.n_segments]
            hyps.at[seg, system] = BROKEN[name](str(hyps.at[seg, system]), src[seg], other)
    broken = evaluate(evalset.with_hyps(hyps), report.options)
    flags = checks.flag_frame(broken)
    queue = ranking.worst_first(broken, strict=True)
    n = len(queue)
    place = pd.Series(np.arange(n) / n, index=pd.MultiIndex.from_arrays([queue["system"], queue["seg"]]))
    problem = ranking.problem_scores(broken)["problem"]
    alone = 1.0 - problem.rank(method="average", pct=True)  # the share of pairs the problem score puts above
    lines = [f"Planted broken outputs ({PLANTED} per critical check, outputs of 100+ characters):", "",
             "| critical check | found | median place in the queue (share of pairs above) | in the first 1 % | "
             "median place by the problem score alone | in the first 1 % by the problem score alone |",
             "|---|---|---|---|---|---|"]
    for name, pairs in planted.items():
        index = pd.MultiIndex.from_tuples(pairs)
        if name not in flags.columns:
            lines.append(f"| {name} | (does not apply to this set) | | | | |")
            continue
        found = flags[name].reindex(index).mean()
        at, by_score = place.reindex(index), alone.reindex(index)
        lines.append(f"| {name} | {found:.0%} | {at.median():.2%} | {(at < 0.01).mean():.0%} | "
                     f"{by_score.median():.2%} | {(by_score < 0.01).mean():.0%} |")
    return lines


def word_order_section(report, rated: pd.DataFrame, evalset) -> list[str]:
    """``word_order`` (on request) and NEVA > WAFT measured as claims about word order (module docstring)."""
    index = pd.MultiIndex.from_arrays([rated["system"], rated["seg"]])
    rules = {"word_order": checks.flag(report, "word_order").reindex(index).to_numpy()}
    if {"neva", "waft"} <= set(report.segments.columns):
        gap = (report.segments["neva"] - report.segments["waft"]).reindex(index).to_numpy()
        rules["NEVA > WAFT"] = gap > 0
    human = rated["human_bad"].to_numpy()
    worst = ranking.top_weights(human)
    bands = rated["band"].to_numpy()
    errors = has_error_rows(report)
    head = "| rule | fires on (rated) | lift vs human-worst 10 % | same length |"
    rule_line = "|---|---|---|---|"
    if errors:
        head += (" lift vs Fluency/Grammar | same length | moved words in a grammar span, vs the other words | "
                 "in a grammar or awkward-style span |")
        rule_line += "---|---|---|---|"
        grammar = has_error(report, rated, GRAMMAR)
    lines = ["Word order (Forsbom 2003 §5 tested as a claim):", "", head, rule_line]
    for label, fired in rules.items():
        fired = fired.astype(bool)
        row = (f"| {label} | {fired.mean():.1%} ({int(fired.sum())}) | "
               f"{ranking.flag_lift(fired, human)[1]:.2f} | {same_length_lift(worst, fired, bands):.2f} |")
        if errors:
            row += (f" {grammar[fired].mean() / grammar.mean():.2f} | {same_length_lift(grammar, fired, bands):.2f} |"
                    f" {moved_in_spans(report, rated[fired], GRAMMAR)} |"
                    f" {moved_in_spans(report, rated[fired], AWKWARD)} |")
        lines.append(row)
    lines += ["", planted_swaps(evalset, report)]
    return lines


def same_length_lift(target: np.ndarray, fired: np.ndarray, bands: np.ndarray) -> float:
    """The share of fired pairs with ``target`` (a 0–1 weight per pair) over the share expected of pairs of the
    same length tenths: what the flag finds beyond the length of the segments it fires on."""
    expected = pd.Series(target).groupby(bands).mean().reindex(bands[fired]).to_numpy()
    return float(target[fired].sum() / expected.sum()) if fired.any() else float("nan")


def moved_in_spans(report, pairs: pd.DataFrame, categories: tuple[str, ...]) -> str:
    """Among the pairs ``word_order`` fires on (NEVA > WAFT rows: moved words of their own reference order too),
    the share of moved words inside a human error span of ``categories``, over the share of all the outputs'
    words inside one (character overlap)."""
    spans = report.evalset.annotations
    spans = spans[(spans["side"] == "target") & (spans["weight"] > 0)
                  & spans["category"].str.lower().str.startswith(tuple(c.lower() for c in categories))]
    spans = spans.groupby(["system", "seg"])[["start", "end"]].apply(lambda f: list(zip(f["start"], f["end"])))
    words = word_ids(report)
    moved_in = moved_n = all_in = all_n = 0
    for system, seg in zip(pairs["system"], pairs["seg"]):
        shown, _ = report.context.display_tokens(system, seg)
        offsets = token_offsets(str(report.evalset.hyps.at[seg, system]), shown)
        if offsets is None:
            continue
        inside = spans.get((system, seg), [])
        hit = [any(a < e and b > s for s, e in inside) for a, b in offsets]
        is_word = words[report.context.tokens.hyps[system].segment(seg)]
        moved = word_order.moved_positions(report, system, seg)
        moved_in += sum(hit[p] for p in moved)
        moved_n += len(moved)
        all_in += sum(h for h, w in zip(hit, is_word) if w)
        all_n += int(is_word.sum())
    if not moved_n or not all_in:
        return "—"
    return f"{moved_in}/{moved_n} vs {all_in}/{all_n}: {(moved_in / moved_n) / (all_in / all_n):.2f}×"


def planted_swaps(evalset, report) -> str:
    """Two 2-word phrases exchanged (at least four words apart) in every output of 12+ words: the share of those
    outputs ``word_order`` finds, and the share with NEVA > WAFT (a fixed random generator: reproducible)."""
    rng = np.random.default_rng(0)
    hyps = evalset.hyps.copy()
    planted = []
    for system in evalset.systems:
        for seg, text in enumerate(hyps[system].astype(str)):
            words = text.split()
            if len(words) < SWAP_MIN_WORDS:
                continue
            i = int(rng.integers(0, len(words) - 8))
            j = int(rng.integers(i + 4, len(words) - 2))
            hyps.at[seg, system] = " ".join(words[:i] + words[j:j + 2] + words[i + 2:j] + words[i:i + 2]
                                            + words[j + 2:])
            planted.append((system, seg))
    swapped = evaluate(evalset.with_hyps(hyps), report.options)
    index = pd.MultiIndex.from_tuples(planted, names=["system", "seg"])
    found = checks.flag(swapped, "word_order").reindex(index).mean()
    gap = (swapped.segments["neva"] - swapped.segments["waft"]).reindex(index) > 0
    before = checks.flag(report, "word_order").reindex(index).mean()
    return (f"Planted two-phrase swaps in {len(planted):,} outputs of {SWAP_MIN_WORDS}+ words "
            f"({len(evalset.ref_names)} reference(s)): word_order finds {found:.1%} (it fired on {before:.1%} of "
            f"the same outputs before the swap); NEVA > WAFT holds on {gap.mean():.1%}.")


def data_folders(args) -> list[Path] | None:
    """The folders to measure, or None (after one line on stderr saying what is missing and where to get it)."""
    if args.folders:
        folders = [Path(f) for f in args.folders]
    else:
        data = devdata.root(args.data)
        folders = [data / s for s in DEFAULT_SETS]
    missing = [f for f in folders if not f.is_dir()]
    if missing:
        print(f"{missing[0]}: not found — {WHERE_TO_GET}", file=sys.stderr)
        return None
    return folders


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folders", nargs="*", help=f"test-set folders (default: {', '.join(DEFAULT_SETS)} in --data)")
    parser.add_argument("--data", metavar="DIR",
                        help=f"the folder holding the default sets (default: ${DATA_ENV}, else {devdata.DEFAULT})")
    parser.add_argument("--scores", action="append", default=[], metavar="NAME=FILE",
                        help="metric scores computed elsewhere for one set (its folder name), e.g. zh-en=comet.tsv")
    parser.add_argument("--no-references", action="store_true",
                        help="withhold every set's references: measure the reference-free queue and checks")
    parser.add_argument("--exclude", default="^metricsystem", metavar="REGEX",
                        help="leave out systems whose name matches (default: %(default)s, TED's degraded controls)")
    args = parser.parse_args(argv)
    folders = data_folders(args)
    if folders is None:
        return 2
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
        print(summary_table(summary, args.no_references))
    return 0


def summary_table(summary: list[tuple[str, dict]], no_references: bool) -> str:
    geomean = lambda key: math.exp(np.mean([math.log(f[key]) for _, f in summary]))  # noqa: E731
    lines = ["## Summary", "",
             "| set | queue lift, error sum | queue / best single | queue lift, holistic proxy | queue / best single "
             "| distinct sources in the first 10 |" + (" reference-based queue lift | reference-free / based |"
                                                      if no_references else ""),
             "|---|---|---|---|---|---|" + ("---|---|" if no_references else "")]
    for name, f in summary:
        line = (f"| {name} | {f['queue']['mqm']:.2f} | {f['ratio_mqm']:.3f}× ({f['best_mqm'][0]}) | "
                f"{f['queue']['holistic']:.2f} | {f['ratio_holistic']:.3f}× ({f['best_holistic'][0]}) | "
                f"{f['sources10']} |")
        if no_references:
            line += f" {f['with_refs']['mqm']:.2f} | {f['ratio_refs']:.2f}× |"
        lines.append(line)
    lines += ["", f"Geometric mean of queue / best single metric over the sets: **{geomean('ratio_mqm'):.2f}×** on "
                  f"the error sum, **{geomean('ratio_holistic'):.2f}×** on the holistic proxy."]
    if no_references:
        lines.append("Geometric mean of reference-free / reference-based queue lift: "
                     f"**{geomean('ratio_refs'):.2f}×**.")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())

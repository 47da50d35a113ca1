"""The worst-first queue: which (system, segment) pairs a translator should look at first, and how well that order
finds what human raters marked worst (``docs/triage.md``).

**Problem score** (``problem``, 0–1, higher = worse): an estimate of how much a human would penalise the output,
as its percentile among all pairs of the report. A human error score (MQM) is a *sum* over the errors of a
segment, so the penalty a pair can collect grows with its length: a 3-word line cannot hold as many errors as a
60-word paragraph. The estimate is therefore

    penalty = error rate × length

- **error rate**: the geometric mean — the rank product of Breitling et al. 2004 — of the pair's *badness
  percentiles* among all pairs of the set (``rank(method="average", pct=True)`` of the oriented score; 1 is the
  worst pair, ties share their rank) over three complementary views: **TER** (word edits incl. moved blocks,
  Snover et al. 2006), **chrF** (character n-grams, Popović 2015) and **OTEM** (repeated n-grams, Yang et al.
  2018) and, wherever the set has three or more systems, **consensus** (agreement with the other systems' outputs
  of the same source, Kumar & Byrne 2004; DeNero et al. 2009): the references and the other systems are two
  independent witnesses of the same output. A pair is a problem when the views agree. Imported metrics
  (``--scores``: COMET, MetricX, …) join as further views.
- **length**: the mean reference length in tokens — what TER's and the other rates' denominators are, so
  rate × length counts errors rather than dividing them out (without references: the median length of the
  systems' outputs of the source).

One rule for every kind of human score. An error sum (MQM) grows with length; a holistic 0–100 judgement (ESA)
does not. Measured on the dev sets against both (the holistic one as MQM among pairs of similar length), the
length factor costs little where length cannot help and is most of the signal where it can; what fell short of
the best single metric on holistic scores was the rate, and consensus joining it closed that: queue / best single
metric 1.23 / 1.65 / 1.88 on the error sum (1.16 / 1.59 / 1.80 before), 0.998 / 1.040 / 1.006 on the holistic
proxy (0.97 / 0.95 / 0.90 before).

Percentiles are calibrated on the test set being looked at, never on a dev set, and the score has no fitted
parameter: the same formula on any set. Measured on three dev sets (``benchmarks/triage_vs_human.py``, every figure
in ``docs/triage.md``), the rate alone ranked tiny segments first where TER and chrF percentiles are extreme
(``Thank you. Thank you.``), and length alone finds many human-worst outputs but not which system failed;
rate × length beat both on every set (Spearman with MQM 0.21 / 0.46 / 0.35 against 0.20 / 0.33 / 0.23 for the
rate and 0.14 / 0.38 / 0.32 for length). Without any of the three views every segment-level metric with a
direction is used.

**A suspect reference** (:mod:`mtdiag.triage.checks.suspect_reference`: unrelated to the outputs, far longer or shorter
than they and the source suggest, repeating itself, spun or garbled) is not charged to the systems: on a segment whose
every reference is suspect, the error rate of its pairs comes from the reference-free views only — consensus with the
other outputs as witnesses weighed by how good their systems look elsewhere (:func:`witness_badness`), imported
metrics; without any, the set's median rate: no evidence either way —, the checks that read the output against its
source alone deciding ties (:func:`source_flags`), and the length from the outputs (their median length, as without
references); where only some references are suspect, the length is the others' mean. The checks that read the
reference do not fire there (:func:`mtdiag.triage.checks.fired`), and a pair whose only flag is ``suspect_reference``
is never on the first screen (:func:`first_screen`).

**Order**: pairs with a *critical* check (:func:`mtdiag.triage.checks.critical`: empty, truncated, a character flood, a
repetition loop the source doesn't have, the wrong language, the source copied, an LLM's wrapper; named in the
``critical`` column) first, then by problem, ties by the pair's badness *relative to the
other systems on the same source* (its problem minus the source's mean problem over systems). By default the
first :data:`FIRST_SCREEN` rows show at most :data:`PER_SOURCE` pair per source — the first screen a person
reads covers that many different sources, each opening every system's output in the one-source view; ``strict``
keeps the pair order throughout.

**Lift at 10 %** (:func:`lift`): the share of the human-worst 10 % of pairs found among the ranking's worst 10 %,
divided by 0.10 (random = 1, perfect = 10). Ties at either cut-off count fractionally (each tied pair gets an equal
share of the remaining places): the expected overlap under random tie-breaking, deterministic.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd

from mtdiag.triage import checks
from mtdiag.scoring.evaluate import default_metrics, missing_input
from mtdiag.triage.checks.suspect_reference import reference_at_fault, suspect_references
from mtdiag.triage.checks.tokens import reference_lengths
from mtdiag.metrics import DerivedMetric, create_metric, metric_class, metric_info

VIEWS = ("ter", "chrf", "otem")
CONSENSUS = "consensus"  # agreement with the other systems' outputs: a view of its own, with or without references
SHARE = 0.10
FIRST_SCREEN = 50  # rows of the first screen(s) a person reads, each of another source ...
PER_SOURCE = 1  # ... at most this many pairs of one source there
PROBLEM_TEXT = ("problem score (0–1, higher = worse): how much a human would penalise the output, estimated as its "
                "error rate (TER, chrF, OTEM and, with three or more systems, consensus percentiles) × its length, "
                "as a percentile of this test set; plainly broken outputs (empty, truncated, floods, loops, wrong "
                "language, source copies, LLM wrappers) first (docs/triage.md)")


def badness_percentile(values: pd.Series, metric: str, within=None) -> pd.Series:
    """Each row's badness as a 0–1 percentile, 1 = the worst row of this set for ``metric``.

    Direction-aware; ties averaged; NaN kept; an imported metric's direction from ``within``, the report."""
    bad = -metric_info(metric, within).oriented(values)
    return bad.rank(method="average", pct=True, na_option="keep")


def ranking_metrics(report) -> list[str]:
    """The metrics the problem score averages.

    :data:`VIEWS` present in the report plus every imported metric with a direction (COMET, MetricX, … computed
    elsewhere: trained on human judgements, they are views of their own), else every segment-level metric with a
    direction; and :data:`CONSENSUS` wherever the set has the systems it needs (:func:`view_scores` computes it when the
    report has not).

    Predicted MQM (``predicted_mqm``, derived from the predicted spans) is not a view: no way of joining it — as a
    further view of the rank product (a rate or a count) or at the penalty level — scored at least this score's lift on
    every dev set and kind of human score, with and without references (``docs/triage.md``, "Predicted MQM and the
    queue")."""
    imported = {info.name for info in report.evalset.imported}
    chosen = [m for m in report.metrics if (m in VIEWS or m in imported) and metric_info(m, report).has_direction]
    if not chosen:  # a metric derived from the spans (predicted MQM) reads the checks the queue already has
        chosen = [m for m in report.metrics if metric_info(m, report).segment_level
                  and metric_info(m, report).has_direction and not issubclass(metric_class(m, report), DerivedMetric)]
    if CONSENSUS not in chosen and missing_input(report.evalset, CONSENSUS) is None:
        chosen.append(CONSENSUS)
    return chosen


def view_scores(report, metric: str) -> pd.Series:
    """The segment scores of one view over the report's pairs.

    The report's own column, or — for :data:`CONSENSUS` on a report that did not compute it (a set with references
    computes it only on request) — :func:`computed_view`'s."""
    if metric in report.segments.columns:
        return report.segments[metric]
    return computed_view(report, metric).reindex(report.segments.index)


def computed_view(report, metric: str) -> pd.Series:
    """A view's segment scores computed with its default options on the report's tokens, per (system, seg).

    Memoised on the report's context, so that a report of the set without scores (:func:`prepare_views`) computes
    them for the scored report on the same context."""
    def build():
        computed = create_metric(metric, report)
        ctx = report.context
        values = np.concatenate([computed.segment_scores(computed.statistics(ctx, s)) for s in report.evalset.systems])
        index = pd.MultiIndex.from_product([report.evalset.systems, range(report.evalset.n_segments)],
                                           names=["system", "seg"])
        return pd.Series(values, index=index, name=metric)

    return report.context.memo(("triage", metric), build)


def prepare_views(report) -> None:
    """Compute the consensus view the queue reads when the scored report will not have it as a metric.

    ``report`` is a report of the set without scores on the scored report's context
    (:func:`mtdiag.pipeline.inputs.prepared`): computed there, beside the metrics, and not on the queue's first
    call. A set with references scores consensus only on request; the queue reads it whenever the set allows it."""
    metrics = report.options.metrics if report.options.metrics is not None else default_metrics(report.evalset)
    if CONSENSUS not in metrics and missing_input(report.evalset, CONSENSUS) is None:
        computed_view(report, CONSENSUS)


def signals(report) -> str:
    """One sentence saying what the problem score was built from for this report.

    The CLI prints it, the Segments page shows it."""
    views = ranking_metrics(report)
    labels = ", ".join(metric_info(m, report).label for m in views) if views else "no metric"
    length = ("mean reference length" if report.evalset.has_references
              else "median output length (no reference)")
    flags = ", ".join(c.name for c in checks.active_checks(report) if c.critical)
    suspect = suspect_references(report)["seg"].nunique() if report.evalset.has_references else 0
    discount = (f"; {suspect:,} segment{'s' if suspect != 1 else ''} with a suspect reference (suspect_reference: "
                "not charged to the outputs)") if suspect else ""
    return (f"problem = percentile of error rate ({labels}) × {length}; critical checks first "
            f"({flags or 'none applies'}){discount}")


def error_rate(report, metrics: Sequence[str] | None = None) -> pd.Series:
    """Per (system, seg): the geometric mean of the pair's badness percentiles over ``metrics``, 0–1.

    ``metrics`` defaults to :func:`ranking_metrics`; 0 where no metric has a value. On a segment whose every reference
    is suspect (:func:`mtdiag.triage.checks.suspect_reference.reference_at_fault`), over the reference-free views among
    them only (consensus, imported metrics), or the set's median rate when there is none."""
    metrics = list(metrics or ranking_metrics(report))
    if not metrics:
        return pd.Series(0.0, index=report.segments.index)
    percentiles = pd.concat([badness_percentile(view_scores(report, m), m, report) for m in metrics], axis=1)
    rate = np.exp(np.log(percentiles).mean(axis=1, skipna=True)).fillna(0.0)
    at_fault = reference_at_fault(report) if report.evalset.has_references else None
    if at_fault is None or not at_fault.any():
        return rate
    free = [m for m in metrics if "references" not in metric_info(m, report).needs]
    views = pd.DataFrame({m: percentiles.iloc[:, i] for i, m in enumerate(metrics) if m in free and m != CONSENSUS},
                         index=rate.index)
    if CONSENSUS in free:
        views[CONSENSUS] = witness_badness(report, rate, at_fault)
    if views.shape[1]:
        fallback = np.exp(np.log(views).mean(axis=1, skipna=True)).fillna(float(rate[~at_fault].median()))
    else:
        fallback = pd.Series(float(rate[~at_fault].median()), index=rate.index)
    return rate.where(~at_fault, fallback + TIE * source_flags(report))


TIE = 1e-6  # a source-side flag decides between fallback rates that are otherwise equal
WITNESS_SCALE = 0.1  # a witness this much better in mean error rate counts e (2.7) times as much, this much worse 1/e


def witness_badness(report, rate: pd.Series, at_fault: pd.Series) -> pd.Series:
    """Per pair of a segment whose every reference is suspect: how badly the output disagrees with the other outputs.

    Each other output is a witness, weighed by how good its system looks elsewhere against the output's own system; the
    disagreement is the output's badness percentile among the set's consensus scores (:data:`CONSENSUS`, 1 = the least
    agreement). How good a system looks: its mean error rate ``q`` on the segments whose reference is trusted (the
    segments a reference-favoured system copies, :func:`mtdiag.analysis.reference_bias.favoured_segments`, left out
    unless they are all there is); witness ``j`` of output ``s`` weighs ``exp((q_s − q_j) / WITNESS_SCALE)``, so
    disagreeing with better systems costs more than disagreeing with worse ones (one system, one vote where all look
    alike). Agreement is pairwise n-gram F1 (:func:`mtdiag.metrics.consensus.pairwise_agreement`). NaN elsewhere.
    Measured (``docs/triage.md``, "The fallback weighs the witnesses"): as good as one vote on the dev sets; counting
    only the better witnesses, or not charging the best-looking output at all, was worse on every one."""
    from mtdiag.analysis.reference_bias import applies, favoured_segments
    from mtdiag.metrics.consensus import pairwise_agreement

    evalset = report.evalset
    segs = report.segments.index.get_level_values("seg").to_numpy()
    trusted = ~at_fault.to_numpy()
    if applies(report) and (trusted & ~favoured_segments(report)[segs]).any():
        trusted &= ~favoured_segments(report)[segs]
    quality = rate[trusted].groupby(level="system").mean().reindex(evalset.systems)
    quality = quality.fillna(float(rate.median())).to_numpy()
    faulty = np.unique(segs[at_fault.to_numpy()])
    agreement = pairwise_agreement(report.context, faulty)  # (system, system, segment)
    weights = ~np.eye(len(quality), dtype=bool) * np.exp((quality[:, None] - quality[None, :]) / WITNESS_SCALE)
    agree = np.einsum("sw,swg->sg", weights, agreement) / weights.sum(axis=1)[:, None]
    pooled = view_scores(report, CONSENSUS)[trusted].to_numpy()
    pooled = np.sort(pooled[np.isfinite(pooled)])
    badness = np.maximum(1.0 - np.searchsorted(pooled, agree, side="left") / max(len(pooled), 1),
                         1.0 / max(len(pooled), 1))  # as a percentile rank: never 0
    frame = pd.DataFrame(badness, index=evalset.systems, columns=faulty).stack(future_stack=True)
    frame.index.names = ["system", "seg"]
    out = pd.Series(np.nan, index=report.segments.index)
    shared = frame.index.intersection(out.index)
    out.loc[shared] = frame.loc[shared].to_numpy()
    return out


def source_flags(report) -> pd.Series:
    """Per pair: how many of the checks that read the output against its source alone (not the reference) fired.

    This is what decides between outputs the witnesses cannot tell apart."""
    chosen = [c for c in checks.active_checks(report) if "source" in c.needs and not c.reads_reference
              and c.about == "output"]
    if not chosen:
        return pd.Series(0.0, index=report.segments.index)
    return pd.DataFrame({c.name: checks.fired(report, c) for c in chosen}).sum(axis=1).astype(float)


def segment_length(report) -> pd.Series:
    """Per (system, seg): the length the penalty scales with, at least 1.

    The segment's mean reference length in tokens; without references, the median length of the systems' outputs of the
    segment (the length a translation of that source has in this set, robust to one system's truncation or loop). A
    suspect reference (:mod:`mtdiag.triage.checks.suspect_reference`) does not count: the other references' mean, or
    where every reference is suspect the outputs' median."""
    outputs = np.median([side.lengths for side in report.context.tokens.hyps.values()], axis=0)
    if report.evalset.has_references:
        lengths = _trusted_reference_lengths(report, outputs)
    else:
        lengths = outputs
    lengths = np.maximum(lengths, 1.0)
    return pd.Series(lengths[report.segments.index.get_level_values("seg")], index=report.segments.index)


def _trusted_reference_lengths(report, outputs: np.ndarray) -> np.ndarray:
    """Per segment: the mean length of its references that are not suspect (all of them where none is); the
    outputs' median length where every one is."""
    lengths = reference_lengths(report)
    suspect = suspect_references(report)
    if suspect.empty:
        return lengths
    sides = report.context.tokens.refs
    trusted = np.ones((len(sides), report.evalset.n_segments), dtype=bool)
    names = list(sides)
    trusted[[names.index(r) for r in suspect["reference"]], suspect["seg"].to_numpy(dtype=np.int64)] = False
    counts = trusted.sum(axis=0)
    totals = (np.stack([side.lengths for side in sides.values()]) * trusted).sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(counts > 0, totals / np.maximum(counts, 1), outputs).astype(float)


def problem_scores(report, metrics: Sequence[str] | None = None) -> pd.DataFrame:
    """Per (system, seg): the pair's ``problem`` score and its ``relative`` problem against its peers on the source.

    ``problem``: the percentile of error rate × length among the set's pairs, 0–1; ``relative``: the pair's problem
    minus the mean problem of all systems on the same source (> 0 means worse than its peers there). Index as
    ``report.segments``."""
    penalty = error_rate(report, metrics) * segment_length(report)
    problem = penalty.rank(method="average", pct=True).where(penalty > 0, 0.0)
    relative = problem - problem.groupby(level="seg").transform("mean")
    return pd.DataFrame({"problem": problem, "relative": relative})


def worst_first(report, metrics: Sequence[str] | None = None, *, requested: checks.Requested | None = None,
                strict: bool = False) -> pd.DataFrame:
    """Every (system, segment) pair worst first, with its problem score, the checks that fired and its segment scores.

    Columns: ``system, seg`` (0-based, the position in the report: a table names it by its id in the set,
    :func:`mtdiag.views.with_set_ids`), ``problem``, ``relative``, ``flags`` (the fired checks of
    :mod:`mtdiag.triage.checks`, comma-joined, empty when none), ``critical`` (the fired *critical* checks,
    comma-joined, empty when none: why a row stands above rows of higher problem), every segment score, then one boolean
    column per check (``requested``: on-request checks and their options, e.g. ``{"mt_only_ngram": {"order": 2}}``).

    Order: a critical check first (a plainly broken output), then problem descending, relative descending, system and
    segment order. Other flags explain a pair; they do not move it (adding them to the problem score changed the lift by
    less than its noise on the dev sets, ``docs/triage.md``). Unless ``strict``, the first :data:`FIRST_SCREEN` rows
    hold at most :data:`PER_SOURCE` pair per source (:func:`first_screen`)."""
    scores = problem_scores(report, metrics)
    flags = checks.flag_frame(report, requested)
    scores["flags"] = checks.flag_names(flags)
    scores["critical"] = checks.flag_names(flags[checks.critical_columns(flags)])
    table = pd.concat([scores, report.segments, flags], axis=1).reset_index()
    order = {s: i for i, s in enumerate(report.evalset.systems)}
    table["_sys"] = table["system"].map(order)
    table["_critical"] = table["critical"] != ""
    table = table.sort_values(["_critical", "problem", "relative", "_sys", "seg"],
                              ascending=[False, False, False, True, True], kind="stable", ignore_index=True)
    table = table.drop(columns=["_sys", "_critical"])
    return table if strict else first_screen(table)


def first_screen(ranked: pd.DataFrame, rows: int = FIRST_SCREEN, per_source: int = PER_SOURCE) -> pd.DataFrame:
    """``ranked`` (strict queue order) with its first ``rows`` rows holding at most ``per_source`` pairs per source.

    A source is a ``seg`` (0-based position). The first rows of that many different sources in queue order come
    first, then every other row in queue order. A row whose only flag is ``suspect_reference`` is never among the
    first: a doubt about the reference is no finding about the output."""
    reference_only = ((ranked["flags"] == "suspect_reference").to_numpy() if "flags" in ranked.columns
                      else np.zeros(len(ranked), dtype=bool))
    occurrence = ranked[~reference_only].groupby("seg", sort=False).cumcount().reindex(
        ranked.index, fill_value=per_source).to_numpy()
    first = np.flatnonzero(occurrence < per_source)[:rows]
    rest = np.setdiff1d(np.arange(len(ranked)), first, assume_unique=True)
    return ranked.iloc[np.concatenate([first, rest])].reset_index(drop=True)


def source_difficulty(report, metrics: Sequence[str] | None = None) -> pd.DataFrame:
    """The queue viewed as sources, hardest first.

    Per segment ``seg`` (0-based, as in :func:`worst_first`), ``difficulty`` (mean problem over systems: a hard
    source), ``spread`` (max − min problem over systems: the systems disagree), ``worst_system`` and its
    ``worst_problem``."""
    scores = problem_scores(report, metrics)["problem"].unstack("system")
    worst = scores.idxmax(axis=1)
    frame = pd.DataFrame({"seg": scores.index.to_numpy(), "difficulty": scores.mean(axis=1).to_numpy(),
                          "spread": (scores.max(axis=1) - scores.min(axis=1)).to_numpy(),
                          "worst_system": worst.to_numpy(), "worst_problem": scores.max(axis=1).to_numpy()})
    return frame.sort_values(["difficulty", "spread", "seg"], ascending=[False, False, True], ignore_index=True)


def top_weights(badness: np.ndarray, share: float = SHARE) -> np.ndarray:
    """Membership of each item in the worst ``share`` (highest badness).

    1 above the cut-off, 0 below, and the remaining places shared equally by the items tied at the cut-off."""
    badness = np.asarray(badness, dtype=float)
    k = share * len(badness)
    if len(badness) == 0 or k <= 0:
        return np.zeros(len(badness))
    threshold = np.sort(badness)[::-1][int(np.ceil(k)) - 1]
    above, tied = badness > threshold, badness == threshold
    weights = above.astype(float)
    weights[tied] = (k - above.sum()) / tied.sum()
    return weights


def lift(badness: np.ndarray, human_badness: np.ndarray, share: float = SHARE) -> float:
    """Share of the human-worst ``share`` found in the ranking's worst ``share``, over ``share`` (random = 1)."""
    ours, theirs = top_weights(badness, share), top_weights(human_badness, share)
    return float((ours * theirs).sum() / theirs.sum() / share)


def flag_lift(flag: np.ndarray, human_badness: np.ndarray, share: float = SHARE) -> tuple[float, float]:
    """(firing rate, lift) of a boolean flag.

    The lift is the share of flagged pairs in the human-worst ``share``, over ``share`` (NaN when it never fires)."""
    flag = np.asarray(flag, dtype=bool)
    theirs = top_weights(human_badness, share)
    rate = float(flag.mean()) if len(flag) else 0.0
    return rate, float(theirs[flag].sum() / flag.sum() / share) if flag.any() else float("nan")

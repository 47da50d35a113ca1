"""The Overview page: corpus scores, the best system per metric, significance marks and intervals against a
baseline (the significance itself is :mod:`mtdiag.analysis.significance`'s)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from mtdiag.metrics import metric_info
from mtdiag.analysis import reference_bias as bias
from mtdiag.analysis.significance import DEFAULT_SEED, MAX_SAMPLES
from mtdiag.spans.judge import caption as judge_caption
from mtdiag.views.base import TEST_METHODS, Chart, Table, View, ViewOption, first_metric


def corpus_table(report) -> pd.DataFrame:
    """Corpus scores (index system, one column per metric) in registry order."""
    return report.corpus.copy()


def ranking_metrics(report) -> list[str]:
    """The metrics systems can be ranked by: those with a better direction."""
    return [m for m in report.metrics if metric_info(m, report).has_direction]


def ranked(report, metric: str | None) -> pd.DataFrame:
    """:func:`corpus_table` with the systems best first by ``metric`` (direction-aware; ties keep system order).

    In system order when ``metric`` is None."""
    corpus = corpus_table(report)
    if metric is None:
        return corpus
    return corpus.sort_values(metric, ascending=not metric_info(metric, report).higher_is_better, kind="stable")


def human_means(report) -> pd.Series | None:
    """Per system of the report: its mean human score over its rated outputs; None when no system has one.

    MQM and ESA alike: higher is better."""
    human = report.evalset.human
    if human is None or human.empty:
        return None
    rated = human[human["system"].isin(report.evalset.systems)].dropna(subset=["score"])
    if rated.empty:
        return None
    return rated.groupby("system")["score"].mean().reindex(report.evalset.systems).rename("human")


def ranked_by_people(report, metric: str | None) -> pd.DataFrame:
    """:func:`ranked`, with a ``human`` column first that ranks the systems where human scores are loaded.

    The ``human`` column (:func:`human_means`) ranks the systems best first, systems without a rated output last:
    what people judged leads what metrics estimate."""
    human = human_means(report)
    if human is None:
        return ranked(report, metric)
    table = corpus_table(report)
    table.insert(0, "human", human.reindex(table.index))
    return table.sort_values("human", ascending=False, kind="stable", na_position="last")


def best_systems(corpus: pd.DataFrame, within=None) -> pd.DataFrame:
    """Per metric: the best system (ties: all of them, in system order), its score and the direction.

    Imported metrics are resolved through ``within``, the report or set (:func:`mtdiag.metrics.metric_info`)."""
    rows = []
    for metric in corpus.columns:
        values = corpus[metric]
        info = metric_info(metric, within)
        if values.notna().sum() == 0 or not info.has_direction:
            continue
        best = values.max() if info.higher_is_better else values.min()
        winners = [s for s, v in values.items() if np.isclose(v, best, rtol=0, atol=1e-12)]
        rows.append({"metric": metric, "label": info.label, "best": ", ".join(winners),
                     "score": best, "direction": info.direction})
    return pd.DataFrame(rows, columns=["metric", "label", "best", "score", "direction"])


def best_mask(corpus: pd.DataFrame, within=None) -> pd.DataFrame:
    """Boolean frame shaped like ``corpus``: True where a system is best on that metric.

    Imported metrics are resolved through ``within``."""
    mask = pd.DataFrame(False, index=corpus.index, columns=corpus.columns)
    for metric in corpus.columns:
        values = corpus[metric]
        info = metric_info(metric, within)
        if values.notna().any() and info.has_direction:
            best = values.max() if info.higher_is_better else values.min()
            mask[metric] = np.isclose(values, best, rtol=0, atol=1e-12)
    return mask


def significance_marks(corpus: pd.DataFrame, sig: pd.DataFrame | None) -> pd.DataFrame:
    """Per (system, metric) of ``corpus``: ``"▲"``, ``"▼"``, ``"="`` or ``""`` against the baseline.

    ``"▲"`` significantly better than the baseline, ``"▼"`` significantly worse, ``"="`` the baseline itself, ``""``
    not significant or not tested. ``sig`` is a frame of :func:`mtdiag.analysis.significance.significance`."""
    marks = pd.DataFrame("", index=corpus.index, columns=corpus.columns)
    if sig is None:
        return marks
    baseline = sig.attrs.get("baseline")
    for (system, metric), row in sig.iterrows():
        if system not in marks.index or metric not in marks.columns:
            continue
        if system == baseline:
            marks.at[system, metric] = "="
        elif bool(row["significant"]) and row["better"] != 0:
            marks.at[system, metric] = "▲" if row["better"] > 0 else "▼"
    return marks


def significance_table(sig: pd.DataFrame) -> pd.DataFrame:
    """The significance frame flattened for display/export.

    Columns: ``system, metric, score, ci_lo, ci_hi, delta, p, significant, better``."""
    cols = [c for c in ("score", "ci_lo", "ci_hi", "ci", "delta", "p", "significant", "better") if c in sig.columns]
    return sig[cols].reset_index()


def intervals(sig: pd.DataFrame) -> pd.DataFrame:
    """``system, metric, lo, hi``: the 95% bootstrap intervals of a significance frame (for error bars)."""
    frame = sig[["ci_lo", "ci_hi"]].rename(columns={"ci_lo": "lo", "ci_hi": "hi"}).reset_index()
    return frame.dropna(subset=["lo", "hi"])


def reference_bias(report, chosen) -> pd.DataFrame | None:
    """Per system, how often its output is a near copy of a reference, beside every other system's, with the test.

    The test is :func:`mtdiag.analysis.reference_bias.reference_bias`; None where it does not apply (one system, no
    chrF or TER)."""
    return bias.reference_bias(report) if bias.applies(report) else None


def bias_rankings(report, chosen) -> pd.DataFrame | None:
    """Where a reference favours a system: the rankings as computed, without its copies and by the other references.

    Favoured: :func:`mtdiag.analysis.reference_bias.biased`. Every system's corpus score by the chosen metric and its
    rank as computed, ``without`` the segments a favoured system copies
    (:func:`mtdiag.analysis.reference_bias.favoured_segments`: the corpus formula on the other segments' statistics,
    :func:`mtdiag.slices.subset.slice_report`), and ``by <references>`` — the other references alone, scored again —
    where the set has a reference that favours none; with human scores their mean and rank first. Ranks: 1 is best. None
    when no system is favoured."""
    favoured = bias.biased(report)
    metric = chosen["rank_by"]
    if favoured.empty or metric is None:
        return None
    info = metric_info(metric, report)
    frame = pd.DataFrame({"system": report.evalset.systems})
    human = human_means(report)
    if human is not None:
        frame["human"] = human.to_numpy()
        frame["human_rank"] = _ranks(frame["human"], True)
    columns = {"as_computed": report.corpus[metric].reindex(report.evalset.systems).to_numpy()}
    keep = ~bias.favoured_segments(report)
    if keep.any():
        from mtdiag.slices.subset import slice_report

        columns["without_near_copies"] = slice_report(report, keep, (metric,)).corpus[metric].reindex(
            report.evalset.systems).to_numpy()
    others = [r for r in report.evalset.ref_names if r not in set(favoured["reference"])]
    if others:
        columns["by_" + "+".join(others)] = _other_references(report, metric, tuple(others))
    for name, values in columns.items():
        frame[name] = values
        frame[f"{name}_rank"] = _ranks(frame[name], info.higher_is_better)
    return frame.sort_values("human_rank" if human is not None else "as_computed_rank", kind="stable",
                             ignore_index=True)


def _ranks(values: pd.Series, higher_is_better: bool) -> pd.Series:
    """1 for the best value, ties sharing the best rank; missing where the value is."""
    return values.rank(ascending=not higher_is_better, method="min").astype("Int64")


def _other_references(report, metric: str, references: tuple[str, ...]) -> np.ndarray:
    """The corpus score by ``metric`` of every system against ``references`` alone: the set scored again with
    those references (memoised per report)."""
    from dataclasses import replace

    from mtdiag.scoring.evaluate import evaluate

    def build():
        evalset = replace(report.evalset, refs=report.evalset.refs[list(references)])
        other = evaluate(evalset, replace(report.options, metrics=(metric,)))
        return other.corpus[metric].reindex(report.evalset.systems).to_numpy()

    return report.context.memo(("overview", "other_references", metric, references), build)


def _bias_caption(report, chosen, frame) -> str:
    return ("Near copy: the output's sentence chrF against the reference at least 90, or its TER at most 10, or the "
            "same words. share: the system's near copies over the segments; others_share: the other systems' "
            "pooled; p: Fisher's exact test of the system against them (one-sided), Holm-corrected over every "
            "system and reference; biased: p < 0.05, ratio ≥ 2.5 and share at least 5 points above the others' "
            "(docs/triage.md, \"Reference bias\").")


def _rankings_caption(report, chosen, frame) -> str:
    return (f"The systems by {metric_info(chosen['rank_by'], report).label} as computed, without the segments where "
            "a favoured system's output is a near copy of the reference that favours it, and by the other "
            "references alone where there are any; rank 1 is best" + ("; human: each system's mean human score"
                                                                        if "human" in frame.columns else "") + ".")


# ----------------------------------------------------------------------------------------------- the view

NO_BASELINE = "(none)"


def _baselines(report, chosen) -> list[str]:
    return [NO_BASELINE, *report.evalset.systems]


def _first_baseline(report, chosen) -> str:
    """The first system when there are two or more (every other is tested against it), else none."""
    return report.evalset.systems[0] if len(report.evalset.systems) > 1 else NO_BASELINE


def baseline_significance(report, chosen) -> pd.DataFrame | None:
    """The paired test of every system against the chosen baseline; None without a baseline.

    :func:`mtdiag.analysis.significance.significance` with the chosen method, samples and seed; computed once per
    report and choices."""
    if chosen["baseline"] in (None, NO_BASELINE):
        return None
    from mtdiag.analysis.significance import significance

    key = ("overview", "significance", report.metrics, chosen["baseline"], chosen["method"], chosen["samples"],
           chosen["seed"])  # the metrics too: a report completed with predicted MQM shares its first one's context
    return report.context.memo(key, lambda: significance(report, chosen["baseline"], chosen["method"],
                                                         chosen["samples"], chosen["seed"]))


def pairwise(report, chosen) -> pd.DataFrame:
    """Every pair of systems' paired test on the chosen metric.

    :func:`mtdiag.analysis.significance.pairwise_significance` with the chosen method, samples and seed; computed
    once per report and choices."""
    from mtdiag.analysis.significance import pairwise_significance

    key = ("overview", "pairwise", chosen["method"], chosen["rank_by"], chosen["samples"], chosen["seed"])
    return report.context.memo(key, lambda: pairwise_significance(report, chosen["method"], chosen["samples"],
                                                                  chosen["seed"], metrics=[chosen["rank_by"]]))


def clusters(report, chosen) -> pd.DataFrame:
    """The systems ranked by the chosen metric in significance clusters.

    :func:`mtdiag.analysis.significance.ranked_clusters` of every pair's paired test (:func:`pairwise`)."""
    from mtdiag.analysis.significance import ranked_clusters

    return ranked_clusters(report, pairwise(report, chosen)).drop(columns="metric")


def pvalues(report, chosen) -> pd.DataFrame:
    """The p-value of every pair on the chosen metric, system × system, the systems ranked as :func:`clusters`.

    From :func:`mtdiag.analysis.significance.pairwise_matrix`; the row system is tested against the column system."""
    from mtdiag.analysis.significance import pairwise_matrix

    order = list(clusters(report, chosen)["system"])
    matrix = pairwise_matrix(pairwise(report, chosen)).loc[chosen["rank_by"]].reindex(index=order, columns=order)
    return matrix.rename_axis(index="system", columns=None).reset_index()


def by_people(report, chosen) -> pd.DataFrame:
    """The corpus scores ranked as people judged them (:func:`ranked_by_people`), else by the chosen metric.

    With human scores, a ``human`` column first (each system's mean over its rated outputs) and the systems best
    first by it; without, by the chosen metric."""
    return ranked_by_people(report, chosen["rank_by"]).reset_index()


def corpus_scores(report, chosen) -> pd.DataFrame:
    """The corpus scores ranked by the chosen metric (``system`` and one column per metric), with marks in ``attrs``.

    What a reader sees on them is in ``attrs``: ``best`` — per metric the best systems (:func:`best_mask`) — and
    ``marks`` — per metric and system ``▲``/``▼``/``=`` against the baseline (:func:`significance_marks`; empty
    without one)."""
    corpus = ranked(report, chosen["rank_by"])
    best = best_mask(corpus, report)
    marks = significance_marks(corpus, baseline_significance(report, chosen))
    frame = corpus.reset_index()
    frame.attrs["best"] = {m: [s for s in corpus.index if best.at[s, m]] for m in corpus.columns}
    frame.attrs["marks"] = {m: {s: marks.at[s, m] for s in corpus.index if marks.at[s, m]} for m in corpus.columns}
    return frame


def _significance_table(report, chosen) -> pd.DataFrame | None:
    sig = baseline_significance(report, chosen)
    return None if sig is None else significance_table(sig)


def signatures(report, chosen) -> pd.DataFrame:
    """Per metric its signature (:func:`mtdiag.analysis.significance.report_signatures`).

    With the paired test's resampling fields when a baseline is chosen."""
    from mtdiag.analysis.significance import report_signatures

    found = report_signatures(report, baseline_significance(report, chosen))
    return pd.DataFrame({"metric": list(found), "signature": list(found.values())})


def _corpus_bars(report, chosen):
    from mtdiag.views.charts import corpus_bars

    corpus = ranked(report, chosen["rank_by"])
    sig = baseline_significance(report, chosen)
    return corpus_bars(corpus, best_mask(corpus, report), None if sig is None else intervals(sig), within=report)


def _people_bars(report, chosen):
    from mtdiag.views.charts import corpus_bars

    corpus = corpus_table(report).reindex(ranked_by_people(report, chosen["rank_by"]).index)
    return corpus_bars(corpus, best_mask(corpus, report), within=report)


def _pvalue_heatmap(report, chosen):
    from mtdiag.views.charts import pvalue_heatmap

    matrix = pvalues(report, chosen).set_index("system")
    return pvalue_heatmap(matrix, clusters(report, chosen))


def _corpus_caption(report, chosen, frame) -> str:
    """What the predicted score columns are good for, with the dev sets' figures (:func:`mtdiag.spans.judge.caption`),
    when the report has one; else nothing."""
    shown = [name for name in ("predicted_mqm", "predicted_esa") if name in report.metrics]
    return " ".join(judge_caption(metric_info(name, report).label) for name in shown[-1:])


def _bars_caption(report, chosen, figure) -> str:
    return ("Error bars: 95% paired-bootstrap confidence intervals."
            if chosen["baseline"] not in (None, NO_BASELINE) else "")


BASELINE = ("baseline", "method", "samples", "seed")
PAIRS = ("method", "rank_by", "samples", "seed")

VIEW = View(
    name="overview", title="Overview",
    help="every corpus score per system, the best per metric, significance against a baseline and ranked clusters",
    about="One row per system, every corpus score. ↑ higher is better, ↓ lower is better; the best system per "
          "metric is shaded. ▲/▼: significantly better/worse than the baseline (p < 0.05), = the baseline.",
    options=(
        ViewOption("rank_by", "Rank systems by", "the metric systems are ranked and clustered by",
                   choices=lambda report, chosen: ranking_metrics(report), default=first_metric(
                       lambda report, chosen: ranking_metrics(report)), of="metric",
                   empty="No metric with a better direction was computed for this data."),
        ViewOption("baseline", "Baseline", "Paired significance test of every system against this one.",
                   choices=_baselines, default=_first_baseline),
        ViewOption("method", "Test", "the paired test", choices=tuple(TEST_METHODS), describe=TEST_METHODS),
        ViewOption("samples", "Samples", "resamples (bootstrap) or trials (randomisation) of the paired tests "
                   f"(default: 1000 and 10000; at most {MAX_SAMPLES:,})", type=int, minimum=1, maximum=MAX_SAMPLES),
        ViewOption("seed", "Seed", "the random seed of the paired tests", type=int, default=DEFAULT_SEED, minimum=0),
    ),
    tables=(
        Table("corpus", "Corpus scores", corpus_scores, uses=("rank_by", *BASELINE), scores_only=True,
              caption=_corpus_caption),
        Table("by_people", "Corpus scores, ranked as people judged", by_people, uses=("rank_by",),
              caption=lambda report, chosen, frame: "Systems ranked by " + (
                  "the human score (each system's mean over its rated outputs; higher is better)"
                  if "human" in frame.columns else metric_info(chosen["rank_by"], report).label) + "."),
        Table("best", "Best system per metric", lambda report, chosen: best_systems(corpus_table(report), report),
              uses=(), scores_only=True),
        Table("significance", "Significance against the baseline", _significance_table, uses=BASELINE, scores_only=True,
              empty="Choose a baseline to test every system against it.",
              caption="Every system against the baseline: its score, the 95% bootstrap interval, the difference "
                      "(delta), p and whether it is significant (p < 0.05); better: +1 better, -1 worse."),
        Table("clusters", "Ranked significance", clusters, needs=("two_systems",), uses=PAIRS, scores_only=True,
              caption="Systems best first. A system opens a new cluster when it is significantly worse (p < 0.05) "
                      "than the one above it (WMT-style clusters); the matrix gives the p-value of every pair (row "
                      "system tested against the column system)."),
        Table("pvalues", "p-values of every pair", pvalues, needs=("two_systems",), uses=PAIRS, scores_only=True,
              caption="The p-value of the paired test of the row system against the column system."),
        Table("signatures", "Metric signatures", signatures, uses=BASELINE, scores_only=True),
        Table("reference_bias", "Reference bias: near copies of the reference per system", reference_bias,
              needs=("references", "two_systems"), uses=(), caption=_bias_caption,
              empty="Reference bias needs chrF or TER among the metrics."),
        Table("bias_rankings", "Rankings without the favoured segments and by the other references", bias_rankings,
              needs=("references", "two_systems"), uses=("rank_by",), caption=_rankings_caption,
              empty="No system is favoured by the reference."),
    ),
    charts=(
        Chart("corpus_bars", "Corpus scores", _corpus_bars, uses=("rank_by", *BASELINE), scores_only=True,
              caption=_bars_caption),
        Chart("people_bars", "Corpus scores, ranked as people judged", _people_bars, uses=("rank_by",),
              caption="The systems in the order of the table above: by their mean human score when one is loaded."),
        Chart("pvalue_heatmap", "p-values of every pair", _pvalue_heatmap, needs=("two_systems",), uses=PAIRS,
              scores_only=True),
    ),
    details={"bias_warning": lambda report: bias.warning(report) if bias.applies(report) else ""},
)

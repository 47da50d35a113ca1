"""The Over/under-translation page: OTEM/UTEM per system (:mod:`mtdiag.views.distributions`' summary and box
plots), ``mp_n`` per order, and the over-/under-matched n-grams with the segments behind each."""

from __future__ import annotations

import pandas as pd

from mtdiag.views.base import Chart, Table, View, ViewOption, systems
from mtdiag.views.distributions import distribution_summary, segment_scores
from mtdiag.views.ngrams import content_only, ngram_highlights

__all__ = ["distribution_summary", "segment_scores", "mp_per_order", "evidence_ngrams", "frequent_ngrams",
           "ngram_segments", "ngram_highlights"]  # the page's tables: its own and those it shares with other views


def mp_per_order(report, metric: str) -> pd.DataFrame:
    """OTEM/UTEM ``mp_n`` per system and order from the summed statistics: ``system, order, mp, matched, total``.

    ``mp`` in 0–1: the share of over-/under-matched n-grams of that order."""
    m = report.metric(metric)
    order = m.order
    rows = []
    for system in report.evalset.systems:
        stats = report.result(metric, system).stats.sum(axis=0)
        mp = m.mp_per_order(stats)
        for n in range(order):
            rows.append({"system": system, "order": n + 1, "mp": float(mp[n]),
                         "matched": int(stats[2 + n]), "total": int(stats[2 + order + n])})
    return pd.DataFrame(rows, columns=["system", "order", "mp", "matched", "total"])


def evidence_ngrams(report, metric: str, system: str, hide_function_words: bool = False) -> pd.DataFrame:
    """:func:`frequent_ngrams` of a metric's n-gram evidence (over-matched for OTEM, under-matched for UTEM).

    ``hide_function_words`` drops the n-grams made only of punctuation and stop words (:func:`function_ngrams`)."""
    evidence = report.evidence(metric, system)
    grams = frequent_ngrams(evidence, "over" if "over" in evidence.columns else "under")
    return content_only(grams, ["ngram"], report.context.tgt_lang) if hide_function_words else grams


def frequent_ngrams(evidence: pd.DataFrame, count: str) -> pd.DataFrame:
    """The over-/under-matched n-grams of one system, most frequent first: ``order, ngram, segments`` and ``count``.

    ``segments``: how many segments have it; ``count``: the summed ``count`` column (over- or under-matched
    occurrences)."""
    if evidence.empty:
        return pd.DataFrame(columns=["order", "ngram", "segments", count])
    frame = evidence.groupby(["order", "ngram"], sort=False).agg(segments=("seg", "nunique"), total=(count, "sum"))
    frame = frame.rename(columns={"total": count}).reset_index()
    return frame.sort_values([count, "segments", "order", "ngram"], ascending=[False, False, True, True],
                             ignore_index=True)


def ngram_segments(evidence: pd.DataFrame, ngram: str, order: int | None = None) -> list[int]:
    """The segments (ascending) whose evidence lists ``ngram``."""
    rows = evidence[evidence["ngram"] == ngram]
    if order is not None:
        rows = rows[rows["order"] == order]
    return sorted(int(s) for s in rows["seg"].unique())


# ----------------------------------------------------------------------------------------------- the view


def _box(report, chosen):
    from mtdiag.views.charts import metric_box

    return metric_box(segment_scores(report, chosen["metric"]), chosen["metric"], seg_ids=report.evalset.seg_ids)


def _mp(report, chosen):
    from mtdiag.views.charts import mp_bars

    return mp_bars(mp_per_order(report, chosen["metric"]), chosen["metric"])


def segments_of(report, metric: str, system: str, ngram: str, order: int) -> list[int]:
    """The segments (0-based, ascending) where ``system``'s output has ``ngram`` over- or under-matched.

    The n-gram is of order ``order``, over- or under-matched by ``metric``."""
    return ngram_segments(report.evidence(metric, system), ngram, order)


VIEW = View(
    name="over_under", title="Over/under-translation",
    help="OTEM/UTEM per segment and system, mp_n per order, and the over- or under-matched n-grams behind them",
    about="OTEM counts repeated (over-matched) n-grams of the output; UTEM counts reference n-grams the output misses "
          "(under-matched). Both 0–100, lower is better (Yang et al. 2018). A segment's score is 0 as soon as one "
          "order has nothing over/under-matched, so read the n-grams, not only the score.",
    needs=("references",),
    options=(
        ViewOption("metric", "Metric", of="metric", empty="OTEM and UTEM were not computed for this data.",
                   choices=lambda report, chosen: [m for m in ("otem", "utem") if m in report.metrics]),
        ViewOption("system", "System", "the system whose n-grams are listed", choices=systems),
        ViewOption("hide_function_words", "Hide punctuation and stop words", "Leave out n-grams made only of "
                   "punctuation, symbols and stop words of the target language.", type=bool, default=True),
    ),
    tables=(
        Table("summary", "Per system",
              lambda report, chosen: distribution_summary(report, chosen["metric"]).reset_index(), uses=("metric",)),
        Table("mp_per_order", "mp_n per order", lambda report, chosen: mp_per_order(report, chosen["metric"]),
              uses=("metric",)),
        Table("ngrams", "Most frequent over- or under-matched n-grams",
              lambda report, chosen: evidence_ngrams(report, chosen["metric"], chosen["system"],
                                                     hide_function_words=chosen["hide_function_words"]),
              uses=("metric", "system", "hide_function_words"),
              caption=lambda report, chosen, frame: f"{len(frame):,} distinct n-grams. Select one to see its "
                                                    "segments."),
    ),
    charts=(Chart("box", "Segment scores (one box per system: median, quartiles, outliers; dashed = mean)", _box,
                  uses=("metric",)),
            Chart("mp_bars", "mp_n per order (share of over- or under-matched n-grams)", _mp, uses=("metric",))),
    details={"segments": segments_of, "highlights": ngram_highlights},
    in_report=False,
)

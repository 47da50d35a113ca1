"""The Human page (human scores and likeness): ORANGE/KING per metric and QUEEN per system (:mod:`mtdiag.analysis.likeness`),
the agreement of every metric with the human scores and the human ranking (:mod:`mtdiag.analysis.human_agreement`), and what the
metric-vs-human scatter plots draw (:func:`human_points`), and when error annotations are loaded the error
statistics per category, per rater and the significance between systems per category (:mod:`mtdiag.analysis.errorstats`:
:func:`error_counts`, :func:`error_raters`, :func:`error_significance`) and the spans mtdiag predicts measured
against those human spans (:func:`span_agreement`: after a Pearmut campaign, the tool's claims checked against the
people who looked), beside the error spans per system and severity that mtdiag predicts (with their predicted MQM),
that the raters marked (with the human MQM) and that imported metrics (xCOMET) predicted (:func:`span_counts`)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from mtdiag.analysis.human_agreement import correlations, human_agreement, human_ranking
from mtdiag.metrics import metric_info
from mtdiag.analysis.likeness import DEFAULT_QUEEN_METRICS, likeness_metrics, plain_words, report_orange_king, report_queen
from mtdiag.spans import DEFAULT_THRESHOLD, predict_spans, severity_counts
from mtdiag.spans.agreement import (SEVERITY_MEASURES, SPAN_MEASURES, character_axis, human_spans,
                                    pairwise_accuracy, rated_pairs, severity_f1, span_measures,
                                    system_accuracy_interval, within_segment_accuracy)
from mtdiag.spans.judge import judged
from mtdiag.views.detail import SPAN_THRESHOLD
from mtdiag.views.base import (Chart, Table, View, ViewOption, default_metric, has_error_annotations,
                               has_human_scores)

__all__ = ["DEFAULT_QUEEN_METRICS", "agreement", "error_counts", "error_raters", "error_significance", "has_error_annotations",
           "has_human_scores", "human_points", "human_agreement", "human_ranking", "opening_section", "SECTIONS",
           "significance_summary", "span_agreement",
           "plain_words", "report_orange_king", "report_queen", "similarity_metrics", "span_counts"]  # the tables


def similarity_metrics(report) -> list[str]:
    """The metrics ORANGE, KING and QUEEN can score references with on the report's set.

    Those that compare a text with a reference, the terminology scores left out
    (:func:`mtdiag.analysis.likeness.likeness_metrics`: they score references and outputs themselves, whether or not the
    report computed them)."""
    evalset = report.evalset
    return [m for m in likeness_metrics(evalset)
            if not m.startswith("term_") and "references" in metric_info(m, evalset).needs]


def human_points(report, metric: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """What the metric-vs-human scatter plots draw: a frame of rated segments and a frame of systems.

    Per rated (system, segment) ``system, seg, human, <metric>``, and per system ``system, human`` (mean over its
    rated segments) and ``<metric>`` (its corpus score)."""
    from mtdiag.analysis.human_agreement import rated_segments

    segments = rated_segments(report, report.evalset.human)[["human", metric]].reset_index()
    means = segments.groupby("system", sort=False)["human"].mean()
    systems = pd.DataFrame({"system": means.index, "human": means.to_numpy(),
                            metric: report.corpus[metric].reindex(means.index).to_numpy()})
    return segments, systems


LENGTH_BASELINE = "length (baseline)"
AGREEMENT_TABLE_COLUMNS = ("metric", "seg_accuracy", "sys_accuracy", "sys_low", "sys_high", "seg_pearson",
                           "seg_kendall", "sys_pearson", "sys_kendall", "n_seg", "n_sys")
MEAN_SCORES = ("predicted_mqm", "predicted_esa")  # a system's score is the mean of its segments' (the interval)


def agreement(report) -> pd.DataFrame:
    """The agreement of every metric with the human scores, with the length baseline below.

    Per metric (:data:`AGREEMENT_TABLE_COLUMNS`) the **within-segment pairwise accuracy** (the systems' outputs of one
    source ordered as the humans order them: the headline for ranking, free of length), the system pairwise accuracy
    (:mod:`mtdiag.spans.agreement`; for predicted MQM and ESA with its 95 % bootstrap interval over the sources,
    ``sys_low``–``sys_high``), then the correlations of :func:`mtdiag.analysis.human_agreement.human_agreement`;
    the last row, ``length (baseline)``, is minus the output's length in characters (a shorter output is better):
    what a correlation reaches without reading a word."""
    from mtdiag.analysis.human_agreement import rated_segments

    table = human_agreement(report)
    segments = rated_segments(report, report.evalset.human)
    segs, systems = segments.index.get_level_values("seg"), segments.index.get_level_values("system")
    human = segments["human"].to_numpy(dtype=float)
    means = segments.groupby(level="system")["human"].mean()
    rows = []
    for metric, row in table.iterrows():
        info = metric_info(metric, report)
        values = info.oriented(segments[metric]).to_numpy(dtype=float)
        corpus = info.oriented(report.corpus[metric]).reindex(means.index).to_numpy(dtype=float)
        interval = (system_accuracy_interval(segs, systems, values, human) if metric in MEAN_SCORES
                    else (float("nan"), float("nan")))
        rows.append({"metric": metric, "seg_accuracy": within_segment_accuracy(segs, values, human)[0],
                     "sys_accuracy": pairwise_accuracy(corpus, means.to_numpy())[0], "sys_low": interval[0],
                     "sys_high": interval[1], **row.to_dict()})
    if len(segments):
        rows.append(_length_row(report, segments))
    return pd.DataFrame(rows, columns=list(AGREEMENT_TABLE_COLUMNS)).astype({"n_seg": "int64", "n_sys": "int64"})


def _length_row(report, segments: pd.DataFrame) -> dict:
    """The :data:`LENGTH_BASELINE` row: minus the output's characters against the human scores."""
    hyps = report.evalset.hyps
    index = segments.index
    length = -np.array([len(str(hyps.at[g, s])) for s, g in index], dtype=float)
    human = segments["human"].to_numpy(dtype=float)
    segs, systems = index.get_level_values("seg"), index.get_level_values("system")
    frame = pd.DataFrame({"system": systems, "length": length, "human": human}).groupby("system").mean()
    seg_r, seg_tau = correlations(length, human)
    sys_r, sys_tau = correlations(frame["length"].to_numpy(), frame["human"].to_numpy())
    low, high = system_accuracy_interval(segs, systems, length, human)
    return {"metric": LENGTH_BASELINE, "seg_accuracy": within_segment_accuracy(segs, length, human)[0],
            "sys_accuracy": pairwise_accuracy(frame["length"], frame["human"])[0], "sys_low": low, "sys_high": high,
            "seg_pearson": seg_r, "seg_kendall": seg_tau, "sys_pearson": sys_r, "sys_kendall": sys_tau,
            "n_seg": len(length), "n_sys": len(frame)}


def error_counts(report, level: str = "top") -> pd.DataFrame:
    """Errors per system × category (``level``: ``full`` or ``top``), per 100 rated segments and per severity.

    Counted by :func:`mtdiag.analysis.errorstats.category_counts`."""
    from mtdiag.analysis.errorstats import category_counts

    return category_counts(report.evalset, level)


def error_raters(report) -> pd.DataFrame:
    """Per rater × system: rated segments, errors, errors per 100 segments, mean MQM score.

    The table of :func:`mtdiag.analysis.errorstats.rater_table`."""
    from mtdiag.analysis.errorstats import rater_table

    return rater_table(report.evalset)


DEFAULT_LEVEL = "top"
"""The error categories the Human page and the report count and test unless asked otherwise: the top level
(Accuracy, Fluency, …). Full categories (Accuracy/Mistranslation, …) are about ten times as many tests over the same
pairs of systems, and Holm's correction multiplies the smallest p by their number: the top level is what a reader
can take in at once, and it keeps the power of the tests; full categories are one choice away."""


def error_significance(report, level: str = DEFAULT_LEVEL) -> pd.DataFrame:
    """Every pair of systems per error category: the exact paired permutation test of the per-segment error count.

    Holm-corrected (:func:`mtdiag.analysis.errorstats.category_significance`), once per report and level."""
    from mtdiag.analysis.errorstats import category_significance

    return report.context.memo(("error_significance", level), lambda: category_significance(report.evalset, level))


def significance_summary(frame: pd.DataFrame) -> str:
    """The error significance table (:func:`error_significance`) in one sentence.

    The same on the page and in the report: how many of its tests — one per pair of systems and category where either
    has an error — are significant, and in how many of the pairs of systems (a pair may differ in several
    categories)."""
    tested = frame[frame["p"].notna()]
    significant = tested[tested["significant"].astype(bool)]
    pairs = frame[["system_a", "system_b"]].drop_duplicates()
    differing = significant[["system_a", "system_b"]].drop_duplicates()
    category = {"full": "category", "top": "top-level category"}[frame.attrs.get("level", "full")]
    return (f"Significant at p_holm < {frame.attrs.get('alpha', 0.05)}: {len(significant):,} of the {len(tested):,} "
            f"tests (one per pair of systems and {category} with an error), in {len(differing):,} of the "
            f"{len(pairs):,} pairs of systems.")


def span_counts(report, threshold: float = DEFAULT_THRESHOLD) -> pd.DataFrame:
    """Per (metric, system): outputs, error spans per severity (critical, major, minor) and in all, and an MQM score.

    The spans mtdiag predicts at ``threshold`` (metric ``mtdiag``, with their predicted MQM) first, then the raters'
    errors (metric ``human``, with the human MQM score) where the set has error annotations, then each imported
    metric's (:func:`mtdiag.spans.severity_counts`)."""
    return severity_counts(report, threshold)


SPAN_AGREEMENT_COLUMNS = ("system", "outputs", "human_spans", *SPAN_MEASURES, *SEVERITY_MEASURES, "predicted_mqm",
                          "human")


def span_agreement(report, threshold: float = DEFAULT_THRESHOLD) -> pd.DataFrame:
    """The error spans mtdiag predicts at ``threshold``, measured against the human spans of the rated outputs.

    The measures are :mod:`mtdiag.spans.agreement`'s, those of ``benchmarks/spans_vs_human.py``: per system and over
    all (``system`` = ``all``, the last row) — ``outputs`` rated, ``human_spans`` (target spans with characters;
    several raters of one output counted each), the predicted ``spans``, their ``precision`` (share overlapping a
    human span), ``major_recall``, character precision, recall and F1 and the share of characters ``marked``, the
    WMT23 character F1 with severity (``sev_p``, ``sev_r``, ``sev_f1``), and the predicted MQM of those outputs (the
    learned judge's, :func:`mtdiag.spans.judge.judged`) beside their ``human`` score (MQM: minus the weighted errors;
    ESA: 0–100), both means over the rated outputs. Empty without rated outputs of the report's systems."""
    evalset = report.evalset
    axis = character_axis(evalset.hyps, rated_pairs(evalset))
    if not axis.pairs:
        return pd.DataFrame(columns=list(SPAN_AGREEMENT_COLUMNS))
    human = human_spans(axis, evalset.annotations)
    predicted = predict_spans(report, threshold)
    system_of = np.array([system for system, _ in axis.pairs], dtype=object)
    segs = np.array([seg for _, seg in axis.pairs], dtype=np.int64)
    predicted_mqm = judged(report)["mqm"].reindex(pd.MultiIndex.from_arrays([system_of, segs])).to_numpy(dtype=float)
    scores = (evalset.human.groupby(["system", "seg"])["score"].mean() if evalset.human is not None
              else pd.Series(dtype=float))
    human_score = scores.reindex(pd.MultiIndex.from_arrays([system_of, segs])).to_numpy(dtype=float)
    rows = []
    for system in [*evalset.systems, None]:
        within = np.ones(len(axis.pairs), dtype=bool) if system is None else system_of == system
        if not within.any():
            continue
        scored = within & np.isfinite(human_score)
        rows.append({"system": "all" if system is None else system, "outputs": int(within.sum()),
                     "human_spans": int(within[human.pair].sum()), **span_measures(human, predicted, within),
                     **severity_f1(human, predicted, within), "predicted_mqm": float(predicted_mqm[within].mean()),
                     "human": float(human_score[scored].mean()) if scored.any() else float("nan")})
    return pd.DataFrame(rows, columns=list(SPAN_AGREEMENT_COLUMNS))


SECTIONS = {"human": "Human scores", "likeness": "ORANGE / KING per metric", "queen": "QUEEN per system",
            "errors": "Error statistics"}
"""The Human page's sections, in the order it offers them."""


def opening_section(report) -> str:
    """The section the Human page opens on: the first of :data:`SECTIONS` this data has.

    The agreement of the metrics with the human scores when they are loaded (``human``: what people judged, which
    the other sections approximate), else ORANGE/KING with two or more references (``likeness``), else the error
    statistics (``errors``: the error annotations when loaded, and the spans mtdiag predicts for every set). It opened
    on ORANGE/KING, which one-reference data cannot have."""
    if has_human_scores(report):
        return "human"
    return "likeness" if len(report.evalset.ref_names) >= 2 else "errors"


# ----------------------------------------------------------------------------------------------- the view

LEVELS = {"full": "Full (Accuracy/Mistranslation)", "top": "Top level (Accuracy)"}


def _similarity(report, chosen) -> list[str]:
    return similarity_metrics(report)


def _orange_king(report, chosen):
    return report_orange_king(report, tuple(chosen["similarity"])) if chosen["similarity"] else None


def _queen(report, chosen):
    return report_queen(report, tuple(chosen["similarity"]), chosen["pool"]) if chosen["similarity"] else None


def orange_king(report, chosen) -> pd.DataFrame | None:
    """ORANGE and KING per metric of the chosen similarity metrics.

    None when the set cannot give them (fewer than two references)."""
    result = _orange_king(report, chosen)
    return None if result is None or result.explanation else result.table.reset_index()


def king_segments(report, chosen) -> pd.DataFrame | None:
    """KING per segment (``seg``, one column per metric), None when the set cannot give it."""
    result = _orange_king(report, chosen)
    return None if result is None or result.explanation else result.segments.reset_index()


def queen_table(report, chosen) -> pd.DataFrame | None:
    """QUEEN per system over the chosen similarity metrics, None when the set cannot give it."""
    result = _queen(report, chosen)
    return None if result is None or result.explanation else result.systems.rename("queen").reset_index()


def queen_segments(report, chosen) -> pd.DataFrame | None:
    """QUEEN per segment and system, None when the set cannot give it."""
    result = _queen(report, chosen)
    return None if result is None or result.explanation else result.segments.reset_index()


def _unavailable(result_of):
    def why(report, chosen) -> str:
        if not chosen["similarity"]:
            return "Choose at least one metric."
        # the explanation says how many references the set has; the page adds where to find a set with several
        return f"{result_of(report, chosen).explanation}. Or pick a set with several references (e.g. wmt21.en-de)."

    return why


def _orange_king_caption(report, chosen, frame) -> str:
    n = len(report.evalset.systems)
    return (f"A random metric has ORANGE 0.5 and KING 1/{n} = {1 / n:.3f}. tie_share: comparisons where human and "
            "system score exactly the same (ties count for the human).")


def _raters_caption(report, chosen, frame) -> str:
    note = frame.attrs.get("note") if frame is not None else None
    return ("Per rater and system: rated segments, errors, errors per 100 segments and the mean MQM score (minus the "
            "summed error weights; a clean output scores 0)." + (f" Note: {note}." if note else ""))


def _significance_caption(report, chosen, frame) -> str:
    return ("Exact paired permutation test (sign flip) of the per-segment error count over the segments both systems "
            "were rated on; p_holm: Holm-corrected over every test (a pair of systems in a category where neither "
            "has an error is not tested). " + significance_summary(frame))


def _likeness_chart(value: str, x: str, title: str, table):
    def build(report, chosen):
        from mtdiag.views.charts import likeness_bars

        frame = table(report, chosen)
        reference = {"orange": 0.5, "king": 1 / len(report.evalset.systems)}.get(value)
        return None if frame is None else likeness_bars(frame, value, x, title, reference)

    return build


def _human_chart(which: int):
    def build(report, chosen):
        from mtdiag.views.charts import human_scatter

        frame = human_points(report, chosen["metric"])[which]
        seg_ids = report.evalset.seg_ids if which == 0 else None
        return human_scatter(frame, chosen["metric"], within=report, seg_ids=seg_ids)

    return build


def plain(report, table: pd.DataFrame) -> list[str]:
    """The ORANGE/KING table (:func:`orange_king`) in plain words (:func:`mtdiag.analysis.likeness.plain_words`)."""
    return plain_words(table.set_index("metric"), len(report.evalset.systems), report.evalset)


LIKENESS, QUEEN = ("similarity",), ("similarity", "pool")
AGREEMENT_TEXT = (
    "Read seg_accuracy first: the share of pairs of systems on one source that the metric orders as the humans do "
    "(ties by the humans left out) — comparing outputs of the same source, it is free of length. sys_accuracy: the "
    "share of system pairs ordered as the humans order them (predicted MQM / ESA: with the 95 % bootstrap interval "
    "over the sources, sys_low–sys_high). Then Pearson and Kendall, positive = agrees with the humans "
    "(lower-is-better metrics negated), segment level over every rated (system, segment), system level each "
    "system's mean human score against its corpus score. The last row, length (baseline), is minus the output's "
    "length: an MQM score sums errors, so a segment correlation near that row's is length, not judgement.")

SPAN_AGREEMENT_TEXT = (
    "The error spans mtdiag predicts (at the confidence on the right) measured against the human spans of the rated "
    "outputs, per system and over all — the measures of docs/spans.md: precision (share of predicted spans that "
    "overlap a human span), major recall, character precision/recall/F1 and the share of characters marked, and "
    "the WMT23 character F1 with severity (sev_*); beside them the predicted MQM of those outputs and their human "
    "score (MQM: minus the weighted errors; ESA: 0–100). After a Pearmut campaign with mtdiag's spans pre-filled, the "
    "annotators saw the predictions: a kept span counts as agreement, so these figures are an upper bound of what "
    "independent annotators would confirm (docs/pearmut.md).")

VIEW = View(
    name="human", title="Human scores & likeness",
    help="ORANGE/KING per metric and QUEEN per system (Amigó et al. 2006), agreement of every metric with human "
         "scores, the human error statistics per category and rater, and the predicted error spans per system and "
         "severity",
    about="With several references, a good metric should score a human translation at least as high as the systems "
          "(ORANGE: how often; KING: how often above every system), and a human-like system should be as close to a "
          "reference as the other references are (QUEEN) — Amigó et al. 2006. With human scores, how well each "
          "metric agrees with them.",
    options=(
        ViewOption("similarity", "Similarity metrics", "the metrics ORANGE, KING and QUEEN score references with",
                   choices=_similarity, many=True, of="metric",
                   default=lambda report, chosen: list(DEFAULT_QUEEN_METRICS)),
        ViewOption("pool", "Pool reference pairs over segments", "Compare with the reference pairs of every segment "
                   "(the paper's choice with three references) instead of the segment's own.", type=bool,
                   default=False),
        ViewOption("metric", "Metric", "the metric drawn against the human scores",
                   choices=lambda report, chosen: list(report.metrics), of="metric",
                   default=lambda report, chosen: default_metric(report.metrics), needs=("human",)),
        ViewOption("level", "Categories", "the error categories counted and tested", choices=tuple(LEVELS),
                   describe=LEVELS, default=DEFAULT_LEVEL),
        SPAN_THRESHOLD,
    ),
    tables=(
        Table("orange_king", "ORANGE / KING per metric", orange_king, needs=("references",), uses=LIKENESS,
              caption=_orange_king_caption, empty=_unavailable(_orange_king)),
        Table("king_segments", "KING per segment", king_segments, needs=("references",), uses=LIKENESS,
              empty=_unavailable(_orange_king)),
        Table("queen", "QUEEN per system", queen_table, needs=("references",), uses=QUEEN,
              caption="QUEEN: share of reference triples ⟨r, r′, r″⟩ where the system is at least as close to r as "
                      "r′ is to r″ on every metric of X.", empty=_unavailable(_queen)),
        Table("queen_segments", "QUEEN per segment", queen_segments, needs=("references",), uses=QUEEN,
              empty=_unavailable(_queen)),
        Table("agreement", "Agreement with the human scores", lambda report, chosen: agreement(report),
              needs=("human",), uses=(), caption=AGREEMENT_TEXT),
        Table("ranking", "Human ranking", lambda report, chosen: human_ranking(report).reset_index(),
              needs=("human",), uses=(),
              caption="Mean human score per rated system (references included when rated), best first."),
        Table("error_counts", "Errors per system and category",
              lambda report, chosen: error_counts(report, chosen["level"]), needs=("annotations",), uses=("level",),
              caption="Every rater's errors (No-error and neutral rows are no errors); per_100: errors per 100 rated "
                      "segments of the system; one column per severity."),
        Table("error_raters", "Errors per rater", lambda report, chosen: error_raters(report),
              needs=("annotations",), uses=(), caption=_raters_caption),
        Table("error_significance", "Significance between systems, per category",
              lambda report, chosen: error_significance(report, chosen["level"]), needs=("annotations",),
              uses=("level",), caption=_significance_caption),
        Table("span_agreement", "mtdiag's predicted spans against the human error spans",
              lambda report, chosen: span_agreement(report, chosen["span_threshold"]), needs=("annotations",),
              uses=("span_threshold",), caption=SPAN_AGREEMENT_TEXT),
        Table("span_counts", "Error spans per system and severity, with predicted and human MQM: predicted by "
                             "mtdiag, marked by the raters, predicted by imported metrics",
              lambda report, chosen: span_counts(report, chosen["span_threshold"]), uses=("span_threshold",),
              caption="Critical, major and minor error spans per system: those mtdiag predicts (metric mtdiag, at the "
                      "confidence set on the right; docs/spans.md), those the raters marked (human, over the rated "
                      "outputs) and those each imported metric predicted (e.g. xCOMET, uploaded under 'Human error "
                      "spans and metric scores'). mqm: predicted MQM of mtdiag's spans (minus the confidence-weighted "
                      "count, minor 1, major 5, critical 10, and the missing reference words, per output) beside the "
                      "human MQM score."),
    ),
    charts=(
        Chart("orange", "ORANGE per metric", _likeness_chart("orange", "metric", "ORANGE", orange_king),
              needs=("several_references",), uses=LIKENESS),
        Chart("king", "KING per metric", _likeness_chart("king", "metric", "KING", orange_king),
              needs=("several_references",), uses=LIKENESS),
        Chart("queen", "QUEEN per system", _likeness_chart("queen", "system", "QUEEN", queen_table),
              needs=("several_references",), uses=QUEEN),
        Chart("human_segments", "Segments: the metric against the human scores", _human_chart(0), needs=("human",),
              uses=("metric",)),
        Chart("human_systems", "Systems: mean human score against corpus score", _human_chart(1), needs=("human",),
              uses=("metric",)),
    ),
    details={"plain_words": plain, "sections": lambda report: dict(SECTIONS), "opening_section": opening_section},
)

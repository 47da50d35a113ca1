"""The Metrics-vs-humans page: every metric — imported (a WMT release's ~70, COMET …) and the tool's own, predicted
MQM included — put on trial against the human scores, as WMT's metrics task does every year
(:mod:`mtdiag.analysis.metrics_vs_humans`; definitions, decisions and a worked example: ``docs/meta-evaluation.md``):
the statistics per metric with bootstrap intervals and WMT-style clusters, the same per group of segments (domain,
document, length), the human system scores as published beside the tool's means, and where a chosen metric
disagrees most with the people (both scores, the human error spans and the metric's own spans).

A slice (``--where``, the slice box) is a report of its own: every table here is then the slice's."""

from __future__ import annotations

import numpy as np
import pandas as pd

from mtdiag.analysis import metrics_vs_humans as mvh
from mtdiag.analysis.segment_groups import LENGTH_ORDER, bucketing, describe, dimensions
from mtdiag.metrics import metric_info
from mtdiag.views.base import Chart, Table, View, ViewOption, default_metric
from mtdiag.views.detail import (SPAN_THRESHOLD, human_error_evidence, metric_error_evidence,
                                 predicted_error_evidence, side_tokens)

__all__ = ["GROUPINGS", "disagreement_rows", "group_rows", "metric_rows"]

GROUPINGS = ("label:domain", "label:doc", "src_length", "ref_length")
"""The breakdowns offered first (those the data has, in this order), then any other label column: dimensions of
:mod:`mtdiag.analysis.segment_groups` that are the same for every system of a segment (grouping by the human score
or its errors would select on the very scores under test)."""


def _statistics(report, chosen) -> list[str]:
    """The statistics the data can give: the segment-level ones need human segment scores."""
    segment_level = report.evalset.human is not None and len(report.evalset.human) > 0
    return [s for s in mvh.STATISTICS if segment_level or s.startswith("system_")]


def _first_statistic(report, chosen) -> str:
    return _statistics(report, chosen)[0]


def _groupings(report, chosen) -> list[str]:
    offered = [d for d in dimensions(report) if d in GROUPINGS or d.startswith("label:")]
    return sorted(offered, key=lambda d: (GROUPINGS.index(d) if d in GROUPINGS else len(GROUPINGS), d))


def _judged(report, chosen) -> list[str]:
    return mvh.judged_metrics(report)


def _first_judged(report, chosen) -> str | None:
    """The metric whose disagreements are shown first: the first imported metric with segment scores (the reason a
    release is opened), else the page's default metric."""
    judged = mvh.judged_metrics(report)
    imported = [spec.name for spec in report.evalset.imported
                if spec.name in judged and report.segments[spec.name].notna().any()]
    return imported[0] if imported else default_metric(judged)



def metric_rows(report, chosen) -> pd.DataFrame:
    """:func:`mtdiag.analysis.metrics_vs_humans.metric_table`, best first by the chosen statistic."""
    table = mvh.metric_table(report, chosen["samples"], chosen["seed"])
    ranked = table.sort_values(chosen["statistic"], ascending=False, na_position="last", kind="stable")
    ranked = ranked.reset_index(drop=True)
    ranked.attrs = dict(table.attrs)
    return ranked


def group_rows(report, chosen) -> pd.DataFrame | None:
    """:func:`mtdiag.analysis.metrics_vs_humans.group_table` along the chosen dimension."""
    by = chosen["group_by"]
    if by is None:
        return None
    buckets = bucketing(report, by)
    order = LENGTH_ORDER if by.endswith("_length") else buckets.order
    return mvh.group_table(report, np.asarray(buckets.labels[0], dtype=object), order)


def disagreement_rows(report, chosen) -> pd.DataFrame | None:
    """:func:`mtdiag.analysis.metrics_vs_humans.disagreements` of the chosen metric.

    For predicted MQM, with the spans mtdiag predicts at the span threshold: they are that metric's own spans."""
    metric = chosen["metric"]
    if metric is None:
        return None
    if metric != "predicted_mqm":
        return mvh.disagreements(report, metric, chosen["rows"])
    from mtdiag.spans import predict_spans

    return mvh.disagreements(report, metric, chosen["rows"], predict_spans(report, chosen["span_threshold"]),
                             span_label="kind")


def marked_output(report, system: str, seg: int, metric: str, threshold: float) -> tuple:
    """What the page draws of one disagreement: (the output's tokens, its spans, their legend).

    The spans: the human error spans and the metric's own — a metric's spans file, or for predicted MQM the spans
    mtdiag predicts at ``threshold``. Only those: a disagreement is about these two, and the segment's whole evidence
    (every check) is the Segments page's."""
    evidence = [human_error_evidence(report, system, seg)]
    names = {metric.lower(), metric.rsplit("-", 1)[0].lower()}  # a spans file names XCOMET-XL, the scores -refA
    if report.evalset.metric_spans is not None and report.evalset.metric_spans["metric"].str.lower().isin(names).any():
        evidence.append(metric_error_evidence(report, system, seg))
    if metric == "predicted_mqm":
        from mtdiag.spans import predict_spans

        evidence.append(predicted_error_evidence(report, system, seg,
                                                 predict_spans(report, threshold, segments=(seg,))))
    found = [e for e in evidence if e is not None]
    spans = [span for e in found for span in e.hyp_spans
             if not span.kind.startswith("metric_") or span.title.split(":")[0].lower() in names]

    legend = list(dict.fromkeys(kind for e in found for kind in e.legend))
    return side_tokens(report, system, seg), spans, legend


def _metrics_caption(report, chosen, frame) -> str:
    systems = "published (the release's .sys.score)" if frame.attrs.get("published") else \
        "the mean of each system's rated segments"
    return (f"{len(frame)} metrics against the human scores, best first by {mvh.STATISTICS[chosen['statistic']]}. "
            "segment_pearson: Pearson over every rated (system, segment) pair; within_segment_accuracy: pairs of "
            "systems on one source that the humans tell apart, ordered alike (a metric tie earns ½); "
            f"system_accuracy and system_pearson: system scores — human {systems}, metric its corpus score (a "
            "release's own .sys.score). _low/_high: 95% bootstrap interval over source segments "
            f"({frame.attrs.get('samples', 0):,} resamples); _rank: WMT-style cluster from the same resamples, 1 = "
            "tied with the best. acc_t: WMT23's tie-calibrated accuracy (human ties kept, threshold ε tuned), "
            "comparable with published tables; within_segment_accuracy is not." + (
                "" if "predicted_mqm" in report.metrics else " mtdiag's predicted MQM was not computed for this data "
                "(on a large WMT release it is on request: the sidebar's 'Also score with TER and predicted MQM')."))



def _groups_caption(report, chosen, frame) -> str:
    return (f"The statistics within each group of {describe(chosen['group_by'])}: system scores are the group's "
            "means and corpus scores (published system scores describe the whole set). No intervals here: open a "
            "group as a slice (doc == \"…\", domain == \"…\") to get them.")


def _disagreement_caption(report, chosen, frame) -> str:
    label = metric_info(chosen["metric"], report).label
    return (f"The (system, segment) pairs {label} ranks most differently from the humans, worst first: gap = the "
            "metric's percentile among the rated outputs minus the human score's (positive: the metric thinks "
            "better of the output than the people did). human_errors: the raters' spans; metric_errors: the "
            "metric's own spans where its files give them (predicted MQM: the spans mtdiag predicts).")


def _chart(report, chosen):
    from mtdiag.views.charts import interval_bars

    frame = metric_rows(report, chosen)
    return interval_bars(frame, chosen["statistic"], mvh.STATISTICS[chosen["statistic"]])


TRIAL = ("statistic", "samples", "seed")

VIEW = View(
    name="meta_evaluation", title="Metrics vs humans",
    help="every metric — imported and mtdiag's own — against the human scores: segment Pearson, within-segment and "
         "system pairwise accuracy, system Pearson, bootstrap intervals, which metrics are tied with the best, per "
         "group, and where a metric disagrees most with the people",
    about="Which metric agrees with the humans on this data, and where does it not? Each metric's statistics as WMT's "
          "metrics task computes them, with 95% bootstrap intervals over source segments and WMT-style clusters "
          "(rank 1: tied with the best); per domain, document or length; and the outputs a chosen metric ranks most "
          "differently from the people. Definitions: docs/meta-evaluation.md.",
    needs=("human_system_scores",),
    options=(
        ViewOption("statistic", "Rank metrics by", "the statistic the table and the chart order the metrics by",
                   choices=_statistics, default=_first_statistic, describe=mvh.STATISTICS),
        ViewOption("samples", "Resamples", "bootstrap resamples of the source segments", type=int,
                   default=mvh.DEFAULT_SAMPLES, minimum=1, maximum=10_000),
        ViewOption("seed", "Seed", "the random seed of the bootstrap", type=int, default=mvh.DEFAULT_SEED),
        ViewOption("group_by", "Groups", "the breakdown: one group per domain, document or length band",
                   choices=_groupings, describe=describe,
                   empty="This data has no segment field to group by (domain, document, length)."),
        ViewOption("metric", "Metric", "the metric whose disagreements with the humans are listed",
                   choices=_judged, default=_first_judged, of="metric", needs=("human",)),
        ViewOption("rows", "Rows", "how many disagreements to list", type=int, default=50, minimum=1,
                   maximum=10_000),
        SPAN_THRESHOLD,
    ),
    tables=(
        Table("metrics", "Metrics against the human scores", metric_rows, uses=TRIAL, caption=_metrics_caption),
        Table("groups", "Per group", group_rows, uses=("group_by",), caption=_groups_caption,
              empty="No segment field to group by."),
        Table("disagreements", "Where the metric disagrees with the humans", disagreement_rows, needs=("human",),
              uses=("metric", "rows", "span_threshold"), caption=_disagreement_caption),
        Table("systems", "Human system scores: published and the mean of the rated segments",
              lambda report, chosen: mvh.system_table(report), uses=(),
              caption="published: the release's system score (whole set); mean: over the system's rated segments "
                      "in this data; in_set: whether the system is one of the outputs scored here (human outputs "
                      "are left out unless included)."),
    ),
    charts=(Chart("intervals", "The chosen statistic per metric, with its 95% interval", _chart, uses=TRIAL),),
    details={"marked_output": marked_output},
)


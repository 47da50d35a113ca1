"""The Distributions page: every segment metric per system, and any two metrics against each other."""

from __future__ import annotations

from typing import Sequence

import pandas as pd

from mtdiag.metrics import metric_info
from mtdiag.views.base import Chart, Table, View, ViewOption, default_metric


def segment_metrics(report) -> list[str]:
    """The metrics with segment scores in the report (a distribution needs them)."""
    return [m for m in report.metrics if metric_info(m, report).segment_level and m in report.segments.columns]


def spread_metric(report) -> str | None:
    """The metric the page opens on: the default metric when its segment scores spread, else the first that does.

    The default is :func:`mtdiag.views.default_metric` (chrF, else BLEU); scores spread when their interquartile
    range is above 0. When none spreads, the default — never OTEM's boxes flat at 0 when another metric tells the
    systems apart."""
    metrics = segment_metrics(report)
    first = default_metric(metrics)
    ordered = [first, *(m for m in metrics if m != first)] if first is not None else []
    for metric in ordered:
        values = report.segments[metric].astype(float)
        q1, q3 = values.quantile([0.25, 0.75])
        if q3 > q1:
            return metric
    return first


def scatter_axes(metrics: Sequence[str]) -> tuple[str, str]:
    """The two metrics a metric-vs-metric scatter opens on: the default metric across, TER up (else the second).

    Across: :func:`mtdiag.views.default_metric`; up: TER (an edit rate against a character F-score) when computed,
    else the second metric."""
    return default_metric(metrics), default_metric(metrics, ("ter", metrics[min(1, len(metrics) - 1)]))


def distribution_summary(report, metric: str) -> pd.DataFrame:
    """Per system: corpus score, mean and median segment score, share of segments above 0, and segments."""
    seg = report.segments[metric]
    grouped = seg.groupby(level="system", sort=False)
    frame = pd.DataFrame({
        "corpus": report.corpus[metric],
        "segment_mean": grouped.mean(),
        "segment_median": grouped.median(),
        "share_above_0": grouped.apply(lambda s: float((s > 0).mean())),
        "segments": grouped.size(),
    })
    frame.index.name = "system"
    return frame.reindex(report.evalset.systems)


SCATTER_POINTS = 5_000  # a scatter shows at most this many points (a seeded random sample beyond)


def sample_rows(frame: pd.DataFrame, limit: int = SCATTER_POINTS, seed: int = 0) -> pd.DataFrame:
    """``frame`` itself when it has at most ``limit`` rows, else a seeded random sample of ``limit`` rows.

    The sample keeps the rows' original order (``attrs["total"]`` keeps the full count, for a "showing n of N"
    caption): 15,000 points in one scatter are one mass, a uniform sample shows the same shape."""
    total = len(frame)
    out = frame if total <= limit else frame.sample(n=limit, random_state=seed).sort_index()
    out = out.copy()
    out.attrs["total"] = total
    return out


def metric_pairs(report, x: str, y: str, limit: int = SCATTER_POINTS) -> pd.DataFrame:
    """Per (system, segment): the segment scores of two metrics (``system, seg, X, Y``), for a scatter.

    Rows with either undefined are left out; at most ``limit`` of them (:func:`sample_rows`)."""
    return sample_rows(report.segments[list(dict.fromkeys([x, y]))].dropna().reset_index(), limit)


def segment_scores(report, metric: str) -> pd.DataFrame:
    """Per (system, segment): one metric's segment score (``system, seg, score``), for per-system distributions.

    Undefined scores are left out."""
    return report.segments[metric].dropna().rename("score").reset_index()


# ----------------------------------------------------------------------------------------------- the view


def _box(report, chosen):
    from mtdiag.views.charts import metric_box

    return metric_box(segment_scores(report, chosen["metric"]), chosen["metric"], chosen["plot"], within=report,
                      seg_ids=report.evalset.seg_ids)


def _scatter(report, chosen):
    from mtdiag.views.charts import metric_scatter

    return metric_scatter(metric_pairs(report, chosen["x"], chosen["y"]), chosen["x"], chosen["y"], within=report,
                          seg_ids=report.evalset.seg_ids)


def _metrics(report, chosen) -> list[str]:
    return segment_metrics(report)


def _scatter_caption(report, chosen, figure) -> str:
    total = int(report.segments[list(dict.fromkeys([chosen["x"], chosen["y"]]))].notna().all(axis=1).sum())
    shown = min(total, SCATTER_POINTS)
    return f"Showing {shown:,} of {total:,} segments" + (" (a random sample)." if shown < total else ".")


BOX_CAPTION = ("Box: median and quartiles, whiskers at 1.5 × the interquartile range, points beyond them drawn, dashed "
               "line = mean. When a few scores lie far out, the axis stops at their 1st/99th percentile and they are "
               "drawn at its edge (▲/▼, hover for the value), so one outlier cannot squash every box; the boxes and "
               "the table below use every score.")

VIEW = View(
    name="distributions", title="Distributions",
    help="every segment metric per system (box or violin plots), and any two metrics against each other",
    about="How each system's segment scores spread, not only their corpus value: a system can win on average and "
          "still have more disasters.",
    options=(
        ViewOption("metric", "Metric", choices=_metrics, of="metric",
                   default=lambda report, chosen: spread_metric(report),
                   empty="No segment-level metric was computed for this data."),
        ViewOption("plot", "Plot", choices=("box", "violin")),
        ViewOption("x", "x", "the metric across", choices=_metrics, of="metric",
                   default=lambda report, chosen: scatter_axes(segment_metrics(report))[0]),
        ViewOption("y", "y", "the metric up", choices=_metrics, of="metric",
                   default=lambda report, chosen: scatter_axes(segment_metrics(report))[1]),
    ),
    tables=(Table("summary", "Per system",
                  lambda report, chosen: distribution_summary(report, chosen["metric"]).reset_index(),
                  uses=("metric",)),),
    charts=(Chart("box", "Segment scores per system", _box, uses=("metric", "plot"), caption=BOX_CAPTION),
            Chart("scatter", "One metric against another", _scatter, uses=("x", "y"), caption=_scatter_caption)),
    in_report=False,
)

"""Plotly figures for the dashboard. Each takes a frame from :mod:`mtdiag.views` and returns a figure; nothing
is computed here beyond what drawing needs. Built with ``plotly.graph_objects`` directly (plotly.express costs
~10x more per figure, which a first render and a rerun feel).

Plotly draws names, tick labels and hover text as its own small HTML (``<b>``, ``<a href>``, entities): every
user-derived name (systems, references) goes through :func:`_text` (HTML-escaped; plotly shows the entities as
the literal characters), and a hover template never embeds a name (``%{…}`` in a name would be a placeholder) —
it reads the escaped trace name through ``%{fullData.name}``. Segment numbers are shown 1-based."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from mtdiag.core import highlight
from mtdiag.metrics import metric_info

SCATTER_SVG_MAX = 3000  # above this many points a scatter is drawn with WebGL
PALETTE = ["#2563eb", "#dc2626", "#16a34a", "#9333ea", "#ea580c", "#0891b2", "#db2777", "#65a30d", "#4f46e5",
           "#ca8a04", "#0d9488", "#be123c", "#7c3aed", "#0284c7", "#b45309", "#15803d"]
BEST, OTHER = "#1d4ed8", "#93c5fd"
MARGIN = dict(t=40, b=30, l=50, r=20)
TICK_ANGLE = 40  # degrees: system names under bars are drawn slanted
LABEL_CHAR_PX = 7.0  # width of a tick label's character at plotly's 12 px font (a generous average)
PANEL_PX = 260  # height of one small bar chart's plot area
TITLE_PX = 28  # a subplot title above its panel


def segment_numbers(seg: pd.Series, seg_ids=None) -> np.ndarray:
    """The numbers people see for 0-based segments ``seg`` (hover texts).

    ``seg_ids[seg]`` — the set's :attr:`~mtdiag.core.evalset.EvalSet.seg_ids`, a slice's original ids — or
    ``seg + 1`` without them."""
    positions = seg.to_numpy(dtype=np.int64)
    return positions + 1 if seg_ids is None else np.asarray(seg_ids)[positions]


def _label(metric: str, within=None) -> str:
    return metric_info(metric, within).arrow_label


def _text(name) -> str:
    """A user-derived name as plotly text: shown literally, never as plotly's HTML subset."""
    return highlight.escape(name)


def _texts(names) -> list[str]:
    return [_text(n) for n in names]


def colours(names) -> dict[str, str]:
    """One stable colour per system (in the given order)."""
    return {name: PALETTE[i % len(PALETTE)] for i, name in enumerate(dict.fromkeys(names))}


def tick_label_px(names) -> int:
    """Pixels a row of x tick labels slanted by :data:`TICK_ANGLE` takes below its axis (the longest name)."""
    longest = max((len(str(n)) for n in names), default=0)
    return int(math.ceil(longest * LABEL_CHAR_PX * math.sin(math.radians(TICK_ANGLE)))) + 14


def corpus_bars(corpus: pd.DataFrame, best: pd.DataFrame | None = None, errors: pd.DataFrame | None = None,
                columns: int = 4, within=None) -> go.Figure:
    """One small bar chart per metric (own y axis), one bar per system; the best system's bar is darker.

    ``corpus``: index system, one column per metric; ``best``: the boolean frame of
    :func:`mtdiag.views.overview.best_mask`; ``errors`` (optional): ``system, metric, lo, hi`` confidence intervals;
    ``within``: the report, which names imported metrics (every chart below takes it too).

    Every row of charts gets room for its slanted system names (:func:`tick_label_px`) under it — between rows
    (the gap holds them and the next row's titles) and under the last one (the bottom margin): a fixed spacing cut
    the names of a row once they were long (the HTML report's second row).
    """
    metrics = list(corpus.columns)
    cols = max(1, min(columns, len(metrics)))
    rows = math.ceil(len(metrics) / cols)
    labels = tick_label_px(corpus.index)
    gap = labels + TITLE_PX
    plot_px = rows * PANEL_PX + (rows - 1) * gap
    fig = make_subplots(rows=rows, cols=cols, subplot_titles=[_label(m, within) for m in metrics],
                        vertical_spacing=gap / plot_px if rows > 1 else 0.0, horizontal_spacing=0.06)
    systems = list(corpus.index)
    for i, metric in enumerate(metrics):
        values = corpus[metric].to_numpy(dtype=float)
        marks = [bool(best.at[s, metric]) for s in systems] if best is not None else [False] * len(systems)
        error_y = None
        if errors is not None and len(errors):
            rows_m = errors[errors["metric"] == metric].set_index("system").reindex(systems)
            if rows_m["lo"].notna().any():
                error_y = dict(type="data", symmetric=False, array=np.clip(rows_m["hi"].to_numpy() - values, 0, None),
                               arrayminus=np.clip(values - rows_m["lo"].to_numpy(), 0, None), color="#374151",
                               thickness=1.2, width=3)
        fig.add_trace(go.Bar(x=_texts(systems), y=values, marker_color=[BEST if b else OTHER for b in marks],
                             error_y=error_y, showlegend=False, name=metric_info(metric, within).label,
                             hovertemplate="%{x}: %{y:.4g}<extra></extra>"),
                      row=i // cols + 1, col=i % cols + 1)
    fig.update_xaxes(tickangle=-TICK_ANGLE, automargin=True)
    fig.update_annotations(font_size=13)
    margin = dict(MARGIN, b=labels + 10)
    fig.update_layout(height=plot_px + margin["t"] + margin["b"], bargap=0.25, margin=margin)
    return fig


def mp_bars(frame: pd.DataFrame, metric: str, within=None) -> go.Figure:
    """``mp_n`` per order (x) and system (colour): the share of over-/under-matched n-grams."""
    palette = colours(frame["system"])
    fig = go.Figure()
    for system, rows in frame.groupby("system", sort=False):
        fig.add_trace(go.Bar(x=rows["order"].astype(str), y=rows["mp"], name=_text(system),
                             marker_color=palette[system],
                             customdata=rows[["matched", "total"]].to_numpy(),
                             hovertemplate="%{fullData.name}, order %{x}: %{y:.2%} (%{customdata[0]} of "
                                           "%{customdata[1]})<extra></extra>"))
    label = metric_info(metric, within).label
    fig.update_layout(barmode="group", height=340, xaxis_title="n-gram order",
                      yaxis=dict(title=f"{label} mp_n", tickformat=".1%"), margin=MARGIN)
    return fig


def waft_neva_scatter(frame: pd.DataFrame, seg_ids=None) -> go.Figure:
    """NEVA (y) against WAFT (x) per segment, coloured by system; the NEVA > WAFT half shaded.

    What it does and does not mean: :data:`mtdiag.triage.checks.word_order.NEVA_ABOVE_WAFT`."""
    palette = colours(frame["system"])
    kind = go.Scatter if len(frame) <= SCATTER_SVG_MAX else go.Scattergl
    fig = go.Figure()
    for system, rows in frame.groupby("system", sort=False):
        fig.add_trace(kind(x=rows["waft"], y=rows["neva"], mode="markers", name=_text(system),
                           marker=dict(color=palette[system], size=6, opacity=0.7),
                           customdata=segment_numbers(rows["seg"], seg_ids),
                           hovertemplate="%{fullData.name}, segment %{customdata}<br>WAFT %{x:.3f}, NEVA %{y:.3f}"
                                         "<extra></extra>"))
    fig.add_shape(type="path", path="M 0 0 L 0 1 L 1 1 Z", fillcolor="rgba(220,38,38,0.08)", line_width=0,
                  layer="below")
    fig.add_shape(type="line", x0=0, y0=0, x1=1, y1=1, line=dict(color="rgba(120,120,120,0.8)", dash="dash"))
    fig.add_annotation(x=0.2, y=0.93, text="NEVA > WAFT", showarrow=False,
                       font=dict(color="#b91c1c"))
    fig.update_layout(height=520, xaxis=dict(range=[-0.02, 1.02], title="WAFT ↑ (edit-distance accuracy)"),
                      yaxis=dict(range=[-0.02, 1.02], title="NEVA ↑ (mean n-gram precision)"), margin=MARGIN)
    return fig


def op_bars(counts: pd.DataFrame) -> go.Figure:
    """Substitutions / insertions / deletions per system (stacked)."""
    fig = go.Figure()
    for op, colour in (("substitute", "#f59e0b"), ("insert", "#22c55e"), ("delete", "#ef4444")):
        fig.add_trace(go.Bar(x=_texts(counts.index), y=counts[op], name=op, marker_color=colour))
    fig.update_layout(barmode="stack", height=320, yaxis_title="edit operations", margin=MARGIN)
    return fig


def difference_area(frame: pd.DataFrame, a: str, b: str, seg_ids=None) -> go.Figure:
    """Segment-level advantage of ``a`` over ``b`` (positive = ``a`` better), sorted, as two filled areas."""
    data = frame.dropna(subset=["advantage"]).sort_values("advantage", ascending=False)
    adv = data["advantage"].to_numpy(dtype=float)
    x = np.arange(1, len(adv) + 1)
    numbers = segment_numbers(data["seg"], seg_ids)
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=x, y=np.where(adv > 0, adv, 0), fill="tozeroy", mode="lines", name=f"{_text(a)} better",
                             line=dict(color="#2563eb", width=1), customdata=numbers,
                             hovertemplate="segment %{customdata}: %{y:.3g}<extra></extra>"))
    fig.add_trace(go.Scatter(x=x, y=np.where(adv < 0, adv, 0), fill="tozeroy", mode="lines", name=f"{_text(b)} better",
                             line=dict(color="#dc2626", width=1), customdata=numbers,
                             hovertemplate="segment %{customdata}: %{y:.3g}<extra></extra>"))
    fig.update_layout(height=300, xaxis_title="segments, sorted by advantage", yaxis_title=f"advantage of {_text(a)}",
                      margin=MARGIN)
    return fig


SYMBOLS = ["circle", "square", "diamond", "triangle-up", "x", "star", "triangle-down", "cross", "pentagon",
           "hexagon"]
RANGE_PAD = 0.08  # of an axis's span, on each side: a point at the edge is drawn whole


def padded_range(values) -> list[float] | None:
    """An axis range around ``values`` with :data:`RANGE_PAD` of their span on each side (1 when all equal).

    None without a finite value."""
    finite = np.asarray(values, dtype=float)
    finite = finite[np.isfinite(finite)]
    if not len(finite):
        return None
    low, high = float(finite.min()), float(finite.max())
    pad = (high - low) * RANGE_PAD or 1.0
    return [low - pad, high + pad]


def human_scatter(frame: pd.DataFrame, metric: str, x: str = "human", within=None, seg_ids=None) -> go.Figure:
    """A metric's scores (y) against human scores (x), one point per system or segment, each system its colour.

    Per system, each point also has a shape of its own and the legend names them: systems' means lie close together
    (ten WMT systems within a few MQM points), and names written beside the points overlapped one another and were
    cut at the plot's edge. The axes leave room around the outermost points."""
    palette = colours(frame["system"])
    kind = go.Scatter if len(frame) <= SCATTER_SVG_MAX else go.Scattergl
    per_segment = "seg" in frame.columns
    fig = go.Figure()
    for i, (system, rows) in enumerate(frame.groupby("system", sort=False)):
        text = pd.Series(segment_numbers(rows["seg"], seg_ids)).astype(str).radd("segment ").to_numpy() if per_segment else None
        marker = (dict(color=palette[system], size=6, opacity=0.75) if per_segment else
                  dict(color=palette[system], size=12, opacity=0.85, symbol=SYMBOLS[i % len(SYMBOLS)],
                       line=dict(width=1, color="white")))
        fig.add_trace(kind(x=rows[x], y=rows[metric], mode="markers", name=_text(system), marker=marker, text=text,
                           hovertemplate="%{fullData.name}" + (" %{text}" if per_segment else "")
                                         + "<br>human %{x:.3g}, metric %{y:.4g}<extra></extra>"))
    fig.update_layout(height=420, xaxis_title="human score", yaxis_title=_label(metric, within), margin=MARGIN,
                      showlegend=True)
    if not per_segment:
        fig.update_xaxes(range=padded_range(frame[x]))
        fig.update_yaxes(range=padded_range(frame[metric]))
    return fig


def likeness_bars(frame: pd.DataFrame, value: str, x: str, title: str, reference: float | None = None) -> go.Figure:
    """One bar of ``frame[value]`` per ``frame[x]``, on a 0-1 axis titled ``title``.

    ``reference`` (optional): a dashed line at that height, marked "random"."""
    fig = go.Figure(go.Bar(x=_texts(frame[x]), y=frame[value], marker_color=OTHER,
                           hovertemplate="%{x}: %{y:.3f}<extra></extra>"))
    if reference is not None:
        fig.add_hline(y=reference, line_dash="dash", line_color="gray", annotation_text="random",
                      annotation_position="top left")
    fig.update_layout(height=320, yaxis=dict(title=title, range=[0, 1]), margin=MARGIN)
    return fig


def bucket_bars(table: pd.DataFrame, metric: str, within=None) -> go.Figure:
    """One metric per bucket, one bar per system (grouped); hover shows the bucket's segment count.

    ``table`` is :func:`mtdiag.analysis.segment_groups.bucket_scores`'s long frame ``bucket, system, segments,
    METRIC…``."""
    fig = go.Figure()
    buckets = list(dict.fromkeys(table["bucket"].astype(str)))
    palette = colours(list(dict.fromkeys(table["system"])))
    for system, rows in table.groupby("system", sort=False):
        fig.add_trace(go.Bar(x=_texts(rows["bucket"].astype(str)), y=rows[metric].to_numpy(dtype=float),
                             name=_text(system), marker_color=palette[system], customdata=rows["segments"],
                             hovertemplate="%{fullData.name} · %{x}: %{y:.4g} (%{customdata} segments)<extra></extra>"))
    fig.update_layout(barmode="group", height=380, margin=MARGIN, yaxis_title=_label(metric, within),
                      xaxis=dict(categoryorder="array", categoryarray=_texts(buckets)), legend_title_text="system")
    return fig


def pvalue_heatmap(matrix: pd.DataFrame, clusters: pd.DataFrame) -> go.Figure:
    """The system × system p-values of one metric: dark = the pair differs significantly.

    The p-values are :func:`mtdiag.analysis.significance.pairwise_significance`'s for one metric (rows and columns in
    ranked order; ``clusters``: :func:`~mtdiag.analysis.significance.ranked_clusters`' rows of that metric); each cell
    says its p-value, each axis label its cluster."""
    names = list(matrix.index)
    cluster_of = dict(zip(clusters["system"], clusters["cluster"]))
    labels = [f"{_text(n)} ({cluster_of.get(n, '?')})" for n in names]
    values = matrix.to_numpy(dtype=float)
    text = [["" if np.isnan(v) else f"{v:.3f}" for v in row] for row in values]
    fig = go.Figure(go.Heatmap(z=values, x=labels, y=labels, text=text, texttemplate="%{text}", zmin=0, zmax=0.2,
                               colorscale=[[0, "#1d4ed8"], [0.25, "#93c5fd"], [1, "#f8fafc"]],
                               colorbar=dict(title="p"), hovertemplate="%{y} vs %{x}: p = %{z:.4f}<extra></extra>"))
    fig.update_layout(height=max(320, 34 * len(names) + 120), margin=dict(t=30, b=30, l=10, r=10),
                      yaxis=dict(autorange="reversed"), xaxis=dict(tickangle=-40))
    return fig


AXIS_QUANTILE = 0.99  # a robust axis shows the values between the 1st and the 99th percentile ...
AXIS_STRETCH = 1.0  # ... and cuts a side only where the values beyond reach more than this many such spans further
EDGE_SYMBOL = {"above": "triangle-up", "below": "triangle-down"}


def robust_range(values) -> tuple[float, float] | None:
    """An axis range that one outlier cannot squash, or None when no value is far out.

    One OTEM of 231 put every box near 0. None: the axis covers them all.

    The bulk is the values between the 1st and 99th percentile (:data:`AXIS_QUANTILE`), its *span* their distance.
    A side is cut at its percentile only where the values beyond it reach more than :data:`AXIS_STRETCH` spans
    further — where drawing them would leave the bulk less than half of the axis; a side whose extreme is near
    (chrF 0 under a bulk from 25 to 94) is kept whole. 4 % of the range is added on each side. What lies beyond a
    cut side is drawn at the edge by the charts (:func:`_edge_points`) — the tables keep every number exact."""
    values = np.asarray(values, dtype=float)
    values = values[np.isfinite(values)]
    if len(values) == 0:
        return None
    low, high = np.quantile(values, [1 - AXIS_QUANTILE, AXIS_QUANTILE])
    span = high - low
    if span <= 0:
        return None
    cut_low = values.min() < low - AXIS_STRETCH * span
    cut_high = values.max() > high + AXIS_STRETCH * span
    if not (cut_low or cut_high):
        return None
    lo = low if cut_low else values.min()
    hi = high if cut_high else values.max()
    pad = 0.04 * (hi - lo)
    return float(lo - pad), float(hi + pad)


def _edge_points(values: np.ndarray, axis_range: tuple[float, float]) -> dict[str, np.ndarray]:
    """The positions of the values beyond ``axis_range``, per side (``above``/``below``)."""
    lo, hi = axis_range
    return {"above": np.flatnonzero(values > hi), "below": np.flatnonzero(values < lo)}


def _edge_note(values: np.ndarray, axis_range: tuple[float, float], what: str) -> str | None:
    """One line saying how many values lie beyond a cut axis and how far (None when none does)."""
    sides = _edge_points(values, axis_range)
    parts = []
    if len(sides["above"]):
        parts.append(f"{len(sides['above']):,} above (up to {values[sides['above']].max():.4g}) ▲")
    if len(sides["below"]):
        parts.append(f"{len(sides['below']):,} below (down to {values[sides['below']].min():.4g}) ▼")
    if not parts:
        return None
    return (f"{what} axis cut at the 1st–99th percentile: {' and '.join(parts)} drawn at its edge; hover for the "
            "value, the tables hold every number exactly")


def metric_box(frame: pd.DataFrame, metric: str, kind: str = "box", within=None, seg_ids=None) -> go.Figure:
    """One box (or violin) per system of a metric's segment scores: whiskers at 1.5 IQR, outliers drawn.

    ``frame``: ``system, seg, score``, as :func:`mtdiag.views.distributions.segment_scores`; the mean is marked. The y
    axis is robust (:func:`robust_range`): scores beyond it are drawn at its edge as ▲/▼ with their value on hover,
    and a note says how many; the boxes themselves are computed from every score."""
    palette = colours(frame["system"])
    axis_range = robust_range(frame["score"])
    fig = go.Figure()
    for system, rows in frame.groupby("system", sort=False):
        scores = rows["score"].to_numpy(dtype=float)
        common = dict(y=scores, name=_text(system), marker_color=palette[system], hoverinfo="y+name")
        if kind == "violin":
            fig.add_trace(go.Violin(**common, box_visible=True, meanline_visible=True, points=False))
        else:
            fig.add_trace(go.Box(**common, boxmean=True, boxpoints="outliers"))
        if axis_range is None:
            continue
        for side, where in _edge_points(scores, axis_range).items():
            if len(where):
                edge = axis_range[1] if side == "above" else axis_range[0]
                fig.add_trace(go.Scatter(
                    x=[_text(system)] * len(where), y=np.full(len(where), edge), mode="markers", name=_text(system),
                    cliponaxis=False,
                    marker=dict(color=palette[system], symbol=EDGE_SYMBOL[side], size=10, line=dict(width=1)),
                    customdata=np.column_stack([segment_numbers(rows["seg"], seg_ids)[where],
                                                scores[where]]),
                    hovertemplate="%{fullData.name}, segment %{customdata[0]}: %{customdata[1]:.4g} (beyond the "
                                  "axis)<extra></extra>"))
    fig.update_layout(height=420, showlegend=False, yaxis_title=f"segment {_label(metric, within)}", margin=MARGIN,
                      xaxis=dict(tickangle=-40))
    if axis_range is not None:
        fig.update_yaxes(range=list(axis_range))
        note = _edge_note(frame["score"].to_numpy(dtype=float), axis_range, "y")
        fig.add_annotation(text=note, xref="paper", yref="paper", x=0, y=1.0, yanchor="bottom", showarrow=False,
                           font=dict(size=11, color="#6b7280"), align="left")
        fig.update_layout(margin=dict(MARGIN, t=MARGIN["t"] + 16))
    return fig


def metric_scatter(frame: pd.DataFrame, x: str, y: str, within=None, seg_ids=None) -> go.Figure:
    """Segment scores of two metrics against each other, coloured by system, drawn with WebGL.

    ``frame``: rows of :func:`mtdiag.views.distributions.metric_pairs`, already sampled by
    :func:`mtdiag.views.distributions.sample_rows`. Both axes are robust (:func:`robust_range`): a point beyond one is
    drawn at its edge (hover: its values), and a note says how many."""
    palette = colours(frame["system"])
    ranges = {axis: robust_range(frame[metric]) for axis, metric in (("x", x), ("y", y))}
    fig = go.Figure()
    for system, rows in frame.groupby("system", sort=False):
        shown = {axis: rows[metric].to_numpy(dtype=float) for axis, metric in (("x", x), ("y", y))}
        beyond = np.zeros(len(rows), dtype=bool)
        for axis, axis_range in ranges.items():
            if axis_range is not None:
                beyond |= (shown[axis] < axis_range[0]) | (shown[axis] > axis_range[1])
                shown[axis] = np.clip(shown[axis], *axis_range)
        fig.add_trace(go.Scattergl(x=shown["x"], y=shown["y"], mode="markers", name=_text(system),
                                   marker=dict(color=palette[system], size=np.where(beyond, 8, 5), opacity=0.55,
                                               symbol=np.where(beyond, "diamond-open", "circle")),
                                   customdata=np.column_stack([segment_numbers(rows["seg"], seg_ids),
                                                               rows[x].to_numpy(dtype=float),
                                                               rows[y].to_numpy(dtype=float)]),
                                   hovertemplate="%{fullData.name}, segment %{customdata[0]}<br>%{customdata[1]:.3f}, "
                                                 "%{customdata[2]:.3f}<extra></extra>"))
    fig.update_layout(height=520, xaxis_title=_label(x, within), yaxis_title=_label(y, within), margin=MARGIN)
    notes = []
    for axis, metric in (("x", x), ("y", y)):
        if ranges[axis] is not None:
            getattr(fig, f"update_{axis}axes")(range=list(ranges[axis]))
            note = _edge_note(frame[metric].to_numpy(dtype=float), ranges[axis], axis)
            if note:
                notes.append(note)
    if notes:
        fig.add_annotation(text="<br>".join(notes), xref="paper", yref="paper", x=0, y=1.0, yanchor="bottom",
                           showarrow=False, font=dict(size=11, color="#6b7280"), align="left")
        fig.update_layout(margin=dict(MARGIN, t=MARGIN["t"] + 16 * len(notes)))
    return fig


def interval_bars(frame: pd.DataFrame, statistic: str, title: str) -> go.Figure:
    """One horizontal bar per metric (best at the top): ``frame[statistic]`` with its interval as error bars.

    The interval is ``{statistic}_low``/``_high``; the metrics of rank 1 (``{statistic}_rank``: tied with the best)
    are darker. Metric names come from files (imported metrics): escaped like every name."""
    shown = frame[np.isfinite(frame[statistic].to_numpy(dtype=float))].iloc[::-1]
    values = shown[statistic].to_numpy(dtype=float)
    low, high = shown[f"{statistic}_low"].to_numpy(dtype=float), shown[f"{statistic}_high"].to_numpy(dtype=float)
    error_x = None
    if np.isfinite(low).any():
        error_x = dict(type="data", symmetric=False, array=np.nan_to_num(np.clip(high - values, 0, None)),
                       arrayminus=np.nan_to_num(np.clip(values - low, 0, None)), color="#374151", thickness=1.2,
                       width=3)
    best = shown[f"{statistic}_rank"].to_numpy(dtype=float) == 1
    fig = go.Figure(go.Bar(y=_texts(shown["metric"]), x=values, orientation="h", error_x=error_x, showlegend=False,
                           marker_color=[BEST if b else OTHER for b in best],
                           hovertemplate="%{y}: %{x:.4f}<extra></extra>"))
    longest = max((len(str(m)) for m in shown["metric"]), default=0)
    fig.update_layout(height=max(220, 22 * len(shown) + 80), xaxis_title=title, bargap=0.25,
                      margin=dict(MARGIN, l=int(longest * LABEL_CHAR_PX) + 20))
    return fig

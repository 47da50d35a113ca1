"""mtdiag.views.charts: robust axes (issue 23: one OTEM of 231 squashed every box near 0) on hand-made outliers."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from mtdiag.views import charts


def scores(values_by_system: dict[str, list[float]]) -> pd.DataFrame:
    """A frame like :func:`mtdiag.views.distributions.segment_scores`: ``system, seg, score``."""
    return pd.DataFrame([{"system": system, "seg": seg, "score": value}
                         for system, values in values_by_system.items() for seg, value in enumerate(values)])


def otem_like(n: int = 200, seed: int = 0) -> np.ndarray:
    """Mostly zeros and a few small scores, as OTEM is."""
    rng = np.random.default_rng(seed)
    return np.where(rng.random(n) < 0.6, 0.0, rng.uniform(0, 20, n)).round(2)


def test_one_outlier_does_not_squash_the_axis():
    a, b = otem_like(200, 0), otem_like(200, 1)
    a[17] = 231.0  # the OTEM
    frame = scores({"A": list(a), "B": list(b)})
    low, high = charts.robust_range(frame["score"])
    bulk = np.quantile(frame["score"], 0.99)
    assert high == pytest.approx(bulk + 0.04 * (bulk - 0.0))
    assert low == pytest.approx(-0.04 * bulk)  # the low side has no far value: kept whole (from 0)
    fig = charts.metric_box(frame, "otem")
    assert tuple(fig.layout.yaxis.range) == pytest.approx((low, high))
    edge = [t for t in fig.data if t.type == "scatter"]
    assert len(edge) == 1 and edge[0].name == "A" and edge[0].marker.symbol == "triangle-up"
    assert list(edge[0].y) == [high]
    assert edge[0].customdata.tolist() == [[18, 231.0]]  # segment 18 (1-based), its exact score on hover
    note = fig.layout.annotations[0].text
    assert "1 above (up to 231) ▲" in note and "1st–99th percentile" in note
    boxes = [t for t in fig.data if t.type == "box"]
    assert max(boxes[0].y) == 231.0  # the box statistics still see every score


def test_no_axis_is_cut_without_a_far_outlier():
    spread = np.linspace(25, 94, 300)  # a chrF-like bulk ...
    frame = scores({"A": [0.0, *spread]})  # ... and a total failure at 0: near enough to draw as it is
    assert charts.robust_range(frame["score"]) is None
    fig = charts.metric_box(frame, "chrf", "violin")
    assert fig.layout.yaxis.range is None and not fig.layout.annotations
    assert [t.type for t in fig.data] == ["violin"]


def test_a_far_low_value_is_cut_below_and_drawn_at_the_lower_edge():
    values = [*np.linspace(0.9, 1.1, 300), -40.0]
    q01 = np.quantile(values, 0.01)  # the low side is cut at its percentile, the high side kept to its maximum
    pad = 0.04 * (1.1 - q01)
    assert charts.robust_range(values) == pytest.approx((q01 - pad, 1.1 + pad))
    fig = charts.metric_box(scores({"A": values}), "length_ratio")
    edge = [t for t in fig.data if t.type == "scatter"]
    assert edge[0].marker.symbol == "triangle-down" and list(edge[0].y) == [fig.layout.yaxis.range[0]]


def test_scatter_axes_are_robust_and_far_points_sit_at_the_edge():
    rng = np.random.default_rng(2)
    frame = pd.DataFrame({"system": "A", "seg": range(400), "chrf": rng.uniform(20, 90, 400),
                          "ter": rng.uniform(10, 90, 400)})
    frame.loc[5, "ter"] = 375.0
    fig = charts.metric_scatter(frame, "chrf", "ter")
    assert fig.layout.xaxis.range is None  # chrF has no far value
    low, high = fig.layout.yaxis.range
    assert high < 120
    trace = fig.data[0]
    assert trace.y[5] == pytest.approx(high) and trace.marker.symbol[5] == "diamond-open"
    assert trace.customdata[5][2] == 375.0  # the exact value on hover
    assert "y axis cut" in fig.layout.annotations[0].text and "up to 375" in fig.layout.annotations[0].text


@pytest.mark.parametrize("names", [["A", "B"], ["JDExploreAcademy", "Lan-Bridge-ensemble", "AISP-SJTU-primary"]])
def test_every_row_of_corpus_bars_has_room_for_its_slanted_names(names):
    """Issue 23: the HTML report's second row of bar charts cut its x labels."""
    metrics = ["otem", "utem", "waft", "neva", "bleu", "chrf", "ter", "length_ratio", "term_exact"]  # three rows
    corpus = pd.DataFrame(1.0, index=pd.Index(names, name="system"), columns=metrics)
    fig = charts.corpus_bars(corpus)
    labels = charts.tick_label_px(names)
    assert labels >= max(map(len, names)) * 7 * np.sin(np.radians(40))
    plot_px = fig.layout.height - fig.layout.margin.t - fig.layout.margin.b
    for upper, lower in (("yaxis", "yaxis5"), ("yaxis5", "yaxis9")):  # first chart of rows 1, 2 and 3
        gap = (fig.layout[upper].domain[0] - fig.layout[lower].domain[1]) * plot_px
        assert gap == pytest.approx(labels + charts.TITLE_PX, abs=1)
    assert fig.layout.margin.b >= labels and fig.layout.xaxis.automargin
    assert fig.layout.xaxis.tickangle == -40


def test_system_level_human_scatter_names_systems_in_its_legend_with_room_at_the_edges():
    """Issue 37: ten systems' names written beside their points overlapped (their means lie within a few MQM points)
    and the outermost were cut by the plot's edge. Each system is a legend entry with its own colour and shape, no
    name is written on the plot, and the axes leave room around the outermost points."""
    systems = pd.DataFrame({"system": [f"system-{i}" for i in range(10)],
                            "human": np.linspace(-2.0, -1.0, 10), "chrf": np.linspace(55.0, 58.0, 10)})
    fig = charts.human_scatter(systems, "chrf")
    assert fig.layout.showlegend and [t.name for t in fig.data] == list(systems["system"])
    assert all(t.mode == "markers" for t in fig.data)
    assert len({(t.marker.color, t.marker.symbol) for t in fig.data}) == 10
    (x_low, x_high), (y_low, y_high) = fig.layout.xaxis.range, fig.layout.yaxis.range
    assert x_low < -2.0 and x_high > -1.0 and y_low < 55.0 and y_high > 58.0
    assert charts.padded_range([3.0, 3.0]) == [2.0, 4.0] and charts.padded_range([np.nan]) is None

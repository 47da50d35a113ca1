"""Agreement of the metrics with human judgements, and the human (e.g. MQM) system ranking.

Human scores are the data model's long frame ``seg, system, score`` (``mtdiag.io.read_human_scores``; a blank
score = not rated, already dropped). Systems are matched to the report by name; rated systems the report does not
have (e.g. references rated as ``ref.A``) are ignored by the correlations and kept by the ranking.

**Signs.** Correlations are reported so that **positive = agrees with the humans**: a lower-is-better metric
(OTEM, UTEM, TER; ``MetricInfo.higher_is_better``) is negated before correlating, and the human scores are taken
as higher = better (MQM files store ``−penalty``, so 0 is best; pass ``human_higher_is_better=False`` for
scores where lower is better, e.g. positive error counts).

- **Segment level**: Pearson and Kendall (tau-b, ``scipy.stats``) over every rated (system, segment) pair of
  the report's systems with a defined metric score, pooled over systems.
- **System level**: per system, the mean human score over its rated segments against its corpus metric score
  (the report's corpus score, over all segments).

With fewer than two items, or a constant side, a correlation is undefined (NaN).
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from mtdiag.scoring.evaluate import Report
from mtdiag.metrics import metric_info

AGREEMENT_COLUMNS = ("seg_pearson", "seg_kendall", "sys_pearson", "sys_kendall", "n_seg", "n_sys")
SCORE_PLACES = 2
"""Decimals of a human score wherever one is shown (the tables' ``human`` columns, the labels of the outputs, the
HTML report): MQM scores are sums of error weights (0.1, 1, 5, 25) averaged over raters, ESA scores 0-100, so two
decimals tell every difference a rating makes apart. One format for every score: a table showed "-18",
"-9.66667" and "-19.7333" in one column, and "55.71" beside "62.8302"."""


def format_score(value) -> str:
    """A human score as people read it (:data:`SCORE_PLACES` decimals), empty when there is none."""
    return "" if value is None or pd.isna(value) else f"{float(value):.{SCORE_PLACES}f}"


def correlations(x: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """Pearson r and Kendall tau-b of two equally long samples; NaN when undefined (n < 2 or a constant side)."""
    if len(x) < 2 or np.ptp(x) == 0 or np.ptp(y) == 0:
        return float("nan"), float("nan")
    from scipy import stats  # here: its import (0.5-1.2 s) is not for the command line or a first page to pay

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return float(stats.pearsonr(x, y)[0]), float(stats.kendalltau(x, y)[0])


def rated_segments(report: Report, human: pd.DataFrame) -> pd.DataFrame:
    """The rated (system, seg) pairs of the report's systems, with their human and metric scores.

    Index ``(system, seg)``, column ``human`` and one column per metric (metric scores as computed, not
    sign-flipped)."""
    rated = human[human["system"].isin(report.evalset.systems)]
    rated = rated.set_index(["system", "seg"])["score"].rename("human")
    return report.segments.join(rated, how="inner")


def human_system_scores(human: pd.DataFrame, higher_is_better: bool = True) -> pd.DataFrame:
    """The mean human score of every rated system over its rated segments, best first.

    Per system (every rated name, references included): ``mean`` human score over its rated segments and ``n_rated``;
    sorted best first, ties by name."""
    grouped = human.groupby("system")["score"]
    table = pd.DataFrame({"mean": grouped.mean(), "n_rated": grouped.size().astype("int64")})
    table = table.reset_index().sort_values(["mean", "system"], ascending=[not higher_is_better, True])
    return table.set_index("system")


def mqm_system_ranking(human: pd.DataFrame) -> pd.DataFrame:
    """The MQM system ranking as the WMT21 MQM tables publish it (Freitag et al. 2021).

    Per system the mean MQM score over its rated segments, reported as the positive penalty ``mqm = −mean`` (lower is
    better), best first. Columns ``mqm``, ``mean``, ``n_rated``, ``rank`` (1 = best)."""
    table = human_system_scores(human, higher_is_better=True)
    table.insert(0, "mqm", -table["mean"] + 0.0)
    table["rank"] = np.arange(1, len(table) + 1)
    return table


def human_agreement(report: Report, human: pd.DataFrame | None = None, *,
                    human_higher_is_better: bool = True) -> pd.DataFrame:
    """Correlation of every metric of ``report`` with human scores (default: ``report.evalset.human``).

    Index ``metric``; columns ``seg_pearson``, ``seg_kendall`` (pooled rated (system, segment) pairs),
    ``sys_pearson``, ``sys_kendall`` (per-system mean human score vs corpus score), ``n_seg``, ``n_sys`` (the
    items used). Signed so that positive = agrees with the humans (see the module docstring); metrics without a
    better direction (the length ratio) are left out. Without human scores for any of the report's systems every
    value is NaN / 0.
    """
    human = report.evalset.human if human is None else human
    if human is None:
        human = pd.DataFrame({"seg": pd.Series(dtype="int64"), "system": pd.Series(dtype=object),
                              "score": pd.Series(dtype=float)})
    sign = 1.0 if human_higher_is_better else -1.0
    segments = rated_segments(report, human)
    system_means = segments.groupby(level="system")["human"].mean() * sign
    rows = {}
    for metric in (m for m in report.metrics if metric_info(m, report).has_direction):  # a direction to agree with
        info = metric_info(metric, report)
        seg = segments[["human", metric]].dropna()
        seg_r, seg_tau = correlations(info.oriented(seg[metric]).to_numpy(), sign * seg["human"].to_numpy())
        corpus = info.oriented(report.corpus[metric]).reindex(system_means.index)
        both = pd.concat([corpus, system_means], axis=1).dropna()
        sys_r, sys_tau = correlations(both.iloc[:, 0].to_numpy(), both.iloc[:, 1].to_numpy())
        rows[metric] = [seg_r, seg_tau, sys_r, sys_tau, len(seg), len(both)]
    table = pd.DataFrame.from_dict(rows, orient="index", columns=list(AGREEMENT_COLUMNS)).rename_axis("metric")
    return table.astype({"n_seg": "int64", "n_sys": "int64"})


def human_ranking(report: Report) -> pd.DataFrame:
    """The systems ranked by their mean human score (best first).

    Columns ``human`` (the mean, as the Overview and Segments tables name a human score), ``n_rated`` and ``rank`` from
    1."""
    table = human_system_scores(report.evalset.human).rename(columns={"mean": "human"})
    table["rank"] = range(1, len(table) + 1)
    return table

"""Every system against every other (the system x system matrix of paired tests) and WMT-style ranked clusters."""

from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd

from mtdiag.analysis.significance.paired import (ALPHA, _better, _bootstrap, _checked_samples, _scores, _stack,
                                                 bootstrap_p_value, significance)
from mtdiag.analysis.significance.resampling import DEFAULT_SAMPLES, DEFAULT_SEED
from mtdiag.metrics import metric_info

# ------------------------------------------------------------------------------- every pair, ranked clusters


def pairwise_significance(report, method: str = "bs", n: int | None = None, seed: int | None = DEFAULT_SEED, *,
                          metrics: Sequence[str] | None = None) -> pd.DataFrame:
    """Every system against every other, per metric: the system × system matrix of paired tests, long form.

    Index ``(metric, system, other)`` (``system != other``); columns ``delta`` (score of ``system`` − score of
    ``other``), ``p`` (the paired test of ``system`` with ``other`` as the baseline — exactly
    :func:`significance`'s p for that pair, same draw), ``significant`` and ``better`` (+1 ``system`` is better in
    the metric's direction, -1 worse, 0 equal or no direction). ``delta`` and ``better`` are antisymmetric; with
    the same draw for every pair the p-values are symmetric. ``attrs``: ``method``, ``n``, ``seed``, ``alpha``.
    """
    systems = list(report.evalset.systems)
    if len(systems) < 2:
        raise ValueError("pairwise significance needs at least two systems")
    names = list(report.metrics if metrics is None else metrics)
    if method == "bs":
        table = _pairwise_bootstrap(report, systems, names, _checked_samples(method, n), seed)
    else:
        frames = []
        for baseline in systems:
            frame = significance(report, baseline, method, n, seed, metrics=names, n_confidence=0)
            frame = frame.drop(index=baseline, level="system")[["delta", "p", "significant", "better"]]
            frames.append(frame.assign(other=baseline).reset_index())
        table = pd.concat(frames, ignore_index=True).set_index(["metric", "system", "other"])
    order = pd.MultiIndex.from_tuples([(m, a, b) for m in names for a in systems for b in systems if a != b],
                                      names=["metric", "system", "other"])
    table = table.reindex(order)
    table.attrs.update(method=method, n=DEFAULT_SAMPLES[method] if n is None else int(n), seed=seed, alpha=ALPHA)
    return table


def pairwise_matrix(pairwise: pd.DataFrame) -> pd.DataFrame:
    """The system × system p-value matrix per metric of :func:`mtdiag.analysis.significance.pairwise_significance`.

    Index ``(metric, system)``, one column per other system holding the p of the paired test of the row system with the
    column system as baseline (NaN on the diagonal)."""
    systems = list(dict.fromkeys(pairwise.index.get_level_values("system")))
    matrix = pairwise["p"].unstack("other")
    rows = pd.MultiIndex.from_tuples([(m, s) for m in dict.fromkeys(pairwise.index.get_level_values("metric"))
                                      for s in systems], names=["metric", "system"])
    return matrix.reindex(index=rows, columns=systems)


def _pairwise_bootstrap(report, systems: list[str], names: list[str], n: int, seed: int | None) -> pd.DataFrame:
    """The paired bootstrap of every ordered pair from one draw: each system's resampled scores do not depend on
    the baseline (the same resamples, and integer sums that are exact in any order), so they are computed once
    and every baseline's p-values come from them — what :func:`significance` gives pair by pair, value for value
    (``tests/test_clusters.py``)."""
    metrics = {m: report.metric(m) for m in names}
    stacked = _stack(metrics, {m: {s: report.results[(m, s)].stats for s in systems} for m in names}, systems)
    if next(iter(stacked.values())).shape[0] == 0:
        raise ValueError("there are no segments to resample")
    resampled = _bootstrap(metrics, stacked, n, seed)
    rows = []
    for name, metric in metrics.items():
        scores, observed = resampled[name][0], _scores(metric, stacked[name].sum(axis=0))
        for j, baseline in enumerate(systems):
            others = [i for i in range(len(systems)) if i != j]
            p = bootstrap_p_value(scores[others], scores[j], np.abs(observed[others] - observed[j]))
            for i, p_i in zip(others, p):
                delta = observed[i] - observed[j]
                rows.append((name, systems[i], baseline, delta, p_i, bool(p_i < ALPHA), _better(delta, metric)))
    return pd.DataFrame(rows, columns=["metric", "system", "other", "delta", "p", "significant", "better"]
                        ).set_index(["metric", "system", "other"])


def ranked_clusters(report, pairwise: pd.DataFrame) -> pd.DataFrame:
    """Systems ranked per metric with WMT-style significance clusters.

    Per metric the systems are sorted best first (direction-aware; a metric without a better direction is not
    ranked). Walking down the ranking, a system opens the next cluster when it is significantly worse than the
    system directly above it (p < 0.05 in ``pairwise``, :func:`pairwise_significance`); otherwise it joins that
    system's cluster. Returns ``metric, rank, system, score, cluster, p_above`` (the p-value against the system
    above; NaN for the first).
    """
    rows = []
    for metric in dict.fromkeys(pairwise.index.get_level_values("metric")):
        info = metric_info(metric, report)
        if not info.has_direction:
            continue
        scores = report.corpus[metric]
        order = sorted(scores.index, key=lambda s: (-info.sign * scores[s], list(scores.index).index(s)))
        cluster, above = 1, None
        for rank, system in enumerate(order, start=1):
            p_above = np.nan
            if above is not None:
                pair = pairwise.loc[(metric, system, above)]
                p_above = float(pair["p"])
                if bool(pair["significant"]) and int(pair["better"]) < 0:
                    cluster += 1
            rows.append((metric, rank, system, float(scores[system]), cluster, p_above))
            above = system
    return pd.DataFrame(rows, columns=["metric", "rank", "system", "score", "cluster", "p_above"])

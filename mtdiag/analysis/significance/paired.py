"""Paired significance of every system against a baseline, for every metric (the tests of
:mod:`mtdiag.analysis.significance`): confidence intervals, p-values, the long result frame."""

from __future__ import annotations

from typing import Mapping, Sequence

import numpy as np
import pandas as pd

from mtdiag.analysis.significance.resampling import (DEFAULT_CONFIDENCE, DEFAULT_SAMPLES, DEFAULT_SEED,
                                                     bootstrap_counts, bootstrap_sums, randomization_draws,
                                                     weighted_sums)
from mtdiag.analysis.significance.signatures import resampling_signature
from mtdiag.metrics import Metric, Signature

ALPHA = 0.05
METHODS = {"bs": "paired bootstrap resampling", "ar": "paired approximate randomisation"}
COLUMNS = ("score", "mean", "ci_lo", "ci_hi", "ci", "delta", "p", "significant", "better")


# ------------------------------------------------------------------------------------------ the statistics


def confidence_interval(scores: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Mean and 95% interval of bootstrap scores, as sacrebleu's ``estimate_ci``, vectorised over leading axes.

    The scores are sorted; the interval runs from the ``B // 40``-th smallest to the ``B // 40``-th largest
    (the 2.5th and 97.5th percentiles); the mean is that of the sorted scores. Returns ``(mean, lo, hi)``;
    sacrebleu's reported ``± ci`` is ``(hi - lo) / 2``. Resamples on which a metric is undefined (NaN: e.g. a
    term metric on a sample without terms) are left out; with none left the result is NaN.
    """
    ordered = np.sort(np.asarray(scores, dtype=float), axis=-1)  # NaN sorts last
    valid = np.isfinite(ordered).sum(axis=-1)
    lower = valid // 40
    upper = np.maximum(valid - lower - 1, 0)
    lo = np.take_along_axis(ordered, lower[..., None], axis=-1)[..., 0]
    hi = np.take_along_axis(ordered, upper[..., None], axis=-1)[..., 0]
    with np.errstate(invalid="ignore", divide="ignore"):
        total = np.where(np.isfinite(ordered), ordered, 0.0).sum(axis=-1)
        mean = np.where(valid == ordered.shape[-1], ordered.mean(axis=-1), total / valid)
    empty = valid == 0
    return np.where(empty, np.nan, mean), np.where(empty, np.nan, lo), np.where(empty, np.nan, hi)


def p_value(sample_statistics: np.ndarray, observed: np.ndarray) -> np.ndarray:
    """``(#{sample >= observed} + 1) / (N + 1)`` along the last axis (Riezler & Maxwell 2005).

    As sacrebleu's ``_compute_p_value`` with ``>=`` for ``>``, see :mod:`mtdiag.analysis.significance`. The ``+1`` keeps
    the test's false-rejection rate at or below its level. Samples that are NaN (a metric undefined on that sample) are
    not counted in N; a NaN observed statistic gives NaN."""
    samples = np.asarray(sample_statistics, dtype=float)
    observed = np.asarray(observed, dtype=float)
    count = np.sum(samples >= observed[..., None], axis=-1)
    n = np.isfinite(samples).sum(axis=-1)
    return np.where(np.isfinite(observed), (count + 1) / (n + 1), np.nan)


def bootstrap_p_value(system_scores: np.ndarray, baseline_scores: np.ndarray, observed: np.ndarray) -> np.ndarray:
    """Paired bootstrap p-value (Koehn 2004; sacrebleu ``_paired_bs_test``), vectorised over leading axes.

    ``system_scores`` ``(..., B)`` and ``baseline_scores`` ``(B,)`` are scores on the same resamples;
    ``observed`` is ``|score_sys - score_base|`` on the full test set. The sample differences
    ``|sys_b - base_b|`` are centred on zero (the null hypothesis) and compared with the observed difference.
    """
    differences = np.abs(np.asarray(system_scores, dtype=float) - baseline_scores)
    finite = np.isfinite(differences)
    if finite.all():
        centre = differences.mean(axis=-1, keepdims=True)
    else:  # leave out resamples where the metric is undefined
        with np.errstate(invalid="ignore", divide="ignore"):
            centre = (np.where(finite, differences, 0.0).sum(axis=-1, keepdims=True)
                      / finite.sum(axis=-1, keepdims=True))
    centred = differences - centre
    return p_value(centred, observed)


# ------------------------------------------------------------------------------------------------ the tests


def _stack(metrics: Mapping[str, Metric], stats: Mapping[str, Mapping[str, np.ndarray]],
           systems: Sequence[str]) -> dict[str, np.ndarray]:
    """``{metric: (n, S, k)}`` float64 statistics, systems in ``systems`` order (baseline first)."""
    stacked = {}
    for name in metrics:
        arrays = [np.asarray(stats[name][s], dtype=np.float64) for s in systems]
        stacked[name] = np.stack(arrays, axis=1)
    return stacked


def _scores(metric: Metric, sums: np.ndarray) -> np.ndarray:
    return np.asarray(metric.corpus_score(sums), dtype=float)


def _bootstrap(metrics, stacked, n_samples, seed):
    """Per metric: the ``(S, B)`` bootstrap scores and the ``(S,)`` p-values (baseline: NaN)."""
    sums = bootstrap_sums(stacked, n_samples, seed)
    out = {}
    for name, metric in metrics.items():
        scores = _scores(metric, sums[name]).T  # (S, B)
        observed = _scores(metric, stacked[name].sum(axis=0))
        p = bootstrap_p_value(scores[1:], scores[0], np.abs(observed[1:] - observed[0]))
        out[name] = (scores, np.concatenate([[np.nan], p]))
    return out


def _randomization(metrics, stacked, n_trials, seed, n_confidence):
    """Per metric: ``(S, B)`` bootstrap scores for the intervals (or None) and ``(S,)`` p-values (baseline: NaN).

    Swapping by a mask ``m`` gives ``a = sys + m @ (base - sys)`` and ``b = base - m @ (base - sys)``, summed —
    sacrebleu's ``pos_sel @ bl_stats + neg_sel @ sys_stats`` and its mirror, in one product.
    """
    n_segments = next(iter(stacked.values())).shape[0]
    mask, ci_counts = randomization_draws(n_segments, n_trials, seed, n_confidence)
    diffs = {name: s[:, :1, :] - s[:, 1:, :] for name, s in stacked.items()}  # base - sys, (n, S-1, k)
    swapped = weighted_sums(mask, diffs)
    ci_sums = weighted_sums(ci_counts, {n: s[:, 1:, :] for n, s in stacked.items()}) if ci_counts is not None else None
    # sacrebleu estimates the baseline's interval by a fresh bootstrap draw (_bootstrap_resample)
    base_counts = bootstrap_counts(n_segments, n_confidence, seed) if n_confidence > 0 else None
    base_sums = weighted_sums(base_counts, {n: s[:, :1, :] for n, s in stacked.items()}) if base_counts is not None else None
    out = {}
    for name, metric in metrics.items():
        total = stacked[name].sum(axis=0)  # (S, k)
        observed = _scores(metric, total)
        a = _scores(metric, total[1:] + swapped[name])  # (T, S-1)
        b = _scores(metric, total[:1] + -swapped[name])
        p = p_value(np.abs(a - b).T, np.abs(observed[1:] - observed[0]))
        scores = None
        if ci_sums is not None:
            scores = np.concatenate([_scores(metric, base_sums[name]).T, _scores(metric, ci_sums[name]).T])
        out[name] = (scores, np.concatenate([[np.nan], p]))
    return out


def _better(delta: float, metric: Metric) -> int:
    """+1 when a score ``delta`` above the baseline's is better in the metric's direction, -1 worse, 0 equal,
    undefined, or a metric without a better direction (``MetricInfo.sign`` 0)."""
    return int(np.sign(delta) * metric.info.sign) if np.isfinite(delta) else 0


def _frame(metrics, stacked, systems, resampled) -> pd.DataFrame:
    """The long result frame: index ``(system, metric)``, columns :data:`COLUMNS`."""
    rows = []
    for name, metric in metrics.items():
        observed = _scores(metric, stacked[name].sum(axis=0))
        scores, p = resampled[name]
        if scores is not None:
            mean, lo, hi = confidence_interval(scores)
        else:
            mean = lo = hi = np.full(len(systems), np.nan)
        for i, system in enumerate(systems):
            delta = observed[i] - observed[0]
            better = _better(delta, metric)
            rows.append((system, name, observed[i], mean[i], lo[i], hi[i], (hi[i] - lo[i]) / 2, delta, p[i],
                         bool(p[i] < ALPHA), better))
    frame = pd.DataFrame(rows, columns=["system", "metric", *COLUMNS]).set_index(["system", "metric"])
    order = pd.MultiIndex.from_product([systems, list(metrics)], names=["system", "metric"])
    return frame.reindex(order)


def compare_stats(metrics: Mapping[str, Metric], stats: Mapping[str, Mapping[str, np.ndarray]], baseline: str,
                  method: str = "bs", n: int | None = None, seed: int | None = DEFAULT_SEED,
                  n_confidence: int = DEFAULT_CONFIDENCE,
                  signatures: Mapping[str, Signature] | None = None) -> pd.DataFrame:
    """Paired significance of every system against ``baseline`` from statistics arrays and metric objects.

    ``metrics``: ``{name: Metric}``; ``stats``: ``{name: {system: (n_segments, k) sufficient statistics}}``.
    ``method`` ``"bs"`` (paired bootstrap, Koehn 2004, ``n`` resamples, default 1000) or ``"ar"`` (approximate
    randomisation, Riezler & Maxwell 2005, ``n`` trials, default 10000, plus ``n_confidence`` bootstrap
    resamples for the intervals; 0 for none), both drawn exactly as sacrebleu draws them from ``seed``
    (``None``: fresh entropy). Returns the long frame of :func:`significance`.
    """
    n = _checked_samples(method, n)
    if not metrics:
        raise ValueError("no metric to compare")
    systems = list(next(iter(stats.values())))
    if baseline not in systems:
        raise ValueError(f"baseline {baseline!r} is not a system; systems: {', '.join(systems)}")
    systems = [baseline] + [s for s in systems if s != baseline]
    stacked = _stack(metrics, stats, systems)
    if next(iter(stacked.values())).shape[0] == 0:
        raise ValueError("there are no segments to resample")
    n_confidence = max(int(n_confidence), 0) if method == "ar" else 0
    if method == "bs":
        resampled = _bootstrap(metrics, stacked, n, seed)
    else:
        resampled = _randomization(metrics, stacked, n, seed, n_confidence)
    frame = _frame(metrics, stacked, systems, resampled)
    base_signatures = dict(signatures or {})
    frame.attrs.update(
        baseline=baseline, method=method, n=n, seed=seed, n_confidence=n_confidence,
        alpha=ALPHA,
        signatures={m: resampling_signature(base_signatures.get(m, Signature(m)), method, n, seed,
                                            n_confidence).format() for m in metrics},
        labels={m: metric.info.label for m, metric in metrics.items()},
        higher_is_better={m: metric.info.higher_is_better for m, metric in metrics.items()},
        scales={m: metric.info.scale for m, metric in metrics.items()},
    )
    return frame


def _checked_samples(method: str, n: int | None) -> int:
    """The number of resamples/trials of ``method`` (its default for None), after checking both."""
    if method not in METHODS:
        raise ValueError(f"unknown significance method {method!r}: choose 'bs' (paired bootstrap) or 'ar' "
                         f"(approximate randomisation)")
    n = DEFAULT_SAMPLES[method] if n is None else int(n)
    if n < 1:
        raise ValueError(f"the number of {'resamples' if method == 'bs' else 'trials'} must be at least 1, got {n}")
    return n


def significance(report, baseline: str, method: str = "bs", n: int | None = None, seed: int | None = DEFAULT_SEED,
                 *, systems: Sequence[str] | None = None, metrics: Sequence[str] | None = None,
                 n_confidence: int = DEFAULT_CONFIDENCE) -> pd.DataFrame:
    """Paired significance of every system of ``report`` against ``baseline``, for every metric.

    ``method="bs"``: paired bootstrap resampling (Koehn 2004; sacrebleu ``--paired-bs``), ``n`` resamples
    (default 1000). ``method="ar"``: paired approximate randomisation (Riezler & Maxwell 2005; sacrebleu
    ``--paired-ar``), ``n`` trials (default 10000), intervals from ``n_confidence`` bootstrap resamples.
    ``systems``/``metrics`` restrict the comparison (the baseline is always included).

    Returns a frame indexed by ``(system, metric)`` — baseline first, then the report's order — with columns
    ``score`` (corpus score), ``mean``, ``ci_lo``, ``ci_hi`` (bootstrap mean and 95% interval), ``ci`` (its
    half-width, sacrebleu's ``±``), ``delta`` (score - baseline score), ``p`` (NaN for the baseline),
    ``significant`` (p < 0.05) and ``better`` (+1 better than the baseline in the metric's direction — lower is
    better for OTEM, UTEM, TER —, -1 worse, 0 equal). ``frame.attrs`` holds ``baseline``, ``method``, ``n``,
    ``seed``, ``n_confidence``, ``alpha``, and per metric ``signatures`` (with the resampling part),
    ``labels``, ``higher_is_better`` and ``scales``.
    """
    names = list(report.metrics if metrics is None else metrics)
    unknown = [m for m in names if m not in report.metrics]
    if unknown:
        raise ValueError(f"metric {unknown[0]!r} was not computed; computed: {', '.join(report.metrics)}")
    all_systems = list(report.evalset.systems)
    if baseline not in all_systems:
        raise ValueError(f"baseline {baseline!r} is not a system; systems: {', '.join(all_systems)}")
    chosen = all_systems if systems is None else [baseline] + [s for s in systems if s != baseline]
    missing = [s for s in chosen if s not in all_systems]
    if missing:
        raise ValueError(f"{missing[0]!r} is not a system; systems: {', '.join(all_systems)}")
    metric_objects = {m: report.metric(m) for m in names}
    stats = {m: {s: report.results[(m, s)].stats for s in chosen} for m in names}
    signatures = {m: report.results[(m, baseline)].sig for m in names}
    return compare_stats(metric_objects, stats, baseline, method, n, seed, n_confidence, signatures)


def paired_bootstrap(report, baseline: str, n_samples: int = DEFAULT_SAMPLES["bs"], seed: int | None = DEFAULT_SEED,
                     **kwargs) -> pd.DataFrame:
    """Paired bootstrap resampling (Koehn 2004) of every system against ``baseline``; see :func:`significance`."""
    return significance(report, baseline, "bs", n_samples, seed, **kwargs)


def paired_randomization(report, baseline: str, n_trials: int = DEFAULT_SAMPLES["ar"],
                         seed: int | None = DEFAULT_SEED, **kwargs) -> pd.DataFrame:
    """Paired approximate randomisation (Riezler & Maxwell 2005) against ``baseline``; see :func:`significance`."""
    return significance(report, baseline, "ar", n_trials, seed, **kwargs)

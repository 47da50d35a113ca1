"""The statistics of a metric meta-evaluation — how well a metric's scores agree with human scores — as numpy over
items, each computed under a matrix of segment weights ``W`` (``R × N``: one row per resample, group or the whole
set) so that the whole set, a bootstrap of 1,000 resamples of the source segments and every group of a breakdown are
the same matrix products (no loop over segments, pairs or resamples; ``docs/meta-evaluation.md``).

Notation: ``S`` systems, ``N`` segments; ``h`` and ``m`` are ``S × N`` human and metric segment scores, NaN where
missing, both oriented so that higher is better. A (system, segment) *item* counts where both are present.

- :func:`segment_pearson` — Pearson's r over every item pooled, no grouping (WMT23's "seg-level Pearson",
  mt-metrics-eval ``corr_fcn=pearson, average_by='none'``), from per-segment sums: under weights ``w`` each item of
  segment ``i`` counts ``w_i`` times, which is exactly Pearson's r on the resampled items.
- :func:`within_segment_counts` / :func:`weighted_mean_accuracy` — the accuracy of the metric on pairs of systems
  that translated the same segment: per segment, the pairs whose human scores differ, each correct when the metric
  orders it as the humans do and worth ½ when the metric ties it; the segment's share of correct pairs, averaged
  over the segments that have such a pair (item grouping, as WMT averages acc-t over items).
- :func:`tie_calibrated_accuracy` — WMT23's acc-t (Deutsch, Foster & Freitag 2023, "Ties Matter", acc₂₃ with the
  tie threshold ε chosen to maximise it; mt-metrics-eval ``KendallWithTiesOpt(variant='acc23', average_by='item')``):
  human ties kept, a pair correct when both sides tie (|Δm| ≤ ε) or both order it alike, averaged over segments.
- :func:`pairwise_agreement` — system-level pairwise accuracy (Kocmi et al. 2021; mt-metrics-eval
  ``stats.Agreement``): the share of system pairs whose human and metric system scores have the same sign of
  difference (a tie agrees only with a tie).
- :func:`row_pearson` — Pearson's r of system scores, row by row.
- :func:`rank_clusters` — WMT's significance clusters (mt-metrics-eval ``AssignRanks``) from bootstrap draws.
"""

from __future__ import annotations

import numpy as np

SUMS = 6  # per segment: items, Σh, Σm, Σh², Σm², Σhm


def _items(h: np.ndarray, m: np.ndarray) -> np.ndarray:
    return np.isfinite(h) & np.isfinite(m)


def segment_sums(h: np.ndarray, m: np.ndarray) -> np.ndarray:
    """Per segment the sums Pearson's r needs over its items (``N × 6``: count, Σh, Σm, Σh², Σm², Σhm).

    Each side is centred on its mean over all items first (r does not change; the sums lose no precision to large
    means)."""
    items = _items(h, m)
    if not items.any():
        return np.zeros((h.shape[1], SUMS))
    hc = np.where(items, h - h[items].mean(), 0.0)
    mc = np.where(items, m - m[items].mean(), 0.0)
    return np.stack([items.sum(axis=0), hc.sum(axis=0), mc.sum(axis=0), (hc * hc).sum(axis=0),
                     (mc * mc).sum(axis=0), (hc * mc).sum(axis=0)], axis=1).astype(np.float64)


def pearson_from_sums(totals: np.ndarray) -> np.ndarray:
    """Pearson's r from summed ``(..., 6)`` statistics (:func:`segment_sums`).

    NaN with fewer than two items or a constant side (as mt-metrics-eval, which forces NaN where scipy would return a
    number)."""
    n, sh, sm, shh, smm, shm = np.moveaxis(totals, -1, 0)
    vh, vm = n * shh - sh * sh, n * smm - sm * sm
    with np.errstate(invalid="ignore", divide="ignore"):
        r = (n * shm - sh * sm) / np.sqrt(vh * vm)
    scale = np.maximum(np.abs(n * shh), np.abs(n * smm)) + 1e-300
    degenerate = (n < 2) | (vh <= 1e-12 * scale) | (vm <= 1e-12 * scale)
    return np.where(degenerate, np.nan, np.clip(r, -1.0, 1.0))


def segment_pearson(weights: np.ndarray, sums: np.ndarray) -> np.ndarray:
    """Pooled Pearson's r under each row of ``weights`` (``R × N``) from :func:`segment_sums`.

    The sums are ``N × 6``, or ``N × M × 6`` for every metric in one product (then the result is ``R × M``)."""
    return pearson_from_sums(np.tensordot(weights, sums, axes=1))


def system_pairs(n_systems: int) -> tuple[np.ndarray, np.ndarray]:
    """The unordered pairs of ``n_systems`` systems as two index arrays."""
    return np.triu_indices(n_systems, k=1)


def human_pairs(h: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The pairs of systems of every segment, human side (computed once for every metric).

    Returns the pair indices ``a``, ``b``, the human differences ``h[a] - h[b]`` (``P × N``) and where both are
    rated."""
    a, b = system_pairs(h.shape[0])
    return a, b, h[a] - h[b], np.isfinite(h[a]) & np.isfinite(h[b])


def within_segment_counts(pairs: tuple, m: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per segment (``N``): the metric's credit on the pairs of systems the humans tell apart, and their number.

    The credit is 1 for a pair the metric orders as the humans do, ½ for one it ties (``pairs``:
    :func:`human_pairs`)."""
    a, b, dh, rated = pairs
    dm = m[a] - m[b]
    counted = rated & np.isfinite(dm) & (dh != 0)
    credit = np.where(counted, (np.sign(dh) == np.sign(dm)) + 0.5 * (dm == 0), 0.0)
    return credit.sum(axis=0), counted.sum(axis=0).astype(np.float64)


def weighted_mean_accuracy(weights: np.ndarray, credit: np.ndarray, pairs: np.ndarray) -> np.ndarray:
    """The mean over segments with pairs of each segment's accuracy (credit / pairs), under each row of ``weights``.

    ``weights`` is ``R × N``; ``credit`` and ``pairs`` are ``N`` or ``N × M`` (every metric in one product). NaN where
    no weighted segment has a pair."""
    has = pairs > 0
    accuracy = np.divide(credit, pairs, out=np.zeros_like(credit, dtype=np.float64), where=has)
    with np.errstate(invalid="ignore", divide="ignore"):
        return (weights @ accuracy) / (weights @ has.astype(np.float64))


def tie_calibrated_accuracy(pairs: tuple, m: np.ndarray) -> tuple[float, float, np.ndarray]:
    """WMT23's acc-t (``pairs``: :func:`human_pairs`): the accuracy at the tie threshold ε that maximises it.

    Returns (accuracy, the tie threshold ε that maximises it, each segment's acc₂₃ at that ε — NaN where it has no
    pair).

    Per segment ``i`` every pair of systems with both scores present counts; at threshold ε a pair scores 1 when
    the humans tie it and |Δm| ≤ ε, or the humans do not tie it, |Δm| > ε and the metric orders it as they do.
    The average over segments is a sum over pairs of weight ``1 / (pairs_i · segments)``, so as ε grows past a
    pair's |Δm| the total changes by that pair's weight × (human tie − concordant): one sort of |Δm| and a
    cumulative sum give every candidate ε (0 and each observed |Δm|, as ``tau_optimization`` tries them)."""
    a, b, human_diff, rated = pairs
    metric_diff = m[a] - m[b]
    both = rated & np.isfinite(metric_diff)
    counts = both.sum(axis=0)
    rows = counts > 0
    if not rows.any():
        return float("nan"), float("nan"), np.full(m.shape[1], np.nan)
    dh, dm = human_diff[both], metric_diff[both]
    segment = np.broadcast_to(np.arange(m.shape[1]), both.shape)[both]
    weight = 1.0 / (counts[segment] * rows.sum())
    tie = (dh == 0).astype(np.float64)
    concordant = ((np.sign(dh) == np.sign(dm)) & (dh != 0)).astype(np.float64)
    diff = np.abs(dm)
    order = np.argsort(diff, kind="stable")
    step = np.cumsum((weight * (tie - concordant))[order])
    last = np.r_[diff[order][1:] != diff[order][:-1], True]  # the last pair of each distinct |Δm|
    base = float((weight * concordant).sum())
    exact = diff[order][0] == 0  # ε = 0 already ties the pairs of |Δm| = 0
    candidates = np.r_[base if not exact else base + step[last][0], base + step[last]]
    thresholds = np.r_[0.0, diff[order][last]]
    best = int(np.nanargmax(candidates))
    epsilon = float(thresholds[best])
    scored = np.where(diff <= epsilon, tie, concordant)
    per_segment = np.bincount(segment, weights=scored, minlength=m.shape[1])
    per_segment = np.where(rows, per_segment / np.maximum(counts, 1), np.nan)

    return float(candidates[best]), epsilon, per_segment


def resampled_means(weights: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Each row's mean of ``values`` (``S × N``, NaN missing) under ``weights`` (``R × N``): ``R × S``."""
    present = np.isfinite(values)
    with np.errstate(invalid="ignore", divide="ignore"):
        return (weights @ np.where(present, values, 0.0).T) / (weights @ present.T.astype(np.float64))


def pairwise_agreement(human: np.ndarray, metric: np.ndarray) -> np.ndarray:
    """System-level pairwise accuracy of each row (``R × S`` human and metric system scores).

    The share of pairs, both sides present, whose differences have the same sign (``np.sign``: a tie agrees only with a
    tie)."""
    a, b = system_pairs(human.shape[-1])
    dh, dm = human[..., a] - human[..., b], metric[..., a] - metric[..., b]
    counted = np.isfinite(dh) & np.isfinite(dm)
    agree = (np.sign(dh) == np.sign(dm)) & counted
    with np.errstate(invalid="ignore", divide="ignore"):
        return agree.sum(axis=-1) / counted.sum(axis=-1)


def row_pearson(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Pearson's r of each row of ``x`` and ``y`` (``R × S``), over the columns both have."""
    both = np.isfinite(x) & np.isfinite(y)
    xs, ys = np.where(both, x, 0.0), np.where(both, y, 0.0)
    n = both.sum(axis=-1).astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        mx, my = xs.sum(axis=-1) / n, ys.sum(axis=-1) / n
        xc, yc = np.where(both, x - mx[..., None], 0.0), np.where(both, y - my[..., None], 0.0)
        totals = np.stack([n, np.zeros_like(n), np.zeros_like(n), (xc * xc).sum(-1), (yc * yc).sum(-1),
                           (xc * yc).sum(-1)], axis=-1)
    return pearson_from_sums(totals)


def resample_weights(n_segments: int, samples: int, seed: int) -> np.ndarray:
    """``samples × n_segments`` counts: each row how often each source segment is drawn in one bootstrap resample.

    A resample draws ``n_segments`` with replacement (Efron's bootstrap, resampling source segments with all their
    systems' outputs)."""
    rng = np.random.default_rng(seed)
    return rng.multinomial(n_segments, np.full(n_segments, 1.0 / n_segments), size=samples).astype(np.float64)


def percentile_interval(draws: np.ndarray, level: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """The percentile interval of ``draws`` (``R × M``) column by column, NaN draws left out."""
    tail = (1.0 - level) / 2 * 100
    with np.errstate(invalid="ignore"):
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            return np.nanpercentile(draws, tail, axis=0), np.nanpercentile(draws, 100 - tail, axis=0)


def rank_clusters(point: np.ndarray, draws: np.ndarray, alpha: float = 0.05) -> tuple[np.ndarray, np.ndarray]:
    """WMT's ranks (mt-metrics-eval ``AssignRanks``) from bootstrap draws, with their p-values.

    Metrics are sorted by ``point`` (best first); ``p[i, j]`` is the share of draws where metric ``j`` is at least as
    good as metric ``i`` (the p-value of "j is not worse than i"); walking down the order, a new rank starts at ``j``
    when a metric of the current rank beats it with ``p <= alpha``. Returns (rank per metric, 1 = tied with the best;
    NaN for a NaN point or no draws), the p-values (``M × M`` in the input order)."""
    valid = np.isfinite(point) & np.isfinite(draws).any(axis=0)  # a metric without draws cannot be tested
    ranks = np.full(len(point), np.nan)

    with np.errstate(invalid="ignore"):
        p = (draws[:, None, :] >= draws[:, :, None]).mean(axis=0)
    order = [int(i) for i in np.argsort(-np.where(valid, point, -np.inf), kind="stable") if valid[i]]
    rank, start = 1, 0
    for position, j in enumerate(order):
        if (p[order[start:position], j] <= alpha).any():
            rank, start = rank + 1, position
        ranks[j] = rank
    return ranks, p

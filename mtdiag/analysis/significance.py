"""Paired significance tests, confidence intervals, signatures and exports for every metric.

Two paired tests compare each system with a chosen baseline, for every metric, by re-aggregating the per-segment
sufficient statistics that the metrics already computed (:meth:`mtdiag.metrics.base.Metric.corpus_score` is
vectorised over leading axes, so a whole resampling distribution is one call):

- **Paired bootstrap resampling** (Koehn 2004, "Statistical Significance Tests for Machine Translation
  Evaluation"), as sacrebleu's ``--paired-bs`` (``sacrebleu/significance.py``, ``_paired_bs_test``, itself after
  Moses' ``bootstrap-hypothesis-difference-significance.pl``): ``B`` full-size samples of segment indices drawn
  with replacement by ``numpy.random.default_rng(seed).choice(n, size=(B, n))`` — the very draw sacrebleu makes,
  shared by every system and metric, which is what makes the test paired. p-value: the bootstrap distribution of
  ``|score_sys - score_base|`` is shifted to mean zero and compared with the observed ``|difference|``,
  ``p = (#{shifted >= observed} + 1) / (B + 1)``.
- **Paired approximate randomisation** (Noreen 1989; Riezler & Maxwell 2005, "On Some Pitfalls in Automatic
  Evaluation and Significance Testing for MT"), as sacrebleu's ``--paired-ar`` (``_paired_ar_test``, after
  MultEval): in each of ``T`` trials every segment's statistics are swapped between system and baseline with
  probability 1/2 (``rng.integers(2, size=(T, n), dtype=bool)``, sacrebleu's draw);
  ``p = (#{|shuffled difference| >= observed} + 1) / (T + 1)``.

Mean and 95% confidence interval are sacrebleu's ``estimate_ci``: the mean of the bootstrap scores, the interval
between the ``B // 40``-th smallest and largest bootstrap score, and sacrebleu's ``± ci`` = half its width.

**One deliberate difference from sacrebleu**: a trial counts when its statistic is *at least as extreme* as the
observed one (``>=``, Riezler & Maxwell 2005, Fig. 1), where sacrebleu and MultEval count only strictly greater
ones (``>``). The two agree except on exact ties, which with real data arise only when the two systems have equal
statistics: sacrebleu then reports ``p = 1/(B+1)`` ("significant") for a system compared with itself, mtdiag
reports ``p = 1``. ``docs/significance.md`` records the agreement measured against sacrebleu.

Every resampled sum is one matrix product ``weights @ stats`` over the statistics of all systems and metrics at
once (weights: a ``(B, n)`` matrix of resample counts, or the ``(T, n)`` swap mask), so the tests cost a couple of
BLAS calls plus one vectorised ``corpus_score`` per metric, whatever the number of systems. A statistics column
that repeats (reference counts are the same for every system) is multiplied once, and the bootstrap's counts are
made block by block from the drawn indices (:func:`bootstrap_sums`), so memory stays bounded at 100,000 segments.
"""

from __future__ import annotations

import queue
import threading
from typing import Mapping, Sequence

import numpy as np
import pandas as pd

from mtdiag import __version__
from mtdiag.metrics import Metric, Signature, metric_info

DEFAULT_SEED = 12345  # sacrebleu's default (SACREBLEU_SEED)
DEFAULT_SAMPLES = {"bs": 1000, "ar": 10000}  # sacrebleu's --paired-bs-n / --paired-ar-n
MAX_SAMPLES = 100_000  # resamples or trials of one test (ten times the defaults): 2**31 asked for 2.4 TiB
DEFAULT_CONFIDENCE = 1000  # bootstrap resamples for the CI reported with approximate randomisation
ALPHA = 0.05
METHODS = {"bs": "paired bootstrap resampling", "ar": "paired approximate randomisation"}
COLUMNS = ("score", "mean", "ci_lo", "ci_hi", "ci", "delta", "p", "significant", "better")
_CHUNK_VALUES = 16_000_000  # values of a weight matrix multiplied at once: ~128 MB (blocks of 4M values made BLAS
#                              read the statistics so often that 100k segments took about 4x longer)


# --------------------------------------------------------------------------------------------------- the draws


def bootstrap_indices(n_segments: int, n_samples: int = DEFAULT_SAMPLES["bs"], seed: int | None = DEFAULT_SEED,
                      rng: np.random.Generator | None = None) -> np.ndarray:
    """``(n_samples, n_segments)`` segment indices drawn with replacement — sacrebleu's draw, index for index.

    sacrebleu (``_paired_bs_test`` / ``_bootstrap_resample``) calls
    ``np.random.default_rng(seed).choice(n, size=(B, n), replace=True)``, which numpy draws as
    ``integers(0, n, size, dtype=int64)``: bounded 32-bit draws stored as int64. The same draws are stored here as
    int32 (half the memory: 400 MB less at 100,000 segments), the same samples index for index (Koehn 2004:
    full-size samples with replacement; ``tests/test_compare.py`` compares them with sacrebleu's).
    """
    rng = np.random.default_rng(seed) if rng is None else rng
    dtype = np.int32 if n_segments <= np.iinfo(np.int32).max else np.int64
    return rng.integers(0, n_segments, size=(n_samples, n_segments), dtype=dtype)


def resample_counts(indices: np.ndarray) -> np.ndarray:
    """How often each segment occurs in each sample: ``(B, n)`` indices -> ``(B, n)`` float64 counts.

    ``counts @ stats`` then equals sacrebleu's ``stats[indices].sum(axis=1)`` exactly (integers in float64).
    """
    n_samples, n_segments = indices.shape
    offsets = (np.arange(n_samples, dtype=np.int64) * n_segments)[:, None]
    flat = np.bincount((indices + offsets).ravel(), minlength=n_samples * n_segments)
    return flat.reshape(n_samples, n_segments).astype(np.float64)


def bootstrap_counts(n_segments: int, n_samples: int = DEFAULT_SAMPLES["bs"],
                     seed: int | None = DEFAULT_SEED) -> np.ndarray:
    """The ``(B, n)`` resample-count matrix of sacrebleu's bootstrap draw (:func:`bootstrap_indices`)."""
    return resample_counts(bootstrap_indices(n_segments, n_samples, seed))


def randomization_draws(n_segments: int, n_trials: int = DEFAULT_SAMPLES["ar"], seed: int | None = DEFAULT_SEED,
                        n_confidence: int = DEFAULT_CONFIDENCE) -> tuple[np.ndarray, np.ndarray | None]:
    """The swap mask of approximate randomisation and the resample counts of its confidence intervals.

    As sacrebleu's ``_paired_ar_test``: one generator seeded with ``seed`` draws the ``(T, n)`` boolean mask
    ``rng.integers(2, size=(T, n), dtype=bool)`` (True: the segment's statistics are swapped between system and
    baseline, Riezler & Maxwell 2005), then — when ``n_confidence > 0`` — the bootstrap indices for the systems'
    confidence intervals. Returns ``(mask, counts or None)``.
    """
    rng = np.random.default_rng(seed)
    mask = rng.integers(2, size=(n_trials, n_segments), dtype=bool)
    counts = None
    if n_confidence > 0:
        counts = resample_counts(bootstrap_indices(n_segments, n_confidence, rng=rng))
    return mask, counts


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
    """``(#{sample >= observed} + 1) / (N + 1)`` along the last axis (Riezler & Maxwell 2005; sacrebleu's
    ``_compute_p_value`` with ``>=`` for ``>``, see the module docstring). The ``+1`` keeps the test's
    false-rejection rate at or below its level. Samples that are NaN (a metric undefined on that sample) are
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


def weighted_sums(weights: np.ndarray, stacked: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    """``weights @ stats`` for many statistics arrays at once: ``(R, n)`` and ``{key: (n, ...)}`` -> ``{key: (R, ...)}``.

    The distinct columns of all arrays form one ``(n, K)`` matrix, so that one matrix product serves every system
    and metric; rows of ``weights`` are processed in blocks to bound memory.
    """
    return _products(weights.shape[0], lambda start, stop: weights[start:stop].astype(np.float64, copy=False),
                     stacked)


def bootstrap_sums(stacked: Mapping[str, np.ndarray], n_samples: int = DEFAULT_SAMPLES["bs"],
                   seed: int | None = DEFAULT_SEED) -> dict[str, np.ndarray]:
    """Each statistics array summed over every bootstrap resample of sacrebleu's draw: ``{key: (n, ...)}`` ->
    ``{key: (B, ...)}``, exactly ``weighted_sums(bootstrap_counts(n, B, seed), stacked)``, made faster three ways:

    - the draw is taken block by block from the one generator (the same indices: a generator's stream does not
      depend on how it is cut), so the ``(B, n)`` indices and counts never exist whole (at 100,000 segments they
      took 400 and 800 MB), and a helper thread draws and counts the next block while this one multiplies;
    - a column of whole numbers from 0 to 2^24 is multiplied in single precision (half the work of double):
      its sums are then exact as long as they stay below 2^24, because with non-negative terms every partial sum
      is at most the total, and each block's results are checked — a column whose sum reaches 2^24 is multiplied
      again in double precision, for that block and every later one;
    - a statistics column that repeats is multiplied once (:func:`_products`);
    - the products run on one BLAS thread (:func:`one_blas_thread`), the draw on the helper thread beside it.
    """
    keys = list(stacked)
    if not keys:
        return {}
    with one_blas_thread():
        return _bootstrap_sums(stacked, n_samples, seed)


def _bootstrap_sums(stacked: Mapping[str, np.ndarray], n_samples: int, seed: int | None) -> dict[str, np.ndarray]:
    columns, inverse = _distinct_matrix(stacked)
    n_segments = columns.shape[0]
    exact = np.all((columns >= 0) & (columns < _SINGLE_EXACT) & (columns == np.floor(columns)), axis=0)
    single, double = np.flatnonzero(exact), np.flatnonzero(~exact)
    narrow = columns[:, single].astype(np.float32)
    out = np.empty((n_samples, columns.shape[1]))
    for start, stop, counts in bootstrap_count_blocks(n_segments, n_samples, seed):
        if len(single):
            part = counts @ narrow
            high = np.flatnonzero((part >= _SINGLE_EXACT).any(axis=0))
            if len(high):  # reached 2^24: no longer exact in single precision, here and in later blocks
                double = np.concatenate([double, single[high]])
                single, narrow = np.delete(single, high), np.delete(narrow, high, axis=1)
                part = np.delete(part, high, axis=1)
            out[start:stop, single] = part
        if len(double):
            out[start:stop, double] = counts.astype(np.float64) @ columns[:, double]
    return _unpack(out[:, inverse], stacked)


_SINGLE_EXACT = 2.0 ** 24  # whole numbers below it, and sums of them below it, are exact in single precision


def bootstrap_count_blocks(n_segments: int, n_samples: int = DEFAULT_SAMPLES["bs"], seed: int | None = DEFAULT_SEED):
    """sacrebleu's draw (:func:`bootstrap_indices`) of ``n_samples`` resamples of ``n_segments``, block by block:
    ``(start, stop, counts)`` with ``counts`` the float32 ``(stop - start, n_segments)`` rows of the resample-count
    matrix — the whole ``(B, n)`` matrix never exists at once (:func:`_drawn_counts`)."""
    rows = min(n_samples, _block_rows(n_segments))
    blocks = [(start, min(start + rows, n_samples)) for start in range(0, n_samples, rows)]
    for (start, stop), counts in zip(blocks, _drawn_counts(n_segments, blocks, seed)):
        yield start, stop, counts


def _drawn_counts(n_segments: int, blocks: list[tuple[int, int]], seed: int | None):
    """The resample counts of each block of sacrebleu's draw (:func:`bootstrap_indices` from one generator, block
    after block), as float32 rows; a helper thread draws and counts the next block while the caller uses this one
    (numpy's draws and counts release the interpreter's lock, as does the matrix product)."""
    rng = np.random.default_rng(seed)
    made: queue.Queue = queue.Queue(maxsize=1)

    def make() -> None:
        try:
            for start, stop in blocks:
                counts = np.empty((stop - start, n_segments), dtype=np.float32)
                for row, drawn in zip(counts, bootstrap_indices(n_segments, stop - start, rng=rng)):
                    row[:] = np.bincount(drawn, minlength=n_segments)
                made.put(counts)
        except BaseException as exc:  # handed to the caller, which raises it
            made.put(exc)

    helper = threading.Thread(target=make, name="mtdiag-bootstrap", daemon=True)
    helper.start()
    try:
        for _ in blocks:
            counts = made.get()
            if isinstance(counts, BaseException):
                raise counts
            yield counts
    finally:
        helper.join()


def _block_rows(n_segments: int) -> int:
    """Rows of a weight matrix multiplied at once (:data:`_CHUNK_VALUES` values)."""
    return max(1, _CHUNK_VALUES // max(n_segments, 1))


def _distinct_columns(arrays: Sequence[np.ndarray]) -> tuple[list[tuple[int, int]], np.ndarray]:
    """The distinct columns of some ``(n, k_i)`` arrays taken side by side: ``(kept, inverse)`` — ``kept`` lists
    each distinct column once as ``(array, column)``, ``inverse`` gives for every column (in order) its place in
    ``kept``. Statistics repeat across systems (reference counts) and metrics (lengths): a third of the default
    metrics' columns do, and each is then multiplied once. Candidates are found by a random projection and
    confirmed value by value."""
    weights = np.random.default_rng(0).random(arrays[0].shape[0])
    keys = np.concatenate([a.T @ weights for a in arrays]).tolist()
    places = [(i, j) for i, a in enumerate(arrays) for j in range(a.shape[1])]
    inverse = np.empty(len(places), dtype=np.int64)
    kept: list[tuple[int, int]] = []
    by_key: dict[float, list[int]] = {}
    for column, ((i, j), key) in enumerate(zip(places, keys)):
        same = next((slot for slot in by_key.get(key, ())
                     if np.array_equal(arrays[kept[slot][0]][:, kept[slot][1]], arrays[i][:, j])), None)
        if same is None:
            same = len(kept)
            kept.append((i, j))
            by_key.setdefault(key, []).append(same)
        inverse[column] = same
    return kept, inverse


def _distinct_matrix(stacked: Mapping[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """The distinct columns of every statistics array of ``stacked`` as one ``(n, K)`` float64 matrix, and for
    every column of the arrays taken side by side its place in it (:func:`_distinct_columns`)."""
    n = np.shape(next(iter(stacked.values())))[0]
    arrays = [np.asarray(a, dtype=np.float64).reshape(n, -1) for a in stacked.values()]
    kept, inverse = _distinct_columns(arrays)
    columns = np.empty((n, len(kept)))
    slots = np.arange(len(kept))
    sources = np.array([i for i, _ in kept])
    for i in np.unique(sources):  # an array's kept columns at once: each of its rows read once
        mine = sources == i
        columns[:, slots[mine]] = arrays[i][:, [j for (k, j) in kept if k == i]]
    return columns, inverse


def _unpack(out: np.ndarray, stacked: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The columns of ``out`` (rows x every column of ``stacked`` side by side) as ``{key: (rows, ...)}``."""
    result, col = {}, 0
    for key, array in stacked.items():
        shape = np.shape(array)[1:]
        width = int(np.prod(shape))
        result[key] = out[:, col:col + width].reshape(out.shape[0], *shape)
        col += width
    return result


def _products(n_rows: int, weight_rows, stacked: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    """``weights @ stats`` with the weights given by blocks: ``weight_rows(start, stop)`` -> float64 rows
    ``start..stop-1`` of the ``(n_rows, n)`` weight matrix; see :func:`weighted_sums`."""
    if not stacked:
        return {}
    columns, inverse = _distinct_matrix(stacked)
    chunk = _block_rows(columns.shape[0])
    out = np.empty((n_rows, columns.shape[1]))
    with one_blas_thread():
        for start in range(0, n_rows, chunk):
            stop = min(start + chunk, n_rows)
            out[start:stop] = weight_rows(start, stop) @ columns
    return _unpack(out[:, inverse], stacked)


_BLAS = None


def one_blas_thread():
    """A context in which numpy's BLAS (OpenBLAS) multiplies on one thread (``threadpoolctl``; restored after).

    The resampling products are tall and thin — ``(B, n) @ (n, K)`` with n up to 100,000s and K a few hundred
    columns — and OpenBLAS's worker threads wait for each other by spinning: on a machine whose cores are busy
    with other work (a server's other sessions, other processes) a two-thread product took 20-30x the time and 15x
    the CPU of a one-thread one, measured on 100,000 segments x 156 columns (docs/scaling.md: the 100k bootstrap
    went from 46.7 s to 8.5 s wall, 10.9 to 2.2 s CPU, at load average 9 on 2 cores; the sums are identical). The
    second core still works: :func:`bootstrap_sums` draws the next block on its helper thread meanwhile."""
    global _BLAS
    if _BLAS is None:
        from threadpoolctl import ThreadpoolController

        _BLAS = ThreadpoolController()
    return _BLAS.limit(limits=1, user_api="blas")


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
    """The system × system p-value matrix per metric of :func:`mtdiag.analysis.significance.pairwise_significance`: index
    ``(metric, system)``, one column per other system holding the p of the paired test of the row system with
    the column system as baseline (NaN on the diagonal)."""
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


# ------------------------------------------------------------------------------------------------ signatures


def resampling_fields(method: str, n: int, seed: int | None, n_confidence: int = 0) -> tuple[tuple[str, str], ...]:
    """sacrebleu's signature fields for a paired test: ``bs:1000|seed:12345`` or ``[bs:1000|]ar:10000|seed:12345``."""
    seed_field = ("seed", "none" if seed is None else str(seed))
    if method == "bs":
        return (("bs", str(n)), seed_field)
    confidence = (("bs", str(n_confidence)),) if n_confidence and n_confidence > 0 else ()
    return (*confidence, ("ar", str(n)), seed_field)


def resampling_signature(signature: Signature, method: str, n: int, seed: int | None,
                         n_confidence: int = 0) -> Signature:
    """A metric signature with the resampling fields added where sacrebleu puts them (after ``nrefs``; without it,
    before ``version``, else at the end), naming the mtdiag version (:func:`with_version`)."""
    return with_version(signature.with_fields(resampling_fields(method, n, seed, n_confidence), after="nrefs"))


def with_version(signature: Signature) -> Signature:
    """``signature`` with an ``mtdiag:VERSION`` field appended unless its ``version`` is this mtdiag's."""
    if signature.get("version") == f"mtdiag-{__version__}" or signature.get("mtdiag") == __version__:
        return signature
    last = signature.fields[-1][0] if signature.fields else None
    return signature.with_fields([("mtdiag", __version__)], after=last)


def report_signatures(report, comparison: pd.DataFrame | None = None) -> dict[str, str]:
    """``{metric: signature}`` of a report's scores, formatted — with the resampling fields when ``comparison`` (a
    frame from :func:`significance`) is given, and always naming the mtdiag version."""
    if comparison is not None and comparison.attrs.get("signatures"):
        return dict(comparison.attrs["signatures"])
    return {metric: with_version(sig).format() for metric, sig in report.signatures().items()}


# -------------------------------------------------------------------------------------- multiple comparisons


CORRECTIONS = {"holm": "Holm (1979) step-down: family-wise error rate",
               "bh": "Benjamini-Hochberg (1995) step-up: false discovery rate"}
"""The corrections for many tests at once (the slice finder, the error statistics per category)."""


def holm(p_values: np.ndarray) -> np.ndarray:
    """Holm's step-down adjusted p-values (Holm 1979): the i-th smallest of m becomes
    ``max over j <= i of min(1, (m - j + 1) p_(j))``. NaN (no test) stays NaN and is not counted in m."""
    p = np.asarray(p_values, dtype=float)
    out = np.full(p.shape, np.nan)
    tested = np.flatnonzero(np.isfinite(p))
    m = len(tested)
    if m:
        order = tested[np.argsort(p[tested], kind="stable")]
        scaled = np.minimum(1.0, (m - np.arange(m)) * p[order])
        out[order] = np.maximum.accumulate(scaled)
    return out


def benjamini_hochberg(p_values: np.ndarray) -> np.ndarray:
    """Benjamini–Hochberg step-up adjusted p-values (Benjamini & Hochberg 1995): the i-th smallest of m becomes
    ``min over j >= i of min(1, m p_(j) / j)``. NaN (no test) stays NaN and is not counted in m."""
    p = np.asarray(p_values, dtype=float)
    out = np.full(p.shape, np.nan)
    tested = np.flatnonzero(np.isfinite(p))
    m = len(tested)
    if m:
        order = tested[np.argsort(p[tested], kind="stable")]
        scaled = np.minimum(1.0, p[order] * m / np.arange(1, m + 1))
        out[order] = np.minimum.accumulate(scaled[::-1])[::-1]
    return out


def corrected(p_values: np.ndarray, correction: str) -> np.ndarray:
    """``p_values`` adjusted by ``correction`` (a key of :data:`CORRECTIONS`)."""
    if correction not in CORRECTIONS:
        raise ValueError(f"unknown correction {correction!r}; choose {', '.join(CORRECTIONS)}")
    return holm(p_values) if correction == "holm" else benjamini_hochberg(p_values)


# ------------------------------------------------------------------------------------------ per-segment view


__all__ = [
    "ALPHA", "COLUMNS", "CORRECTIONS", "DEFAULT_CONFIDENCE", "DEFAULT_SAMPLES", "DEFAULT_SEED", "METHODS",
    "benjamini_hochberg", "bootstrap_count_blocks", "bootstrap_counts", "bootstrap_indices", "bootstrap_p_value",
    "bootstrap_sums",
    "compare_stats", "confidence_interval", "corrected", "holm", "paired_bootstrap", "pairwise_significance",
    "ranked_clusters", "paired_randomization", "p_value", "randomization_draws", "report_signatures",
    "resample_counts", "resampling_fields", "resampling_signature", "significance", "weighted_sums", "with_version",
]

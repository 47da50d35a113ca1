"""The resampling draws and the resampled sums of paired significance tests.

The draws are sacrebleu's, index for index (``numpy.random.default_rng(seed)``: the bootstrap's ``choice(n, size=(B,
n))``, approximate randomisation's ``integers(2, size=(T, n), dtype=bool)``). Every resampled sum is one matrix
product ``weights @ stats`` over the statistics of all systems and metrics at once (weights: a ``(B, n)`` matrix of
resample counts, or the ``(T, n)`` swap mask). A statistics column that repeats (reference counts are the same for
every system) is multiplied once, and the bootstrap's counts are made block by block from the drawn indices
(:func:`bootstrap_sums`), so memory stays bounded at 100,000 segments.
"""

from __future__ import annotations

import queue
import threading
from typing import Mapping, Sequence

import numpy as np

DEFAULT_SEED = 12345  # sacrebleu's default (SACREBLEU_SEED)
DEFAULT_SAMPLES = {"bs": 1000, "ar": 10000}  # sacrebleu's --paired-bs-n / --paired-ar-n
MAX_SAMPLES = 100_000  # resamples or trials of one test (ten times the defaults): 2**31 asked for 2.4 TiB
DEFAULT_CONFIDENCE = 1000  # bootstrap resamples for the CI reported with approximate randomisation
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

def weighted_sums(weights: np.ndarray, stacked: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    """``weights @ stats`` for many statistics arrays at once.

    ``(R, n)`` and ``{key: (n, ...)}`` -> ``{key: (R, ...)}``. The distinct columns of all arrays form one ``(n, K)``
    matrix, so that one matrix product serves every system and metric; rows of ``weights`` are processed in blocks to
    bound memory."""
    return _products(weights.shape[0], lambda start, stop: weights[start:stop].astype(np.float64, copy=False),
                     stacked)


def bootstrap_sums(stacked: Mapping[str, np.ndarray], n_samples: int = DEFAULT_SAMPLES["bs"],
                   seed: int | None = DEFAULT_SEED) -> dict[str, np.ndarray]:
    """Each statistics array summed over every bootstrap resample of sacrebleu's draw.

    ``{key: (n, ...)}`` -> ``{key: (B, ...)}``, exactly ``weighted_sums(bootstrap_counts(n, B, seed), stacked)``, made
    faster three ways:

    - the draw is taken block by block from the one generator (the same indices: a generator's stream does not
      depend on how it is cut), so the ``(B, n)`` indices and counts never exist whole (at 100,000 segments they
      took 400 and 800 MB), and a helper thread draws and counts the next block while this one multiplies;
    - a column of whole numbers from 0 to 2^24 is multiplied in single precision (half the work of double):
      its sums are then exact as long as they stay below 2^24, because with non-negative terms every partial sum
      is at most the total, and each block's results are checked — a column whose sum reaches 2^24 is multiplied
      again in double precision, for that block and every later one;
    - a statistics column that repeats is multiplied once (:func:`_products`);
    - the products run on one BLAS thread (:func:`one_blas_thread`), the draw on the helper thread beside it."""
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
    """sacrebleu's draw (:func:`bootstrap_indices`) of ``n_samples`` resamples of ``n_segments``, block by block.

    Yields ``(start, stop, counts)`` with ``counts`` the float32 ``(stop - start, n_segments)`` rows of the
    resample-count matrix — the whole ``(B, n)`` matrix never exists at once (:func:`_drawn_counts`)."""
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

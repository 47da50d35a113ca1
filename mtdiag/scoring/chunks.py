"""Chunked, parallel and distributed scoring: per-segment sufficient statistics computed on slices of segments.

Every metric's statistics are one row per segment that depends on that segment alone (its tokens, its n-grams, its
best reference, its terms), so the statistics of a set are the rows of its slices stacked in order, and every
corpus score — a function of summed statistics — is unchanged. That lets scoring

- keep memory bounded: a large set is scored a slice of segments at a time (about :data:`SLICE_TEXTS` texts),
  each slice with its own :class:`~mtdiag.metrics.ScoringContext` (tokens, n-gram indexes) that is dropped
  before the next;
- use both cores: slices run on a thread pool (numpy, pandas' hash tables, rapidfuzz and the compiled TER kernel do
  their work outside the GIL);
- go beyond one machine: on a Dask cluster (``dask.distributed``), each slice is a task whose result is its
  statistics (:func:`dask_client` takes a scheduler address, or ``local``/``local:N`` for a local cluster).

The results are identical to scoring the whole set at once (``tests/test_chunks.py``).
"""

from __future__ import annotations

import os
import threading
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Callable, Iterable, Sequence

import numpy as np

from mtdiag.core.evalset import EvalSet
from mtdiag.metrics import ScoringContext, create_metric
from mtdiag.core.tokenize import TokenizeOptions

# seconds between progress reports while threads score: each report is a message the browser redraws, and on 2
# cores the redraws compete with scoring (dev zh-en upload: 4 a second made scoring 8.6 s, 1 a second 6.9 s)
PROGRESS_PERIOD_S = 1.0
DEFAULT_CHUNK = 1_000  # segments per task of the n-gram tables on Dask (:func:`ngram_tables_on_dask`)
# texts (segments x sides: references and systems) per slice when scoring: a slice's n-gram tables and tokens take
# memory in proportion to its texts, so slices hold about as much text whatever the number of systems; small
# slices also keep the arrays in cache. dev en-de (15 sides: 100-segment slices) and TED zh-en (10 sides), six
# metrics, two threads: peak RSS 190 / 135 MB, against 385 / 165 MB with slices of 1,000 segments, and no slower
# (about 25 ms of Python per slice of 12 systems; docs/scaling.md)
SLICE_TEXTS = 1_500
MIN_SLICE = 32  # segments: with very many systems a slice still amortises its per-call costs
PARALLEL_MIN_PAIRS = 2_000  # (segment, system) pairs from which a second thread pays for itself
# texts (segments x (references + systems + source)) up to which a set is scored whole, on the report's own context
# (:func:`shared_statistics`): what reads the report next — the checks, the spans, the queue, the evidence — needs
# the whole set's tokens and n-gram indexes, and built them again after slices (dev en-de, 16,000 texts: the queue
# took 2.3 s of CPU after slices, 1.0 s after scoring whole). Past this, slices keep memory bounded.
SHARED_TEXTS = 40_000
# metrics that take most of a set's scoring (TER's alignment search, TERm's): on two threads they start first, and
# the others fill the second thread meanwhile (dev en-de: TER 2.4 s, chrF 1.5 s, the rest 0.6 s of CPU; in the
# registry's order TER started last and the first thread ran 2.9 s while the second idled after 1.6 s)
SLOWEST = ("ter", "term_ter")

ChunkStats = dict[tuple[str, str], np.ndarray]


@dataclass(frozen=True)
class Execution:
    """How statistics are computed (never what they are): slice size, threads, or a Dask cluster.

    ``chunk`` segments per slice (None: by the texts per segment, :meth:`chunk_size`), ``workers`` threads (None: two,
    at most the cores, when the work is large enough, else 1; :meth:`n_workers`), or a Dask ``dask`` scheduler address
    / ``local`` / ``local:N``."""

    chunk: int | None = None
    workers: int | None = None
    dask: str | None = None

    def chunk_size(self, sides: int = 1) -> int:
        """Segments per slice: ``chunk``, else :data:`SLICE_TEXTS` texts over ``sides`` texts per segment.

        ``sides`` are the references and systems; a slice has at least :data:`MIN_SLICE` segments."""
        return int(self.chunk) if self.chunk else max(SLICE_TEXTS // max(sides, 1), MIN_SLICE)

    def n_workers(self, pairs: int) -> int:
        """Threads to use: ``workers``, else 2 (at most the cores) from :data:`PARALLEL_MIN_PAIRS` ``pairs``, else 1."""
        if self.workers:
            return max(int(self.workers), 1)
        return min(os.cpu_count() or 1, 2) if pairs >= PARALLEL_MIN_PAIRS else 1


def slices(n_segments: int, size: int) -> list[tuple[int, int]]:
    """``[start, stop)`` bounds of consecutive slices of at most ``size`` segments (one empty slice for none)."""
    size = max(int(size), 1)
    return [(start, min(start + size, n_segments)) for start in range(0, n_segments, size)] or [(0, 0)]


def step_message(label: str, system_number: int, n_systems: int) -> str:
    """The progress text of one (metric, system) step: ``scoring chrF: system 3 of 8`` (no user text in it)."""
    return f"scoring {label}: system {system_number} of {n_systems}"


def slice_statistics(evalset: EvalSet, tokenize: TokenizeOptions, tgt_lang: str | None,
                     metrics: Sequence[tuple[str, dict]],
                     step: Callable[[str, int], None] | None = None) -> ChunkStats:
    """The statistics of every (metric, system) on one slice: ``metrics`` are ``(name, options)`` pairs.

    A pure function of its arguments (it runs in a thread, a process or on a Dask worker); ``step(label, j)`` is called
    before the metric labelled ``label`` scores system ``j`` (0-based), for progress in the same process."""
    ctx = ScoringContext(evalset, tokenize, tgt_lang=tgt_lang)
    out: ChunkStats = {}
    for name, options in metrics:
        metric = create_metric(name, evalset, **options)  # the set names its imported metrics (also on Dask)
        for j, system in enumerate(evalset.systems):
            if step:
                step(metric.info.label, j)
            out[(name, system)] = metric.statistics(ctx, system)
    return out


def stack(parts: Iterable[ChunkStats]) -> ChunkStats:
    """The slices' statistics stacked in segment order."""
    parts = list(parts)
    return {key: np.concatenate([part[key] for part in parts], axis=0) for key in parts[0]}


def chunked_statistics(evalset: EvalSet, tokenize: TokenizeOptions, tgt_lang: str | None,
                       metrics: Sequence[tuple[str, dict]], execution: Execution = Execution(),
                       progress: Callable[[float, str], None] | None = None) -> ChunkStats:
    """Statistics of every (metric, system) of ``evalset``, computed slice by slice as ``execution`` says."""
    bounds = slices(evalset.n_segments, execution.chunk_size(len(evalset.ref_names) + len(evalset.systems)))
    if execution.dask:
        return _on_dask(evalset, tokenize, tgt_lang, metrics, bounds, execution.dask, progress)
    workers = min(execution.n_workers(evalset.n_segments * len(evalset.systems)), len(bounds))
    done: list[ChunkStats | None] = [None] * len(bounds)
    n_systems = len(evalset.systems)
    units = max(len(bounds) * len(metrics) * n_systems, 1)
    started = [0, ""]  # (metric, system) steps begun over all slices, and the latest step's message
    lock = threading.Lock()

    def step(label: str, j: int) -> None:
        with lock:
            started[0] += 1
            started[1] = step_message(label, j + 1, n_systems)

    def report() -> None:
        if progress and started[1]:
            with lock:
                fraction, message = (started[0] - 1) / units, started[1]
            progress(fraction, message)

    def run(i: int) -> None:
        start, stop = bounds[i]
        done[i] = slice_statistics(evalset.segment_slice(start, stop), tokenize, tgt_lang, metrics,
                                   step if workers > 1 else lambda label, j: (step(label, j), report()))

    if workers == 1:
        for i in range(len(bounds)):
            run(i)
    else:  # the progress callback runs on the calling thread (Streamlit elements cannot be updated from others)
        with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="mtdiag-slice") as pool:
            futures = [pool.submit(run, i) for i in range(len(bounds))]
            pending = set(futures)
            while pending:
                _, pending = wait(pending, timeout=PROGRESS_PERIOD_S, return_when=FIRST_COMPLETED)
                report()
            for future in futures:
                future.result()
    return stack(done)


def shared_statistics(context: ScoringContext, metrics: Sequence[tuple[str, object]], workers: int = 1,
                      progress: Callable[[float, str], None] | None = None,
                      meanwhile: Callable[[], None] | None = None) -> ChunkStats:
    """Statistics of every (metric, system) on one context, the report's own.

    The analyses that follow (checks, spans, the queue, evidence) then reuse its tokens and n-gram indexes instead of
    building them again. With ``workers`` > 1 the metrics (``(name, metric object)`` pairs) run on a pool of threads,
    each metric whole: TER's compiled kernel and numpy's array work run outside the GIL, and an index two metrics need
    is built once (:meth:`~mtdiag.metrics.ScoringContext.memo`); the calling thread runs ``meanwhile()`` (work on the
    same context that reads no score), then reports progress (the callback runs on the calling thread). With
    ``meanwhile`` the pool has one thread less: the calling thread is busy too, and three threads sharing two cores
    slowed the checks on it, CLD2's hand-backs of the GIL most (``mtdiag triage`` on WMT21 en-de, 12 systems:
    7.60 -> 6.55 s wall, the language detection 1.39 -> 0.6 s). When ``meanwhile`` is done first, the calling thread
    scores the metrics no pool thread has begun, so no core waits idle for the metrics."""
    n_systems = len(context.evalset.systems)
    units = max(len(metrics) * n_systems, 1)
    started = [0, ""]
    lock = threading.Lock()

    def report() -> None:
        if progress and started[1]:
            with lock:
                fraction, message = (started[0] - 1) / units, started[1]
            progress(fraction, message)

    def run(name: str, metric, each_step: Callable[[], None] = lambda: None) -> dict:
        out = {}
        for j, system in enumerate(context.evalset.systems):
            with lock:
                started[0] += 1
                started[1] = step_message(metric.info.label, j + 1, n_systems)
            each_step()
            out[(name, system)] = metric.statistics(context, system)
        return out

    if workers <= 1 or len(metrics) < 2:  # one thread: every step reported as it begins
        return {key: value for name, metric in metrics for key, value in run(name, metric, report).items()}
    context.tokens  # noqa: B018 - every metric reads them: built once, before the threads start
    first = sorted(metrics, key=lambda item: item[0] not in SLOWEST)  # stable: otherwise the order given
    taken: dict[int, dict] = {}  # the metrics the calling thread scored itself, by position in ``first``
    with ThreadPoolExecutor(max_workers=max(workers - (meanwhile is not None), 1),
                            thread_name_prefix="mtdiag-metric") as pool:
        futures = [pool.submit(run, name, metric) for name, metric in first]
        if meanwhile is not None:
            meanwhile()
            # free again: the calling thread scores the metrics no pool thread has begun, from the last one back
            for i in reversed(range(len(futures))):
                if futures[i].cancel():
                    taken[i] = run(*first[i], report)
        pending = {future for future in futures if not future.cancelled()}
        while pending:
            _, pending = wait(pending, timeout=PROGRESS_PERIOD_S, return_when=FIRST_COMPLETED)
            report()
        return {key: value for i, future in enumerate(futures)
                for key, value in (taken[i] if i in taken else future.result()).items()}


def max_local_workers() -> int:
    """The most worker processes ``--dask local:N`` starts: twice the machine's cores.

    Each is a Python process that imports mtdiag; without a bound, ``local:1000000`` would start processes until the
    machine ran out."""
    return 2 * (os.cpu_count() or 1)


def dask_client(address: str):
    """A ``dask.distributed`` client for ``address``: a local cluster, or a scheduler.

    ``local`` / ``local:N`` start a local cluster of N worker processes (default: the number of cores) on the loopback
    interface; anything else is a scheduler address (``tcp://host:8786``)."""
    try:
        from dask.distributed import Client, LocalCluster
    except ImportError as exc:  # pragma: no cover - dask is a dependency; a broken install is the user's to fix
        raise RuntimeError(f"--dask needs dask.distributed ({exc}); install it with pip install 'dask[distributed]'")
    if address == "local" or address.startswith("local:"):
        count, most = address.partition(":")[2], max_local_workers()
        if count and (not count.isascii() or not count.isdigit() or len(count) > 6 or not 1 <= int(count) <= most):
            shown = count if len(count) <= 20 else count[:20] + "…"
            raise ValueError(f"--dask local:{shown}: N from 1 to {most} worker processes (twice this machine's "
                             "cores)")
        workers = int(count) if count else (os.cpu_count() or 1)
        cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, host="127.0.0.1",
                               dashboard_address=None)
        return Client(cluster)
    return Client(address)


def _on_dask(evalset, tokenize, tgt_lang, metrics, bounds, address, progress) -> ChunkStats:
    from dask.distributed import as_completed

    with _dask_session(address) as client:
        futures = [client.submit(slice_statistics, evalset.segment_slice(start, stop), tokenize, tgt_lang,
                                 list(metrics), pure=False) for start, stop in bounds]
        for finished, _ in enumerate(as_completed(futures)):
            if progress:
                progress((finished + 1) / len(futures), f"{finished + 1} of {len(futures)} slices on Dask")
        return stack(client.gather(futures))


@contextmanager
def _dask_session(address: str):
    """A client of :func:`dask_client`, closed afterwards (with its local cluster, for ``local``/``local:N``)."""
    client = dask_client(address)
    try:
        yield client
    finally:
        cluster = getattr(client, "cluster", None)
        client.close()
        if cluster is not None and address.startswith("local"):
            cluster.close()


def ngram_tables_on_dask(evalset: EvalSet, address: str, chunk: int | None = None, **kwargs):
    """:func:`mtdiag.metrics.ht_mt_ngrams.ngram_tables` on a Dask cluster, partitioned by segments.

    Slices of ``chunk`` segments (default :data:`DEFAULT_CHUNK`), two passes of one task per slice (the HT's word
    counts, summed to choose the words kept at orders 3-4; then each slice's n-gram counts and segment lists, merged
    here) — :func:`~mtdiag.metrics.ht_mt_ngrams.partitioned_ngram_tables`. ``kwargs``: ``ht_ref``, ``orders``,
    ``min_count``, ``options``, ``systems``. The tables are exactly the single-process ones (``tests/test_chunks.py``, a
    real ``LocalCluster``)."""
    from mtdiag.metrics.ht_mt_ngrams import partitioned_ngram_tables

    bounds = slices(evalset.n_segments, chunk or DEFAULT_CHUNK)
    with _dask_session(address) as client:
        def run(function, arguments):
            return client.gather([client.submit(function, *a, pure=False) for a in arguments])

        return partitioned_ngram_tables(evalset, bounds, run=run, **kwargs)

"""The dashboard's state: the loaded data, the report store, and every cached frame the pages draw (the reports
themselves are made by :mod:`mtdiag.ui.reports`).

Caching rules (``docs/architecture.md``, ``docs/dashboard.md``):

- The :class:`~mtdiag.scoring.evaluate.Report` is scored once per (texts, options): the key is
  ``EvalSet.scoring_hash()`` plus ``repr(Options)``, and it is scored on the set without its human judgements
  (:meth:`~mtdiag.core.evalset.EvalSet.without_judgements`). The judgements join it weighed by the session's scheme
  (:func:`mtdiag.pipeline.inputs.judged`), under the key of the data with its judgements and the scheme: a human file
  uploaded, or another scheme chosen, scores nothing again. Both live in a small LRU held by ``st.cache_resource``
  (shared by every session, cleared by ``st.cache_resource.clear()``). We keep the LRU ourselves instead of decorating
  ``evaluate`` because the computation draws a progress bar: a cached function that writes to an element created outside
  it cannot be replayed by Streamlit (``CacheReplayClosureError``), and a cache hit must draw nothing.
- A session's inputs that are no data — the weighting scheme of human error rows, the user's tags, the slice — are
  fields of :class:`Current` and parts of the keys of what depends on them (:attr:`Current.key`,
  :attr:`Current.tagged_key`); nothing of them is written into a shared report.
- Every derived frame (segment table, evidence, n-gram lists, …) is an ``st.cache_data`` function whose first
  argument is that explicit key (``key``) and whose report argument is excluded from hashing (``_report``). They
  are called by the page that needs them, so each is computed lazily the first time its page opens.

A widget click therefore never recomputes a metric: it reruns the script, which finds everything in the caches.

Memory (figures in ``docs/dashboard.md``): a session holds no report between runs — its :class:`Current` is kept in
``st.session_state`` through a weak reference, so the report store is the only owner. A report unused for
:data:`REPORT_TTL_S` seconds leaves the store; a sweeper thread (:func:`_sweeper`, every :data:`SWEEP_PERIOD_S` seconds)
drops such reports and then clears the derived frames (``st.cache_data``), the drawn objects (:func:`_memo`), the
registered per-upload resources (:func:`register_per_upload`) and scoring's own caches
(:func:`mtdiag.scoring.evaluate.clear_caches`: tokenisations, TER references, Arrow's pool), and hands the freed memory
back to the system (``malloc_trim``). Active sessions recompute only the views they draw next.
"""

from __future__ import annotations

import ctypes
import gc
import hashlib
import os
import threading
import time
import weakref
from collections import OrderedDict
from dataclasses import dataclass, replace
from functools import cached_property
from typing import Any, Callable

import pandas as pd
import streamlit as st

from mtdiag.core import highlight, registry
from mtdiag.core.evalset import EvalSet
from mtdiag.core.tags import TAG_COLUMNS
from mtdiag.pipeline.inputs import DEFAULT_WEIGHTS, ErrorWeights, Options, Report, clear_caches, underived
from mtdiag.io import LIMIT_SETTINGS, Limits, testset_shape
from mtdiag.ui import sessions

SESSION_KEY = "_mtdiag_current"
MAX_REPORTS = 12  # scored reports and the judged reports made of them (which share their scores)
# a report (and what is derived from it) unused this long is dropped; the sweeper looks every SWEEP_PERIOD_S.
# Both can be set from the environment (MTDIAG_REPORT_TTL_S, MTDIAG_SWEEP_PERIOD_S), e.g. for the memory benchmark.
REPORT_TTL_S = float(os.environ.get("MTDIAG_REPORT_TTL_S", 300))
SWEEP_PERIOD_S = float(os.environ.get("MTDIAG_SWEEP_PERIOD_S", 30))


SESSION_BUDGET_MB = float(os.environ.get("MTDIAG_SESSION_BUDGET_MB", 2048))
SESSION_MB = 256.0
"""What a session's pages cost whatever the data (tables, figures, their cached copies), in MB: measured as the
shift of every set (105-140 MB whatever the shape), with a margin."""
FOOTPRINT_FACTOR = 67.0
"""Peak memory of a session per byte of loaded text (UTF-8), scoring and every page drawn from it."""
SEGMENT_BYTES = 3_800
"""Peak memory of a session per segment, whatever its systems: the sources table, the references' and the source's
tokens and evidence, the slices' fields, their cached copies."""
PAIR_BYTES = 9_800
"""Peak memory of a session per (system, segment) pair beyond its text (scoring with the default metrics, predicted
MQM's spans, the queue and its cached copies, buckets, the slice finder …)."""
SYSTEM_BYTES = 2_350_000
"""Peak memory of a session per system beyond its pairs: the paired bootstrap against a baseline resamples every
system's statistics at once (1,000 resamples of every statistic), the ranked significance tests every pair."""
# The five are measured, not guessed: benchmarks/bench_session_memory.py opens every page of uploaded sets (2 to 998
# systems, 80 to 40,000 segments, 1 to 400 words per output) under AppTest and reads the peak RSS above a warm
# start. With SESSION_MB held at 256, the other four are the smallest (a linear program minimising the sum of the
# estimates, then rounded up) that put the estimate of each of nineteen such sets at least 20 % above its measured
# peak (docs/inputs.md: the table, and sets admitted just under a budget). An earlier fit (45 x text, 23,000 per
# segment, 4,200 per pair, 1.45 MB per system) estimated 300 systems x 300 segments at 0.72 of its peak.


def text_megabytes(evalset: EvalSet) -> float:
    """The UTF-8 size in MB (2**20 bytes) of every text of the set, from Arrow's string lengths, copying none."""
    import pyarrow as pa
    import pyarrow.compute as pc

    total = 0
    for frame in (evalset.segments, evalset.refs, evalset.hyps):
        for column in frame.columns:
            array = pa.array(frame[column].astype("str").array)  # Arrow's own buffer for a ``str`` column
            total += pc.sum(pc.binary_length(array)).as_py() or 0
    return total / 2**20


def footprint_megabytes(text_mb: float, segments: int, systems: int) -> float:
    """The estimated peak of a session on ``text_mb`` MB of text in ``segments`` segments of ``systems`` systems.

    Every page drawn: :data:`SESSION_MB`, :data:`FOOTPRINT_FACTOR` per byte of text, :data:`SEGMENT_BYTES` per segment,
    :data:`PAIR_BYTES` per (system, segment) pair — systems x segments, with the statistics of the default metrics — and
    :data:`SYSTEM_BYTES` per system; measured (``benchmarks/bench_session_memory.py``)."""
    work = segments * SEGMENT_BYTES + segments * systems * PAIR_BYTES + systems * SYSTEM_BYTES
    return SESSION_MB + text_mb * FOOTPRINT_FACTOR + work / 2**20


def _count(n: int, noun: str) -> str:
    return f"{n:,} {noun}" + ("" if n == 1 else "s")


def _too_large(what: str, need: float, budget: float) -> str:
    return (f"{what} needs about {need:,.0f} MB with every page drawn, over this session's memory budget of "
            f"{budget:,g} MB "
            "(set by the server's MTDIAG_SESSION_BUDGET_MB). Score it with the command line, which works in slices "
            "of segments and can use a Dask cluster: `mtdiag score --ref REF --hyp NAME=FILE ... --dask local:2`; "
            "or upload fewer systems or segments.")


def over_budget(data: "Dataset", budget_mb: float | None = None) -> str | None:
    """A message when scoring ``data`` would need more memory than the session budget, else None.

    The budget: ``MTDIAG_SESSION_BUDGET_MB``, default 2,048 MB; the need: :func:`footprint_megabytes`. A set too large
    for a shared server is refused before scoring starts, so the server stays up for the others; uploads are also
    checked before they are parsed (:func:`uploads_over_budget`, :func:`session_limits`)."""
    budget = SESSION_BUDGET_MB if budget_mb is None else budget_mb
    evalset = data.evalset
    size = text_megabytes(evalset)
    need = footprint_megabytes(size, evalset.n_segments, len(evalset.systems))
    if need <= budget:
        return None
    return _too_large(f"This data is too large for the dashboard: {size:,.2f} MB of text "
                      f"({_count(len(evalset.systems), 'system')}, {_count(len(evalset.ref_names), 'reference')}, "
                      f"{evalset.n_segments:,} segments)", need, budget)


def uploads_over_budget(files: list[tuple[str, bytes]], budget_mb: float | None = None) -> str | None:
    """A message when uploaded text files would need more memory than the session budget, else None.

    Judged before any of them is parsed: their bytes as text, the longest file's lines as the segments and every file
    as a system (upper bounds; counting is C: ``bytes.count``)."""
    budget = SESSION_BUDGET_MB if budget_mb is None else budget_mb
    size = sum(len(data) for _, data in files) / 2**20
    counts = [data.count(b"\n") + 1 for _, data in files]
    lines = sum(counts)
    need = footprint_megabytes(size, max(counts, default=0), len(files))
    if need <= budget:
        return None
    return _too_large(f"These uploads are too large for the dashboard: {size:,.2f} MB of text in "
                      f"{_count(len(files), 'file')} of {lines:,} lines", need, budget)


def testset_over_budget(display: str, data: bytes, budget_mb: float | None = None) -> str | None:
    """A message when a test-set file (``data``: its bytes, inflated) would exceed the session's budget, else None.

    Judged before parsing: its bytes as text, the segments and systems they show (:func:`mtdiag.io.testset_shape`)."""
    budget = SESSION_BUDGET_MB if budget_mb is None else budget_mb
    segments, systems = testset_shape(display, data)
    size = len(data) / 2**20
    need = footprint_megabytes(size, segments, systems)
    if need <= budget:
        return None
    return _too_large(f"this test set is too large for the dashboard: {size:,.2f} MB of text, up to "
                      f"{_count(segments, 'segment')} of {_count(systems, 'system')}", need, budget)


def additions_over_budget(data: "Dataset", files: list[tuple[str, bytes]], systems: int = 0,
                          budget_mb: float | None = None) -> str | None:
    """A message when ``data`` with the files added would need more than the session's memory budget, else None.

    The files: annotations, scores, metric spans; ``systems`` of them system outputs. Judged before they are parsed:
    the set's footprint with the files' bytes as text (:func:`footprint_megabytes`)."""
    budget = SESSION_BUDGET_MB if budget_mb is None else budget_mb
    evalset = data.evalset
    size = memo("text_megabytes", data.data_key, (), lambda: text_megabytes(evalset))
    size += sum(len(b) for _, b in files) / 2**20
    need = footprint_megabytes(size, evalset.n_segments, len(evalset.systems) + systems)
    if need <= budget:
        return None
    return _too_large(f"{data.label} with {', '.join(name for name, _ in files)} is too large for the dashboard "
                      f"({size:,.2f} MB of text)", need, budget)


def session_limits(budget_mb: float | None = None) -> Limits:
    """The input limits of a session: the environment's (``MTDIAG_MAX_ROWS`` …), each lowered to what the budget serves.

    See docs/inputs.md. What the session's memory budget serves by itself: bytes by :data:`FOOTPRINT_FACTOR`, lines
    by :data:`SEGMENT_BYTES` + :data:`PAIR_BYTES` (a line is at least a segment with one system's output: a set has a
    system), cells by :data:`PAIR_BYTES` (a cell is at most a pair) — so a file too large for the budget is refused
    while it is read or inflated, before it is parsed, and its message says the budget is what bounds it."""
    budget = SESSION_BUDGET_MB if budget_mb is None else budget_mb
    limits = Limits.from_environment()
    fits = {"max_file_bytes": budget * 2**20 / FOOTPRINT_FACTOR,
            "max_rows": budget * 2**20 / (SEGMENT_BYTES + PAIR_BYTES), "max_cells": budget * 2**20 / PAIR_BYTES}
    lowered = {name: max(int(value), 1) for name, value in fits.items() if value < getattr(limits, name)}
    how = ("this session's memory budget of {budget:,g} MB allows no more (the server's MTDIAG_SESSION_BUDGET_MB); "
           "the command line reads larger files ({flag} N)")
    return replace(limits, **lowered, how_to_raise=tuple(
        (name, how.format(budget=budget, flag=LIMIT_SETTINGS[name][0])) for name in lowered))


@dataclass(frozen=True)
class Dataset:
    """A loaded test set: the EvalSet as read (human error rows not weighed), content hash, origin and display label."""

    evalset: EvalSet
    data_key: str
    origin: str  # "folder" (read wholly from a test-set folder on the server), "upload" (holds uploaded data) or
    # "saved" (a run from the workspace); only a folder's report is kept on disk (mtdiag.scoring.report_cache)
    label: str
    saved_in: tuple[str, str] | None = None  # (workspace folder, run id) of a saved run: where its tags are kept

    @cached_property
    def scoring_key(self) -> str:
        """What the scored report is keyed by: the texts and what else a metric reads, never the human judgements.

        As :meth:`~mtdiag.core.evalset.EvalSet.scoring_hash` gives it."""
        return self.evalset.scoring_hash()


def weights_key(weights: ErrorWeights) -> str:
    """A scheme's identity in a key: its name and a digest of its rules (two weights files of one name differ)."""
    return f"{weights.name}:{hashlib.sha256(repr(weights.rules).encode()).hexdigest()[:16]}"


def tags_digest(tags: pd.DataFrame | None) -> str:
    """A digest of a tag set ("" for none): the part of a key that depends on the tags."""
    if tags is None or not len(tags):
        return ""
    return hashlib.sha256(pd.util.hash_pandas_object(tags[TAG_COLUMNS], index=False).values.tobytes()).hexdigest()[:16]


@dataclass(frozen=True)
class Current:
    """What every page works on: the data, the options, the report of them, and the session's ``weights`` and ``tags``.

    ``report``: the shared scored report with the data's human judgements weighed by ``weights`` (:func:`report_for`),
    restricted to the sidebar's slice when one is set (``where``: then it is the slice's report). ``weights``: the
    scheme of human error rows; ``tags``: the user's tags (whole-set segments: an input of the slice and the slice
    finder, never in a report)."""

    data: Dataset
    options: Options
    report: Report
    weights: ErrorWeights = DEFAULT_WEIGHTS
    tags: pd.DataFrame | None = None
    where: str = ""  # the slice expression ``report`` is restricted to (mtdiag.ui.slicing); "" = every segment

    @cached_property
    def pending(self) -> tuple[str, ...]:
        """The metrics derived from the report (predicted MQM) that it does not hold yet.

        They are computed after this run's page is drawn (:func:`mtdiag.ui.reports.complete`)."""
        return underived(self.report)

    @property
    def key(self) -> str:
        """What the cached frames and figures of this run are keyed by: every input of the report the pages get.

        The data with its judgements, the options, the scheme and the slice (with a slice also the tags: it may read
        them, ``tag == "x"``); the frames are shared by every session of the server with the same inputs."""
        key = judged_key(self.data, self.options, self.weights)
        if self.pending:  # the first page's report: its frames are not those of the report completed
            key += FIRST
        if not self.where:
            return key
        tags = tags_digest(self.tags)
        return f"{key}|tags:{tags}|where:{self.where}" if tags else f"{key}|where:{self.where}"

    @property
    def scores_key(self) -> str:
        """What a frame that reads the scores alone is keyed by (:attr:`mtdiag.views.Table.scores_only`).

        The scored report's key — kept while human files and the scheme change —, or :attr:`key` on a slice (which may
        read the human scores)."""
        if self.where:
            return self.key
        return report_key(self.data, self.options) + (FIRST if self.pending else "")

    @property
    def tagged_key(self) -> str:
        """:attr:`key` and the tags: the key of what reads tags itself (the slice finder's ``tag == "…"`` slices)."""
        tags = tags_digest(self.tags)
        return f"{self.key}|tags:{tags}" if tags and not self.where else self.key

    @property
    def evalset(self) -> EvalSet:
        """The report's set: the slice's when a slice is set (its segments renumbered, ``seg_ids`` the originals)."""
        return self.report.evalset


def report_key(data: Dataset, options: Options) -> str:
    """The key of the scored report: ``data``'s texts, ``options`` and the registered metrics and checks.

    By :func:`mtdiag.core.registry.fingerprint`: options that name none mean "every registered one"."""
    return f"{data.scoring_key}|{options!r}|registered:{registry.fingerprint()}"


def judged_key(data: Dataset, options: Options, weights: ErrorWeights) -> str:
    """The key of the pages' report: data with judgements, options, scheme, and the registered metrics and checks."""
    return f"{data.data_key}|{options!r}|weights:{weights_key(weights)}|registered:{registry.fingerprint()}"


class _ReportStore:
    """A thread-safe LRU of at most ``size`` reports by key, each dropped ``ttl`` seconds after its last use
    (:meth:`expire`)."""

    def __init__(self, size: int, ttl: float) -> None:
        self._size = size
        self._ttl = ttl
        self._items: OrderedDict[str, tuple[Report, float]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: str) -> Report | None:
        with self._lock:
            item = self._items.get(key)
            if item is None:
                return None
            self._items[key] = (item[0], time.monotonic())
            self._items.move_to_end(key)
            return item[0]

    def put(self, key: str, report: Report) -> None:
        with self._lock:
            self._items[key] = (report, time.monotonic())
            self._items.move_to_end(key)
            while len(self._items) > self._size:
                self._items.popitem(last=False)

    def expire(self, now: float | None = None) -> int:
        """Drop the reports unused for ``ttl`` seconds; returns how many were dropped."""
        now = time.monotonic() if now is None else now
        with self._lock:
            old = [key for key, (_, used) in self._items.items() if now - used >= self._ttl]
            for key in old:
                del self._items[key]
            return len(old)

    def __len__(self) -> int:
        with self._lock:
            return len(self._items)


_PER_UPLOAD: list[Callable[[], None]] = []


def register_per_upload(clear: Callable[[], None]) -> None:
    """Have the sweeper call ``clear`` whenever reports expire: for caches of uploaded data outside this module.

    ``clear``: e.g. a ``st.cache_resource`` function's ``.clear``."""
    if clear not in _PER_UPLOAD:
        _PER_UPLOAD.append(clear)


def sweep(store: "_ReportStore", now: float | None = None) -> int:
    """Drop the expired reports; returns how many were dropped.

    If any, clear everything derived from reports and uploads and hand the freed memory back to the system."""
    dropped = store.expire(now)
    if dropped:
        st.cache_data.clear()
        _memo.clear()
        for clear in _PER_UPLOAD:
            clear()
        clear_caches()  # the tokenisations of every set scored since: the largest thing left after the reports
        gc.collect()
        _malloc_trim()
    return dropped


OUT_OF_MEMORY_HINT = ("Try a slice of the data (the sidebar's slice box), fewer systems, or the command line, which "
                      "works in slices of segments and can use a Dask cluster (`mtdiag score … --dask local:2`).")
OUT_OF_MEMORY = ("This page needs more memory than the server has free: nothing more was drawn, and the data stays "
                 "loaded. " + OUT_OF_MEMORY_HINT)
"""What a page says when an allocation fails (``MemoryError``, numpy's ``_ArrayMemoryError``): never a traceback."""


def release_memory() -> None:
    """After a failed allocation: drop this process's derived frames and drawn objects, and free the memory.

    They are rebuilt on demand; the memory goes back to the system, so the next run (any session's) starts clean."""
    st.cache_data.clear()
    _memo.clear()
    gc.collect()
    _malloc_trim()


def _malloc_trim() -> None:
    """glibc keeps freed heap pages; ``malloc_trim(0)`` returns them (a no-op elsewhere)."""
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass


def _sweeper(store_ref: "weakref.ref[_ReportStore]") -> None:
    """Sweep every :data:`SWEEP_PERIOD_S` seconds while the store exists (``st.cache_resource.clear()`` drops
    it, and this thread ends), and shut down the closed sessions Streamlit no longer keeps for a reconnect
    (:func:`mtdiag.ui.sessions.reap_closed_sessions`)."""
    while True:
        time.sleep(SWEEP_PERIOD_S)
        store = store_ref()
        if store is None:
            return
        try:
            sweep(store)
            sessions.reap_closed_sessions(release=_malloc_trim)  # what Streamlit keeps of closed sessions
        except Exception:  # noqa: BLE001 - the sweeper must outlive a failing clear; the next round retries
            pass
        del store


@st.cache_resource(show_spinner=False)
def report_store() -> _ReportStore:
    """The process's report store, with its sweeper thread (started once, with the store)."""
    store = _ReportStore(MAX_REPORTS, REPORT_TTL_S)
    threading.Thread(target=_sweeper, args=(weakref.ref(store),), name="mtdiag-sweeper", daemon=True).start()
    return store


FIRST = "|first"  # the store's key of a report scored without its derived metrics: what the first page draws


def set_current(current: Current) -> None:
    """Make ``current`` this run's data for the pages, held weakly: the dashboard's entry owns it for the run.

    A session between runs keeps no report alive (the store may drop it; the next run fetches or recomputes it)."""
    st.session_state[SESSION_KEY] = weakref.ref(current)


def current_report() -> Report | None:
    """This run's report (None before the dashboard's entry sets it): the widgets name metric columns through it.

    So a session's imported metrics are its own (:func:`mtdiag.metrics.metric_info`)."""
    ref = st.session_state.get(SESSION_KEY)
    value = ref() if ref is not None else None
    return value.report if value is not None else None


def current() -> Current:
    """The data, options and report of this run, set by :mod:`mtdiag.ui.dashboard` before the page runs."""
    ref = st.session_state.get(SESSION_KEY)
    value = ref() if ref is not None else None
    if value is None:
        st.info("No data is loaded yet: choose a test set or upload files in the sidebar.")
        st.stop()
    return value


@st.cache_resource(show_spinner=False, max_entries=128, ttl=REPORT_TTL_S)
def _memo(kind: str, key: str, params: tuple, _build: Callable[[], Any]) -> Any:
    return _build()


def memo(kind: str, key: str, params: tuple, build: Callable[[], Any]) -> Any:
    """A drawn object (a plotly figure, a table style) built once per (kind, data + options key, params), shared.

    Read-only: a plotly figure costs more to build than a rerun may (``st.plotly_chart`` only serialises it)."""
    return _memo(kind, key, tuple(params), build)


# --------------------------------------------------------------------------------------- cached frames

VIEW_MAX_ENTRIES = 64
SIGNIFICANCE_SPINNER = "Resampling for significance …"
_VIEWS: dict[Callable, Callable] = {}
_VIEWS_LOCK = threading.Lock()


def view(fn: Callable, *, spinner: str | bool = False, max_entries: int = VIEW_MAX_ENTRIES,
         name: str | None = None, by: str = "key") -> Callable:
    """``view(fn)(current, *args, **kwargs)`` = ``fn(current.report, *args, **kwargs)``, cached per (key, arguments).

    Cached with ``st.cache_data`` (bounded: ``max_entries``, ``ttl`` :data:`REPORT_TTL_S`; cleared by the sweeper with
    every other derived frame) per data + options key: the one of :class:`Current` that ``by`` names — ``key``,
    ``tagged_key`` (``fn`` reads the user's tags, given among the arguments) or ``scores_key`` (``fn`` reads the
    scores alone).

    One cached function per wrapped ``fn``, made on first use and kept: Streamlit keys a cache on the decorated
    function's module, qualified name and source, so each gets the qualified name of the function it wraps (or
    ``name``, for functions without a name of their own, such as a view's table builders) — two views never share
    entries. The report itself is not hashed (``_report``): the key identifies it."""
    with _VIEWS_LOCK:
        cached = _VIEWS.get(fn)
        if cached is None:
            def run(key: str, args: tuple, kwargs: tuple, _report: Report):
                return fn(_report, *args, **dict(kwargs))

            run.__module__ = getattr(fn, "__module__", __name__)
            run.__qualname__ = f"view[{name or getattr(fn, '__qualname__', repr(fn))}]"
            run.__name__ = run.__qualname__
            cached = st.cache_data(show_spinner=spinner, max_entries=max_entries, ttl=REPORT_TTL_S)(run)
            _VIEWS[fn] = cached

    def call(current: "Current", *args, **kwargs):
        return cached(getattr(current, by), args, tuple(sorted(kwargs.items())), current.report)

    return call

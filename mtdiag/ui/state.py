"""The dashboard's state: the loaded data, the cached report, and every cached frame the pages draw.

Caching rules (``shared/DESIGN.md``):

- The :class:`~mtdiag.api.Report` is computed once per (data, options): the key is ``EvalSet.content_hash()`` plus
  ``repr(Options)``. It lives in a small LRU held by ``st.cache_resource`` (shared by every session, cleared by
  ``st.cache_resource.clear()``). We keep the LRU ourselves instead of decorating ``evaluate`` because the
  computation draws a progress bar: a cached function that writes to an element created outside it cannot be
  replayed by Streamlit (``CacheReplayClosureError``), and a cache hit must draw nothing.
- Every derived frame (segment table, evidence, n-gram lists, …) is an ``st.cache_data`` function whose first
  argument is that explicit key (``key``) and whose report argument is excluded from hashing (``_report``). They
  are called by the page that needs them, so each is computed lazily the first time its page opens.

A widget click therefore never recomputes a metric: it reruns the script, which finds everything in the caches.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any, Callable

import pandas as pd
import streamlit as st

from mtdiag import compare, diagnose, highlight
from mtdiag.api import Options, Report, evaluate
from mtdiag.evalset import EvalSet

SESSION_KEY = "_mtdiag_current"
MAX_REPORTS = 6


@dataclass(frozen=True)
class Dataset:
    """A loaded test set: the EvalSet, its content hash, where it came from and a display label."""

    evalset: EvalSet
    data_key: str
    origin: str  # "folder" or "upload"
    label: str


@dataclass(frozen=True)
class Current:
    """What every page works on: the data, the options and the report computed from them."""

    data: Dataset
    options: Options
    report: Report

    @property
    def key(self) -> str:
        return report_key(self.data, self.options)

    @property
    def evalset(self) -> EvalSet:
        return self.data.evalset


def report_key(data: Dataset, options: Options) -> str:
    return f"{data.data_key}|{options!r}"


class _ReportStore:
    """A thread-safe LRU of reports by key."""

    def __init__(self, size: int) -> None:
        self._size = size
        self._items: OrderedDict[str, Report] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: str) -> Report | None:
        with self._lock:
            report = self._items.get(key)
            if report is not None:
                self._items.move_to_end(key)
            return report

    def put(self, key: str, report: Report) -> None:
        with self._lock:
            self._items[key] = report
            self._items.move_to_end(key)
            while len(self._items) > self._size:
                self._items.popitem(last=False)


@st.cache_resource(show_spinner=False)
def _report_store() -> _ReportStore:
    return _ReportStore(MAX_REPORTS)


def report_for(data: Dataset, options: Options) -> Report:
    """The report of ``data`` under ``options``: from the cache, or computed now with a progress bar."""
    store = _report_store()
    key = report_key(data, options)
    report = store.get(key)
    if report is None:
        bar = st.progress(0.0, text=f"Computing metrics for {highlight.escape_markdown(data.label)} …")

        def progress(fraction: float, message: str) -> None:  # the message names systems: user text
            bar.progress(min(max(float(fraction), 0.0), 1.0),
                         text=f"Computing metrics: {highlight.escape_markdown(message)}")

        report = evaluate(data.evalset, options, progress=progress)
        bar.empty()
        store.put(key, report)
    return report


def set_current(current: Current) -> None:
    st.session_state[SESSION_KEY] = current


def current() -> Current:
    """The data, options and report of this run (set by ``app.py`` before the page runs)."""
    value = st.session_state.get(SESSION_KEY)
    if value is None:
        from mtdiag.ui import navigation

        navigation.bootstrap()  # the page ran without app.py: rerun through it (see mtdiag.ui.navigation)
        st.info("No data is loaded yet: choose a test set or upload files in the sidebar.")
        st.stop()
    return value


@st.cache_resource(show_spinner=False, max_entries=128)
def _memo(kind: str, key: str, params: tuple, _build: Callable[[], Any]) -> Any:
    return _build()


def memo(kind: str, key: str, params: tuple, build: Callable[[], Any]) -> Any:
    """A drawn object (a plotly figure, a table style) built once per (kind, data + options key, params) and
    shared read-only: building plotly figures costs more than a rerun may (a figure is serialised, never changed,
    by ``st.plotly_chart``)."""
    return _memo(kind, key, tuple(params), build)


# --------------------------------------------------------------------------------------- cached frames
# Each takes the explicit cache key first; `_report` is not hashed (it is what the key identifies).


@st.cache_data(show_spinner=False, max_entries=16)
def segment_table(key: str, otem_above: float, utem_quantile: float, mt_only_order: int | None,
                  _report: Report) -> pd.DataFrame:
    mt_only = mt_only_segments(key, mt_only_order, _report) if mt_only_order else None
    return diagnose.segment_table(_report, diagnose.Thresholds(otem_above, utem_quantile), mt_only=mt_only)


@st.cache_data(show_spinner=False, max_entries=256)
def segment_detail(key: str, system: str, seg: int, _report: Report) -> diagnose.SegmentDetail:
    return diagnose.segment_detail(_report, system, seg)


@st.cache_data(show_spinner=False, max_entries=64)
def evidence_frame(key: str, metric: str, system: str, _report: Report) -> pd.DataFrame:
    """OTEM/UTEM evidence of one system (over-/under-matched n-grams of every segment)."""
    return _report.evidence(metric, system)


@st.cache_data(show_spinner=False, max_entries=64)
def frequent_ngrams(key: str, metric: str, system: str, _report: Report) -> pd.DataFrame:
    column = "over" if metric == "otem" else "under"
    return diagnose.frequent_ngrams(evidence_frame(key, metric, system, _report), column)


@st.cache_data(show_spinner=False, max_entries=16)
def mp_per_order(key: str, metric: str, _report: Report) -> pd.DataFrame:
    return diagnose.mp_per_order(_report, metric)


@st.cache_data(show_spinner=False, max_entries=16)
def distribution_summary(key: str, metric: str, _report: Report) -> pd.DataFrame:
    return diagnose.distribution_summary(_report, metric)


@st.cache_data(show_spinner=False, max_entries=16)
def score_histogram(key: str, metric: str, _report: Report) -> pd.DataFrame:
    return diagnose.score_histogram(_report, metric)


@st.cache_data(show_spinner=False, max_entries=16)
def word_order_table(key: str, _report: Report) -> pd.DataFrame:
    return diagnose.word_order_table(_report)


@st.cache_data(show_spinner=False, max_entries=64)
def edit_tables(key: str, system: str, _report: Report) -> dict[str, pd.DataFrame]:
    return diagnose.edit_tables(_report, system, top=None)


@st.cache_data(show_spinner=False, max_entries=16)
def op_counts(key: str, _report: Report) -> pd.DataFrame:
    return diagnose.op_counts(_report)


@st.cache_data(show_spinner=False, max_entries=64)
def alignment(key: str, system: str, seg: int, _report: Report) -> tuple[str, pd.DataFrame]:
    detail = segment_detail(key, system, seg, _report)
    return detail.best_ref, detail.alignment


@st.cache_data(show_spinner=False, max_entries=64)
def term_table(key: str, system: str, _report: Report) -> pd.DataFrame | None:
    return diagnose.term_table(_report, system)


@st.cache_data(show_spinner=False, max_entries=16)
def term_summary(key: str, _report: Report) -> pd.DataFrame:
    return diagnose.term_summary(_report)


@st.cache_data(show_spinner=False, max_entries=16)
def segment_differences(key: str, a: str, b: str, metric: str, _report: Report) -> pd.DataFrame:
    return diagnose.segment_differences(_report, a, b, metric)


@st.cache_data(show_spinner=False, max_entries=64)
def hypothesis_diff(key: str, a: str, b: str, seg: int, _report: Report):
    return diagnose.hypothesis_diff(_report, a, b, seg)


@st.cache_data(show_spinner=False, max_entries=16)
def mt_only_segments(key: str, order: int, _report: Report) -> dict[str, list[int]] | None:
    """Per system, the segments whose output has an MT-only n-gram of ``order`` (None without the n-gram
    module)."""
    return diagnose.mt_only_segments(_report, order)


@st.cache_data(show_spinner="Resampling for significance …", max_entries=16)
def significance(key: str, baseline: str, method: str, _report: Report) -> pd.DataFrame:
    """Paired significance of every system against ``baseline`` (:func:`mtdiag.compare.significance`)."""
    return compare.significance(_report, baseline, method)


@st.cache_data(show_spinner=False, max_entries=16)
def significance_pair(key: str, a: str, b: str, method: str, _report: Report) -> pd.DataFrame:
    """Paired significance of system ``a`` against ``b`` only."""
    return compare.significance(_report, b, method, systems=[a])


@st.cache_data(show_spinner=False, max_entries=16)
def signatures(key: str, baseline: str | None, method: str, _report: Report) -> dict[str, str]:
    sig = significance(key, baseline, method, _report) if baseline and baseline in _report.evalset.systems else None
    return compare.report_signatures(_report, sig)


@st.cache_data(show_spinner="Counting n-grams …", max_entries=32)
def ngram_tables(key: str, min_count: int, ht_ref: str, order: int, _report: Report):
    """HT-only / MT-only / skewed tables of every system at one order (Aikawa & Rarrick)."""
    return diagnose.ngram_tables(_report, orders=(order,), min_count=min_count, ht_ref=ht_ref)


@st.cache_data(show_spinner=False, max_entries=64)
def ngram_rows(key: str, min_count: int, ht_ref: str, system: str, order: int, kind: str,
               _report: Report) -> pd.DataFrame:
    return diagnose.ngram_rows(ngram_tables(key, min_count, ht_ref, order, _report), system, order, kind)


@st.cache_data(show_spinner="Scoring each reference against the others (ORANGE/KING) …", max_entries=8)
def orange_king(key: str, metrics: tuple[str, ...], _report: Report):
    """ORANGE and KING of each metric (Amigó et al. 2006 §2.2)."""
    from mtdiag import likeness

    return likeness.orange_king(likeness.likeness_scores(_report.evalset, metrics, _report.options))


@st.cache_data(show_spinner="Scoring systems and references against each reference (QUEEN) …", max_entries=8)
def queen(key: str, metrics: tuple[str, ...], pool: bool, _report: Report):
    """QUEEN of each system over the metric set (Amigó et al. 2006 §3.1)."""
    from mtdiag import likeness

    return likeness.queen(likeness.likeness_scores(_report.evalset, metrics, _report.options), pool=pool)


@st.cache_data(show_spinner=False, max_entries=8)
def human_agreement(key: str, _report: Report) -> pd.DataFrame:
    from mtdiag import human

    return human.human_agreement(_report)


@st.cache_data(show_spinner=False, max_entries=8)
def human_ranking(key: str, _report: Report) -> pd.DataFrame:
    from mtdiag import human

    table = human.human_system_scores(_report.evalset.human)
    table["rank"] = range(1, len(table) + 1)
    return table


@st.cache_data(show_spinner=False, max_entries=16)
def human_points(key: str, metric: str, _report: Report) -> tuple[pd.DataFrame, pd.DataFrame]:
    return diagnose.human_points(_report, metric)

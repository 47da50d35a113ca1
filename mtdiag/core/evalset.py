"""The in-memory data model: one test set and the systems run on it (see ``docs/architecture.md``).

``EvalSet`` holds pandas frames indexed by ``seg`` (0..n-1):

- ``segments``: columns ``src`` (optional, may be all empty) and ``doc`` (optional document id);
- ``refs``: one column per reference (``ref``, or ``A``, ``B``, ... as named by the loader) — or none: most real
  output has no reference, and every view that can work from the source and the outputs alone does
  (``has_references``);
- ``hyps``: one column per system;
- ``terms``: optional long frame, one row per term occurrence (``seg``, ``src_term``, ``tgt_term``, ...);
- ``human``: optional long frame ``seg``, ``system``, ``score``;
- ``annotations``: optional human error spans (MQM / ESA), one row per error (:mod:`mtdiag.io.annotations`);
- ``rated``: optional ``seg``, ``system``, ``rater`` — every output each rater of an annotation file rated, with
  errors or without (the denominators of the per-rater statistics, :mod:`mtdiag.analysis.errorstats`);
- ``error_rows``: optional human error rows as read, not weighed (:data:`mtdiag.io.ratings.ERROR_COLUMNS`): a
  weighting scheme chosen by the analysis makes them the ``annotations`` and, where none are given, the ``human``
  scores (:func:`mtdiag.io.error_weights.weighed`);
- ``metric_spans``: optional error spans predicted by a metric (xCOMET and other explainable metrics), one row per
  span (:mod:`mtdiag.io.metric_spans`) — kept apart from the human ``annotations``: never human scores or errors;
- ``human_systems``: optional human system scores as published with the data (a WMT ``.sys.score`` or
  ``.domain.score``: :mod:`mtdiag.io.mtme`): ``system``, ``domain`` (``""`` for the whole set), ``score`` — shown
  beside the mean of the rated segments; they describe the whole set, so a slice has none;
- ``scores``: optional long frame ``seg``, ``system``, ``metric``, ``score`` — segment scores of metrics computed
  elsewhere (COMET, MetricX, …), with ``imported`` describing each such metric (:class:`ImportedMetricInfo`).

An ``EvalSet`` is immutable in spirit: functions return new ones (``with_hyps``) instead of mutating. Two digests
identify it for caching: ``scoring_hash`` what the metrics read (the texts, the terms, imported scores and spans, the
language pair: a report is scored once per scoring hash and options), ``content_hash`` everything, the human
judgements too (``human``, ``annotations``, ``rated``, ``error_rows``: they join a scored report without scoring it
again, :meth:`without_judgements`).

A *slice* of a set (:meth:`EvalSet.segment_subset`, the segments an expression selects: ``mtdiag.slices``) is an
EvalSet of its own, ``seg`` renumbered from 0, whose ``segments`` frame keeps the original 0-based segment of each
row in the column ``orig_seg`` (:data:`ORIGIN_COLUMN`). ``seg_ids`` gives the 1-based ids to show — the original
ones — so a slice's outputs name the segments as the whole set does. ``orig_seg`` is no label
(:attr:`EvalSet.label_columns`).
"""

from __future__ import annotations

import hashlib
from functools import cached_property
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd

ORIGIN_COLUMN = "orig_seg"  # in a slice's segments: the row's 0-based segment in the whole set
_NOT_LABELS = ("src", ORIGIN_COLUMN)


@dataclass(frozen=True)
class ImportedMetricInfo:
    """A metric whose segment scores come from a file (``EvalSet.scores``).

    Its ``name`` (the column/key), whether higher is better, where it came from (``source``: the file), and
    system-level scores the file gave (``system_scores``: ``((system, score), ...)``, for checking). ``published``:
    those system scores are the metric's own corpus scores as its authors published them (a WMT ``.sys.score``), shown
    in place of the mean of its segment scores on the whole set (:mod:`mtdiag.metrics.imported`)."""

    name: str
    higher_is_better: bool
    source: str
    system_scores: tuple[tuple[str, float], ...] = ()
    published: bool = False


@dataclass(frozen=True)
class EvalSet:
    """One test set: source segments, references (none or more), one or more systems, optional extras."""

    segments: pd.DataFrame
    refs: pd.DataFrame
    hyps: pd.DataFrame
    terms: pd.DataFrame | None = None
    human: pd.DataFrame | None = None
    name: str = "data"
    lang_pair: str | None = None  # e.g. "en-fr" when known (from a folder name or an option)
    warnings: tuple[str, ...] = field(default=())
    scores: pd.DataFrame | None = None
    imported: tuple["ImportedMetricInfo", ...] = field(default=())
    annotations: pd.DataFrame | None = None  # human error spans (MQM/ESA): mtdiag.io.ratings.SPAN_COLUMNS
    rated: pd.DataFrame | None = None  # seg, system, rater: every output an annotation file rated
    metric_spans: pd.DataFrame | None = None  # metric-predicted spans: mtdiag.io.metric_spans.METRIC_SPAN_COLUMNS
    error_rows: pd.DataFrame | None = None  # human error rows as read: mtdiag.io.ratings.ERROR_COLUMNS
    human_systems: pd.DataFrame | None = None  # published human system scores: system, domain ("" = whole), score

    def __post_init__(self) -> None:
        n = len(self.segments)
        if self.hyps.shape[1] == 0:
            raise ValueError("an EvalSet needs at least one system output")
        if self.refs.shape[1] == 0 and not self.src.astype(str).str.len().gt(0).any():
            raise ValueError("an EvalSet needs a reference or a source")
        for frame_name in ("refs", "hyps"):
            frame = getattr(self, frame_name)
            if len(frame) != n:
                raise ValueError(f"{frame_name} has {len(frame)} rows but the segments have {n}")

    @property
    def n_segments(self) -> int:
        """The number of segments."""
        return len(self.segments)

    @property
    def has_references(self) -> bool:
        """True when the set has at least one human reference."""
        return self.refs.shape[1] > 0

    @property
    def systems(self) -> list[str]:
        """The names of the systems, in column order."""
        return list(self.hyps.columns)

    @property
    def ref_names(self) -> list[str]:
        """The names of the reference columns, in order (empty without references)."""
        return list(self.refs.columns)

    @property
    def tgt_lang(self) -> str | None:
        """Target language code from ``lang_pair`` (``en-fr`` -> ``fr``), or None when unknown."""
        if self.lang_pair and "-" in self.lang_pair:
            return self.lang_pair.split("-")[-1]
        return None

    @property
    def src(self) -> pd.Series:
        """The source text of each segment (empty strings when the set has no source)."""
        if "src" in self.segments.columns:
            return self.segments["src"]
        return pd.Series([""] * self.n_segments, index=self.segments.index, name="src")

    @cached_property
    def has_source(self) -> bool:
        """True when some segment has a source text (read once per set: every check asks, per pair shown)."""
        return "src" in self.segments.columns and bool(self.src.astype(str).str.len().gt(0).any())

    @property
    def label_columns(self) -> list[str]:
        """The label columns of the segments (``doc``, ``domain``, …): every column but the source and the origin.

        The origin is :data:`ORIGIN_COLUMN`."""
        return [c for c in self.segments.columns if c not in _NOT_LABELS]

    @property
    def seg_ids(self) -> np.ndarray:
        """The 1-based id of each segment as the user knows it.

        ``seg + 1``, or in a slice the original segment's (``orig_seg + 1``)."""
        if ORIGIN_COLUMN in self.segments.columns:
            return self.segments[ORIGIN_COLUMN].to_numpy(dtype=np.int64) + 1
        return np.arange(1, self.n_segments + 1, dtype=np.int64)

    def with_hyps(self, hyps: pd.DataFrame) -> "EvalSet":
        """A copy with other system outputs (same segments and references)."""
        return replace(self, hyps=hyps)

    def segment_slice(self, start: int, stop: int) -> "EvalSet":
        """Segments ``start..stop-1`` as an EvalSet of their own.

        ``seg`` is renumbered from 0; terms and human scores of those segments are kept. Every metric's per-segment
        statistics of a slice equal the whole set's rows, which is what chunked and distributed scoring rely on
        (:mod:`mtdiag.scoring.chunks`)."""
        index = pd.RangeIndex(stop - start, name="seg")

        def rows(frame: pd.DataFrame) -> pd.DataFrame:
            return frame.iloc[start:stop].set_axis(index, axis=0)

        def long(frame: pd.DataFrame | None) -> pd.DataFrame | None:
            if frame is None:
                return None
            kept = frame[(frame["seg"] >= start) & (frame["seg"] < stop)].copy()
            kept["seg"] -= start
            return kept.reset_index(drop=True)

        return replace(self, segments=rows(self.segments), refs=rows(self.refs), hyps=rows(self.hyps),
                       terms=long(self.terms), human=long(self.human), scores=long(self.scores),
                       annotations=long(self.annotations), rated=long(self.rated),
                       metric_spans=long(self.metric_spans), error_rows=long(self.error_rows),
                       human_systems=None, warnings=())

    def segment_subset(self, segments) -> "EvalSet":
        """The segments at ``segments`` as an EvalSet of their own.

        ``segments`` are 0-based positions, ascending, each once; or a boolean mask. ``seg`` is renumbered 0..k-1, the
        original segment of each row kept in ``orig_seg`` (composed when this set is itself a slice), and the terms,
        human scores, imported scores and error spans of those segments kept and renumbered. Like
        :meth:`segment_slice`, every metric's per-segment statistics of the subset are the whole set's rows, which is
        what makes a slice's scores exact without scoring again."""
        positions = np.asarray(segments)
        if positions.dtype == bool:
            if len(positions) != self.n_segments:
                raise ValueError(f"a mask of {len(positions)} values for {self.n_segments} segments")
            positions = np.flatnonzero(positions)
        positions = positions.astype(np.int64, copy=False)
        if len(positions) and (positions[0] < 0 or positions[-1] >= self.n_segments
                               or (len(positions) > 1 and (np.diff(positions) <= 0).any())):
            raise ValueError("segment positions must be ascending, each once, within the set")
        index = pd.RangeIndex(len(positions), name="seg")
        new_position = np.full(self.n_segments, -1, dtype=np.int64)
        new_position[positions] = np.arange(len(positions))

        def rows(frame: pd.DataFrame) -> pd.DataFrame:
            return frame.iloc[positions].set_axis(index, axis=0)

        def long(frame: pd.DataFrame | None) -> pd.DataFrame | None:
            if frame is None:
                return None
            seg = new_position[frame["seg"].to_numpy(dtype=np.int64)]
            kept = frame[seg >= 0].copy()
            kept["seg"] = seg[seg >= 0]
            return kept.reset_index(drop=True)

        segments = rows(self.segments).assign(**{ORIGIN_COLUMN: self.seg_ids[positions] - 1})
        return replace(self, segments=segments, refs=rows(self.refs), hyps=rows(self.hyps), terms=long(self.terms),
                       human=long(self.human), scores=long(self.scores), annotations=long(self.annotations),
                       rated=long(self.rated), metric_spans=long(self.metric_spans),
                       error_rows=long(self.error_rows), human_systems=None, warnings=())

    def without_judgements(self) -> "EvalSet":
        """This set without its human judgements: what a report is scored on.

        The judgements are ``human``, ``annotations``, ``rated``, ``error_rows`` and ``human_systems``; they join the
        scored report afterwards (:func:`mtdiag.pipeline.inputs.judged`)."""
        return replace(self, human=None, annotations=None, rated=None, error_rows=None, human_systems=None)

    def scoring_hash(self) -> str:
        """A stable digest of what the metrics read, for the keys of scored reports.

        It covers every text, the terms, imported scores and metric spans, the language pair; a human judgement added
        changes it not."""
        return self._digest((self.segments, self.refs, self.hyps, self.terms, None, self.scores, None),
                            (None, self.metric_spans))

    def content_hash(self) -> str:
        """A stable digest of every text and extra in the set, the human judgements too, for cache keys.

        The user's tags are no part of a set (:mod:`mtdiag.core.tags`)."""
        return self._digest((self.segments, self.refs, self.hyps, self.terms, self.human, self.scores,
                             self.annotations), (self.rated, self.metric_spans, self.error_rows, self.human_systems))

    def _digest(self, frames, extras) -> str:
        digest = hashlib.sha256()
        for frame in frames:
            if frame is None:
                digest.update(b"\x00none")
                continue
            digest.update("\x1f".join(map(str, frame.columns)).encode())
            digest.update(pd.util.hash_pandas_object(frame, index=True).values.tobytes())
        for frame in extras:  # newer extras: hashed only when present (old hashes stay)
            if frame is not None:
                digest.update("\x1f".join(map(str, frame.columns)).encode())
                digest.update(pd.util.hash_pandas_object(frame, index=True).values.tobytes())
        digest.update(str(self.lang_pair).encode())
        digest.update(repr(self.imported).encode())
        return digest.hexdigest()


def evalset_from_lists(
    refs: dict[str, list[str]],
    hyps: dict[str, list[str]],
    src: list[str] | None = None,
    **extras,
) -> EvalSet:
    """Build an EvalSet from plain Python lists (tests, the API, small scripts); ``refs`` may be empty."""
    n = len(next(iter(hyps.values())))
    index = pd.RangeIndex(n, name="seg")
    segments = pd.DataFrame({"src": src if src is not None else [""] * n}, index=index)
    return EvalSet(
        segments=segments,
        refs=pd.DataFrame(refs, index=index) if refs else pd.DataFrame(index=index),
        hyps=pd.DataFrame(hyps, index=index),
        **extras,
    )

"""What a triage check is (:class:`Check`) and the helpers every check shares: one boolean per (system, segment)
pair from per-system arrays (:func:`by_pair`), the set-relative "worst share" rule (:func:`worst_share_by`), and one
highlight span per run of marked tokens (:func:`runs`).

A check is one module of :mod:`mtdiag.triage.checks` with one :class:`Check` subclass and one line in the registry
(``mtdiag/triage/checks/__init__.py``). It declares its ``name``, ``label`` and ``help``; what it ``needs`` of the data
(:data:`mtdiag.core.needs.NEEDS`: ``source``, ``references``, or ``metric:NAME`` for the scores it reads); whether a
firing is ``critical`` (the output is plainly broken: the pair goes to the top of the queue); what it is a claim
``about`` (an output, or the segment's reference: counted apart) and whether its evidence is the reference
(``reads_reference``: it does not fire where every reference of the segment is suspect,
:mod:`mtdiag.triage.checks.suspect_reference`); whether it is computed only ``on_request`` (with options, e.g. the n-gram
order of ``mt_only_ngram``); which human error categories it ``claims`` to find (MQM categories, measured by
``benchmarks/triage_vs_human.py``); how it fires (:meth:`Check.fires`: vectorised over all pairs) and how it
explains one pair (:meth:`Check.explain`: sentences and highlight spans).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from mtdiag.core.highlight import Span, char_span_tokens, token_offsets
from mtdiag.core.needs import NEEDS, lacking

WORST_SHARE = 0.10  # the score flags mark the worst 10 % of the set


@dataclass(frozen=True)
class Finding:
    """Why a check fired on one pair: one plain sentence per finding and the output tokens to mark."""

    sentences: tuple[str, ...]
    spans: tuple[Span, ...] = ()


class Check(ABC):
    """One triage flag: declared metadata, a vectorised rule over every pair, an explanation of one pair."""

    name: ClassVar[str]
    label: ClassVar[str]
    help: ClassVar[str]
    needs: ClassVar[tuple[str, ...]] = ()  # mtdiag.core.needs.NEEDS: "source", "references", "metric:NAME" (scores it reads)
    critical: ClassVar[bool] = False  # the output is plainly broken: the pair leads the queue
    on_request: ClassVar[bool] = False  # computed only when asked for (with options)
    claims: ClassVar[tuple[str, ...]] = ()  # MQM error categories (prefixes) this flag claims to find
    about: ClassVar[str] = "output"  # what the flag is a claim about: "output", or "reference" (counted apart)
    reads_reference: ClassVar[bool] = False  # its evidence is the reference: off where every reference is suspect
    marks: ClassVar[tuple[str, ...]] = ()  # highlight kinds (mtdiag.core.highlight.KINDS) its explanation uses

    def __init__(self, **options: Any):
        self.options = options

    def applies(self, report) -> bool:
        """True when the report has everything the check needs."""
        return not lacking(report.evalset, report.metrics, self.needs)

    @abstractmethod
    def fires(self, report) -> pd.Series:
        """One boolean per pair, over ``report.segments.index``."""

    def explain(self, report, system: str, seg: int) -> Finding:
        """Why the check fired on one pair (called only where it fired); by default its ``help``."""
        return Finding((self.help,))


class WorstByCount(Check):
    """A check that counts something per pair and fires on the set's worst :data:`WORST_SHARE` by that count.

    The count is a statistic of a metric; ties are broken by the metric's score, and the check fires where the count
    reaches ``min_count``: length-aware, as a human penalty is (a sum over errors, not a rate)."""

    metric: ClassVar[str]
    statistic: ClassVar[str]
    min_count: ClassVar[int]

    def counts(self, report) -> pd.Series:
        """The check's count per pair: its ``statistic`` of its ``metric`` (:func:`statistic`)."""
        return statistic(report, self.metric, self.statistic)

    def fires(self, report) -> pd.Series:
        """One boolean per pair: among the set's worst :data:`WORST_SHARE` by count (:func:`worst_share_by`).

        Ties are broken by the metric's score; the count must reach ``min_count``."""
        counts = self.counts(report)
        return worst_share_by(counts, report.segments[self.metric]) & (counts >= self.min_count)


def modified_z_scores(values) -> np.ndarray:
    """The modified z-score of each value (Iglewicz & Hoaglin 1993).

    Its distance from the median over the median absolute deviation scaled by 1.4826 (a normal's σ); when more than half
    the values equal the median (MAD 0), the mean absolute deviation scaled by 1.2533 stands in for it. NaN stays NaN;
    values that never vary give 0."""
    values = np.asarray(values, dtype=float)
    finite = values[np.isfinite(values)]
    if not len(finite):
        return np.full(len(values), np.nan)
    median = float(np.median(finite))
    deviation = np.abs(finite - median)
    scale = float(np.median(deviation)) * 1.4826 or float(np.mean(deviation)) * 1.253314
    if not scale:
        return np.where(np.isfinite(values), 0.0, np.nan)
    return (values - median) / scale


def has_source(report) -> bool:
    """True when the set has a non-empty source text (:data:`mtdiag.core.needs.NEEDS` ``["source"]``)."""
    return NEEDS["source"].test(report.evalset)


def by_pair(report, flagged: dict[str, np.ndarray]) -> pd.Series:
    """Boolean Series over the report's (system, seg) index from per-system boolean arrays (missing: False)."""
    n = report.evalset.n_segments
    systems = report.evalset.systems
    values = np.concatenate([np.asarray(flagged.get(s, np.zeros(n, bool)), dtype=bool) for s in systems])
    full = pd.Series(values, index=pd.MultiIndex.from_product([systems, range(n)], names=["system", "seg"]))
    return full.reindex(report.segments.index, fill_value=False)


def by_pair_segments(report, segments: dict[str, object]) -> pd.Series:
    """Boolean Series over the report's pairs from, per system, the segments (0-based ids) that are flagged."""
    n = report.evalset.n_segments
    flagged = {}
    for system, segs in segments.items():
        mask = np.zeros(n, dtype=bool)
        mask[np.asarray(segs, dtype=np.int64)] = True
        flagged[system] = mask
    return by_pair(report, flagged)


def worst_share_by(primary: pd.Series, secondary: pd.Series, share: float = WORST_SHARE) -> pd.Series:
    """The rows ranked in the worst ``share`` of the set by ``primary``, ties broken by ``secondary``.

    Higher = worse for both; an integer count ties often, and the tie at the cut-off must not decide. Rows tied with the
    cut-off on both keys are all kept, so that the order of the rows (the systems') never decides."""
    cut = int(np.ceil(share * primary.notna().sum()))
    if cut == 0:
        return pd.Series(False, index=primary.index)
    first, second = -primary.fillna(-np.inf).to_numpy(), -secondary.fillna(-np.inf).to_numpy()
    last = np.lexsort((second, first))[cut - 1]
    worse = (first < first[last]) | ((first == first[last]) & (second <= second[last]))
    return pd.Series(worse, index=primary.index) & primary.notna()


def statistic(report, metric: str, stat: str) -> pd.Series:
    """One sufficient statistic of a metric per pair (e.g. OTEM's ``matched_1``), over the report's index."""
    systems = report.evalset.systems
    columns = [report.result(metric, s) for s in systems]
    values = np.concatenate([r.stats[:, r.stat_names.index(stat)] for r in columns])
    index = pd.MultiIndex.from_product([systems, range(report.evalset.n_segments)], names=["system", "seg"])
    return pd.Series(values, index=index).reindex(report.segments.index)


def count_in_ranges(texts: pd.Series, groups: list[list[tuple[int, int]]]) -> np.ndarray:
    """``counts[i, g]``: how many characters of text ``i`` fall in group ``g`` of code-point ranges.

    The ranges are inclusive ``(first, last)`` pairs; groups must not overlap. The code points of all texts are
    classified at once through a lookup table (numpy), no loop over texts."""
    texts = texts.astype(str).tolist()
    lengths = np.fromiter(map(len, texts), dtype=np.int64, count=len(texts))
    codes = np.frombuffer("".join(texts).encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    top = max(last for ranges in groups for _, last in ranges)
    table = np.full(top + 2, -1, dtype=np.int16)  # the last entry: every code point above the ranges
    for g, ranges in enumerate(groups):
        for first, last in ranges:
            table[first:last + 1] = g
    group = table[np.minimum(codes, top + 1)]
    inside = group >= 0
    text = np.repeat(np.arange(len(texts)), lengths)[inside]
    flat = np.bincount(text * len(groups) + group[inside], minlength=len(texts) * len(groups))
    return flat.reshape(len(texts), len(groups))


def runs(marked: np.ndarray, kind: str, title: str) -> list[Span]:
    """One span per run of marked tokens."""
    marked = np.asarray(marked, dtype=bool)
    edges = np.flatnonzero(np.diff(np.concatenate([[False], marked, [False]]).astype(np.int8)))
    return [Span(int(start), int(end), kind, title) for start, end in zip(edges[::2], edges[1::2])]


def character_spans(report, system: str, seg: int, char_spans, kind: str, title: str) -> list[Span]:
    """Token spans of one output covering character spans of its text; none when the tokens cannot be located.

    The tokens are located as the detail view locates them (:func:`mtdiag.core.highlight.token_offsets`), in the text as
    written or in its typography-normalised form."""
    shown, _ = report.context.display_tokens(system, seg)
    offsets = token_offsets(str(report.evalset.hyps.at[seg, system]), shown)
    if offsets is None:
        return []
    found = (char_span_tokens(offsets, start, end) for start, end in char_spans)
    return [Span(first, last, kind, title) for first, last in (f for f in found if f is not None)]

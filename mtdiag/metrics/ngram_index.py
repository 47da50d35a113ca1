"""Vectorised n-gram counting shared by every n-gram metric (OTEM/UTEM, NEVA, BLEU, chrF).

Every text of every side (references and systems) is a run of integer ids in one flat array. The positions of all
sides are sorted by their n-gram within the segment, one order refining the order below (:class:`NgramIndex`), so
that every (segment, n-gram) gets one dense number shared by all sides: a system's n-gram and a reference's n-gram
of the same segment are equal exactly when their numbers are. An order's counts on every side are one table
(sides × numbers), and clipping, over-/under-counting and per-segment sums are array operations on it (gathers,
``minimum``, cumulative sums) — no Python loop over n-grams or segments, and no hash of n-grams.

References are counted once and reused for every system.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from functools import cached_property
from typing import Hashable

import numpy as np
import pandas as pd

from mtdiag.core.tokenize import TokenSide, encode_sides

# sacrebleu's CHRF._PUNCTS: punctuation separated from the start or end of a word for chrF++'s word n-grams
_CHRF_PUNCTS = frozenset('!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~')


@dataclass(frozen=True)
class NgramCounts:
    """The n-grams of one order in one side: sorted distinct (segment, n-gram) keys with their counts.

    The keys are those of :class:`NgramIndex`; ``keys[bounds[i]:bounds[i+1]]`` are segment i's."""

    keys: np.ndarray  # int32: the n-grams' numbers in the order's table, sorted (so grouped by segment)
    counts: np.ndarray  # int64
    bounds: np.ndarray  # int64, n_segments + 1

    @property
    def n_segments(self) -> int:
        """The number of segments."""
        return len(self.bounds) - 1

    @property
    def gram(self) -> np.ndarray:
        """The n-gram of each key, as :meth:`NgramIndex.gram_ids` reads it (the key names it)."""
        return self.keys

    @cached_property
    def seg(self) -> np.ndarray:
        """The segment of each key."""
        return np.repeat(np.arange(self.n_segments, dtype=np.int64), np.diff(self.bounds))

    def per_segment(self, values: np.ndarray) -> np.ndarray:
        """Sum integer ``values`` (one per key) within each segment, exactly (differences of a cumulative sum)."""
        cumulative = np.zeros(len(values) + 1, dtype=np.int64)
        np.cumsum(values, out=cumulative[1:])
        return cumulative[self.bounds[1:]] - cumulative[self.bounds[:-1]]

    @cached_property
    def totals(self) -> np.ndarray:
        """Number of n-grams (with repetition) per segment (computed once: references serve every system)."""
        return self.per_segment(self.counts)


@dataclass
class _Order:
    """The n-grams of one order over every side, numbered densely in (segment, n-gram) order: ``table[i, g]`` is
    how often side i has n-gram g (in the smallest unsigned type that holds the counts), ``seg_start[s]`` the
    first number of segment s, ``first[g]`` a position where g occurs (its tokens: ``flat[first:first + n]``);
    each side's :class:`NgramCounts` is read from its row on first use."""

    table: np.ndarray  # (n_sides, n_distinct)
    seg_start: np.ndarray  # (n_segments + 1,)
    first: np.ndarray
    reference_rows: list[int]
    counts: dict[Hashable, NgramCounts] = field(default_factory=dict)

    @cached_property
    def reference_extremes(self) -> tuple[np.ndarray, np.ndarray]:
        """Over the references' rows: the largest and the smallest count of each n-gram."""
        rows = self.table[self.reference_rows]
        if not len(rows):
            none = np.zeros(self.table.shape[1], dtype=self.table.dtype)
            return none, none
        return rows.max(axis=0), rows.min(axis=0)


class NgramIndex:
    """The n-grams of orders 1..max_order of several named sides of equal segment count, numbered alike on every side.

    ``references`` name the sides every other side is compared with.

    The positions of every side are sorted once by (segment, token) — each token numbered by its rank among the
    (segment, token) pairs, one hash — and each higher order refines the order below: positions already sorted by
    their (n-1)-gram are sorted again by the n-th token's rank within its segment, a nearly sorted sequence that a
    stable sort (Timsort) orders in close to linear time. Equal neighbours then share a (segment, n-gram), whose
    dense number is its key on every side; an order's counts on every side are one ``bincount``, and a lookup in
    the references is one gather. An order is counted on first use (with every order below it)."""

    def __init__(self, sides: dict[Hashable, TokenSide], max_order: int, references: tuple[Hashable, ...] = ()):
        if max_order < 1:
            raise ValueError("max_order must be at least 1")
        self.max_order = max_order
        self.sides = sides
        self.references = tuple(references)
        self._row = {name: i for i, name in enumerate(sides)}
        self._reference_rows = [self._row[ref] for ref in self.references]
        names = list(sides)
        self.n_segments = sides[names[0]].n_segments if names else 0
        self._orders: dict[int, _Order] = {}
        self._lock = threading.Lock()  # a report's context may serve several sessions' threads
        self._sorted = self._unigrams([sides[k] for k in names])

    def _unigrams(self, sides: list[TokenSide]):
        """The positions of every side sorted by (segment, token, side), with what the orders above need: each
        token's rank within its segment (``_local``), the largest number of distinct tokens in a segment
        (``_base``), and the token ids (``_flat``, for n-gram texts)."""
        n_segments = self.n_segments
        flat = np.concatenate([side.ids for side in sides]) if sides else np.zeros(0, np.int64)
        self._flat = flat.astype(np.int32) if len(flat) and flat.max() < 2**31 else flat
        seg = np.concatenate([np.repeat(np.arange(n_segments, dtype=np.int64), side.lengths) for side in sides]
                             ) if sides else np.zeros(0, np.int64)
        width = int(flat.max()) + 1 if len(flat) else 1
        codes, pairs = pd.factorize(seg * width + flat)  # (segment, token) pairs, in order of appearance
        del flat
        ranked = np.argsort(pairs)
        rank = np.empty(len(pairs), dtype=np.int64)
        rank[ranked] = np.arange(len(pairs), dtype=np.int64)
        unigram = rank[codes]
        del codes, rank
        # the first rank of each segment (ranks are in (segment, token) order)
        seg_start = np.searchsorted(pairs[ranked], np.arange(n_segments + 1, dtype=np.int64) * width)
        self._local = (unigram - seg_start[seg]).astype(np.int32)  # a token's rank within its segment
        self._base = max(int(np.diff(seg_start).max()) if n_segments else 1, 1)
        del seg
        # positions are in side order, so a stable sort by rank sorts them by (rank, side)
        perm = np.argsort(unigram.astype(np.uint16) if len(pairs) <= 2**16 else unigram, kind="stable")
        perm = perm.astype(np.int32 if len(unigram) < 2**31 else np.int64)
        side_of = np.repeat(np.arange(len(sides), dtype=np.uint16 if len(sides) <= 2**16 else np.int64),
                            [len(side.ids) for side in sides])
        # how many tokens each position has up to the end of its segment (itself included), up to max_order
        room = np.minimum(np.concatenate([np.repeat(side.offsets[1:], side.lengths) - np.arange(len(side.ids))
                                          for side in sides]), self.max_order
                          ).astype(np.uint8 if self.max_order < 2**8 else np.int64) if sides else np.zeros(0, np.uint8)
        # the last order counted (0 so far): its positions sorted by (n-gram, side), their keys, sides and room,
        # and the first key of each segment
        return 0, perm, unigram[perm], side_of[perm], room[perm], seg_start

    def _order(self, n: int) -> _Order:
        if not 1 <= n <= self.max_order:
            raise ValueError(f"order {n} outside 1..{self.max_order}")
        if n not in self._orders:
            with self._lock:
                while n not in self._orders:
                    self._count_next()
        return self._orders[n]

    def _count_next(self) -> None:
        """Count the next order from the sorted keys of the one below (order 1 from the unigrams' ranks)."""
        n, perm, keys, side, room, seg_start = self._sorted
        self._sorted = None  # each array below replaces its predecessor, which is freed at once
        n += 1
        if n > 1:  # drop positions without room for n tokens, then sort by the n-th token too
            keep = room >= n
            perm, keys, side, room = perm[keep], keys[keep], side[keep], room[keep]
            del keep
            keys = keys.astype(np.int64) * self._base
            keys += self._local[perm + (n - 1)]
            again = np.argsort(keys, kind="stable")  # nearly sorted already; the side order is kept
            perm, keys, side, room = perm[again], keys[again], side[again], room[again]
            del again
            seg_start = seg_start * self._base
        new = np.ones(len(keys), dtype=bool)
        new[1:] = keys[1:] != keys[:-1]
        seg_start = np.searchsorted(keys[new], seg_start)
        del keys
        rank = np.cumsum(new, dtype=np.int32 if len(new) < 2**31 else np.int64)
        rank -= 1
        n_distinct = int(rank[-1]) + 1 if len(rank) else 0
        # runs of one n-gram on one side are adjacent: each run is one cell of the table, its length the count
        run = new.copy()
        run[1:] |= side[1:] != side[:-1]
        starts = np.flatnonzero(run)
        del run
        lengths = np.diff(starts, append=len(rank))
        largest = int(lengths.max()) if len(lengths) else 0
        table = np.zeros((len(self._row), n_distinct),
                         dtype=np.uint8 if largest < 2**8 else np.uint16 if largest < 2**16 else np.int64)
        table[side[starts], rank[starts]] = lengths
        self._orders[n] = _Order(table, seg_start, perm[new], self._reference_rows)
        if n < self.max_order:
            self._sorted = (n, perm, rank, side, room, seg_start)

    def counts(self, side: Hashable, n: int) -> NgramCounts:
        """The per-segment multiset of order-``n`` n-grams of ``side`` (computed once, then cached)."""
        order = self._order(n)
        if side not in order.counts:
            row = order.table[self._row[side]]
            present = np.flatnonzero(row)
            order.counts[side] = NgramCounts(keys=present.astype(np.int32), counts=row[present].astype(np.int64),
                                             bounds=np.searchsorted(present, order.seg_start))
        return order.counts[side]

    def count_in_reference(self, side: Hashable, n: int, reference: Hashable) -> np.ndarray:
        """Each of ``side``'s (segment, n-gram) keys counted in ``reference`` (0 where it lacks it)."""
        return self._order(n).table[self._row[reference]][self.counts(side, n).keys].astype(np.int64)

    def max_reference_count(self, side: Hashable, n: int) -> np.ndarray:
        """Each of ``side``'s keys counted in every reference: the largest count (BLEU's clipping)."""
        return self._order(n).reference_extremes[0][self.counts(side, n).keys].astype(np.int64)

    def min_reference_count(self, side: Hashable, n: int) -> np.ndarray:
        """Each of ``side``'s keys counted in every reference: the smallest count (0 if a reference lacks it)."""
        return self._order(n).reference_extremes[1][self.counts(side, n).keys].astype(np.int64)

    def count_of(self, side: Hashable, n: int, keys: np.ndarray) -> np.ndarray:
        """Each of the order-``n`` n-grams ``keys`` (the table's numbers) counted in ``side`` (0 where it lacks it)."""
        return self._order(n).table[self._row[side]][keys].astype(np.int64)

    def counts_at_reference(self, side: Hashable, n: int, reference: Hashable) -> np.ndarray:
        """Each of ``reference``'s keys counted in ``side`` (0 where ``side`` lacks it): the reverse lookup."""
        return self._order(n).table[self._row[side]][self.counts(reference, n).keys].astype(np.int64)

    def segment_totals(self, sides: list[Hashable], n: int) -> np.ndarray:
        """Per side (rows) and segment (columns), its number of order-``n`` n-grams: ``max(length - n + 1, 0)``."""
        if not 1 <= n <= self.max_order:
            raise ValueError(f"order {n} outside 1..{self.max_order}")
        return np.stack([np.maximum(self.sides[s].lengths - (n - 1), 0) for s in sides]).astype(np.int64)

    def rows(self, sides: list[Hashable], n: int) -> np.ndarray:
        """Each side's count of every order-``n`` n-gram (one row per side; unsigned, the order's table type)."""
        return self._order(n).table[[self._row[s] for s in sides]]

    def seg_start(self, n: int) -> np.ndarray:
        """The first column of each segment in the order-``n`` table (:meth:`rows`), then the table's width."""
        return self._order(n).seg_start

    def segment_columns(self, n: int, segments: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The columns of the order-``n`` table (:meth:`rows`) holding the n-grams of ``segments``, with their segment.

        ``segments`` are 0-based positions; the second array gives for each column the position in ``segments`` of its
        segment."""
        starts = self._order(n).seg_start
        segments = np.asarray(segments, dtype=np.int64)
        widths = starts[segments + 1] - starts[segments]
        columns = np.repeat(starts[segments] - np.cumsum(widths) + widths, widths) + np.arange(int(widths.sum()))
        return columns, np.repeat(np.arange(len(segments)), widths)

    def reference_extremes(self, n: int) -> tuple[np.ndarray, np.ndarray]:
        """Each order-``n`` n-gram's largest and smallest count over the references (0 where one lacks it)."""
        return self._order(n).reference_extremes

    def segment_sums(self, values: np.ndarray, n: int) -> np.ndarray:
        """``values`` over the order-``n`` n-grams (rows x n-grams) summed within each segment: rows x segments.

        The sums are exact, in int64."""
        return _per_segment(values, self._order(n).seg_start)

    def gram_ids(self, n: int, gram: np.ndarray) -> np.ndarray:
        """The token ids of n-grams given by their keys (shape (len(gram), n))."""
        start = self._order(n).first[gram]
        return self._flat[start[:, None] + np.arange(n)]


def _per_segment(rows: np.ndarray, seg_start: np.ndarray) -> np.ndarray:
    """Sums of each row of ``rows`` over the columns of each segment (``seg_start``: each segment's first column,
    then the end), exactly, in int64."""
    sums = np.zeros((rows.shape[0], len(seg_start) - 1), dtype=np.int64)
    filled = np.flatnonzero(seg_start[1:] > seg_start[:-1])  # segments with columns: their starts increase
    if len(filled):
        sums[:, filled] = np.add.reduceat(rows, seg_start[filled], axis=1, dtype=np.int64)
    return sums


def char_sides(refs: pd.DataFrame, hyps: pd.DataFrame) -> dict[Hashable, TokenSide]:
    """Every raw text as code points with whitespace removed (chrF's character n-gram input)."""
    sides = {}
    for role, frame in (("ref", refs), ("hyp", hyps)):
        for name in frame.columns:
            stripped = ["".join(text.split()) for text in frame[name]]
            lengths = np.fromiter(map(len, stripped), dtype=np.int64, count=len(stripped))
            offsets = np.zeros(len(stripped) + 1, dtype=np.int64)
            np.cumsum(lengths, out=offsets[1:])
            ids = np.frombuffer("".join(stripped).encode("utf-32-le"), dtype=np.uint32).astype(np.int32)
            sides[(role, name)] = TokenSide(ids=ids, offsets=offsets)
    return sides


def chrf_words(text: str) -> list[str]:
    """chrF++'s words (sacrebleu ``CHRF._remove_punctuation``, after Popović's chrF++).

    Whitespace-split words, a punctuation mark at the end (else the start) of a longer word split off; one-character
    words kept whole."""
    words: list[str] = []
    for w in text.split():
        if len(w) == 1:
            words.append(w)
        elif w[-1] in _CHRF_PUNCTS:
            words += [w[:-1], w[-1]]
        elif w[0] in _CHRF_PUNCTS:
            words += [w[0], w[1:]]
        else:
            words.append(w)
    return words


def chrf_word_sides(refs: pd.DataFrame, hyps: pd.DataFrame) -> dict[Hashable, TokenSide]:
    """Every raw text as chrF++ words (:func:`chrf_words`) over one vocabulary (case-sensitive, as sacrebleu)."""
    columns = {("ref", name): [chrf_words(t) for t in refs[name]] for name in refs.columns}
    columns |= {("hyp", name): [chrf_words(t) for t in hyps[name]] for name in hyps.columns}
    return encode_sides(columns)[1]


def clipped_ngram_statistics(index: NgramIndex, tokens, systems: list[str], order: int) -> dict[str, np.ndarray]:
    """``[c, r, clipped_1..order, total_1..order]`` per segment for each of ``systems`` (BLEU's statistics, and NEVA's).

    Hypothesis length, closest reference length, and per order the n-grams clipped by their maximum count over
    references — all systems at once, per order one pass over the n-gram table."""
    hyps = [("hyp", s) for s in systems]
    lengths = [hyp_and_closest_ref_lengths(tokens, s) for s in systems]
    clipped = [index.segment_sums(np.minimum(index.rows(hyps, n), index.reference_extremes(n)[0]), n)
               for n in range(1, order + 1)]
    totals = [index.segment_totals(hyps, n) for n in range(1, order + 1)]
    return {s: np.column_stack([*lengths[i], *(c[i] for c in clipped), *(t[i] for t in totals)]).astype(np.int64)
            for i, s in enumerate(systems)}


def hyp_and_closest_ref_lengths(tokens, system: str) -> tuple[np.ndarray, np.ndarray]:
    """Per segment, the hypothesis length and the closest reference length (:func:`closest_ref_length`) in ``tokens``.

    ``tokens`` is a :class:`~mtdiag.core.tokenize.TokenizedSet`."""
    c = tokens.hyps[system].lengths
    return c, closest_ref_length(c, np.stack([side.lengths for side in tokens.refs.values()], axis=1))


def closest_ref_length(hyp_len: np.ndarray, ref_lens: np.ndarray) -> np.ndarray:
    """Per segment, the reference length nearest the candidate's; a tie goes to the shorter (as BLEU).

    ``ref_lens`` has shape (n_segments, n_refs).
    """
    diff = np.abs(ref_lens - hyp_len[:, None])
    nearest = diff == diff.min(axis=1, keepdims=True)
    return np.where(nearest, ref_lens, np.iinfo(np.int64).max).min(axis=1)

"""Vectorised n-gram counting shared by every n-gram metric (OTEM/UTEM, NEVA, BLEU, chrF).

Every text of every side (references and systems) is a run of integer ids in one flat array. An n-gram gets a
dense integer id by pairing the id of its (n-1)-gram prefix with its last token and factorising the pairs
(``pandas.factorize``, a C hash table): ids are shared by all sides, so a system's n-gram and a reference's n-gram
are equal exactly when their ids are equal. A side's multiset of n-grams per segment is then one sorted array of
keys ``segment * n_grams + gram`` with counts (``numpy.unique``), and clipping, over-/under-counting and
per-segment sums are array operations (``searchsorted`` into the merged reference keys, ``minimum``,
cumulative sums) — no Python loop over
n-grams or segments.

References are counted and merged once and reused for every system.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Hashable

import numpy as np
import pandas as pd

from mtdiag.tokenize import TokenSide, encode_sides

# sacrebleu's CHRF._PUNCTS: punctuation separated from the start or end of a word for chrF++'s word n-grams
_CHRF_PUNCTS = frozenset('!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~')


@dataclass(frozen=True)
class NgramCounts:
    """The n-grams of one order in one side: sorted unique (segment, gram) keys with their counts."""

    keys: np.ndarray  # int64, sorted: seg * n_grams + gram
    counts: np.ndarray  # int64
    seg: np.ndarray  # int64 segment of each key
    gram: np.ndarray  # int64 n-gram id of each key
    n_segments: int

    @cached_property
    def bounds(self) -> np.ndarray:
        """``keys[bounds[i]:bounds[i+1]]`` are segment i's keys (the keys are sorted by segment)."""
        bounds = np.zeros(self.n_segments + 1, dtype=np.int64)
        np.cumsum(np.bincount(self.seg, minlength=self.n_segments), out=bounds[1:])
        return bounds

    def per_segment(self, values: np.ndarray) -> np.ndarray:
        """Sum integer ``values`` (one per key) within each segment, exactly (differences of a cumulative sum)."""
        cumulative = np.zeros(len(values) + 1, dtype=np.int64)
        np.cumsum(values, out=cumulative[1:])
        return cumulative[self.bounds[1:]] - cumulative[self.bounds[:-1]]

    @cached_property
    def totals(self) -> np.ndarray:
        """Number of n-grams (with repetition) per segment (computed once: references serve every system)."""
        return self.per_segment(self.counts)


@dataclass(frozen=True)
class _ReferenceUnion:
    """One order's (segment, n-gram) keys of every reference: ``keys`` sorted and distinct; per reference its
    count of each key (``counts[j]``, with a 0 appended: index ``len(keys)`` stands for "not a reference key"), the
    maximum and minimum over references likewise, and ``positions[j]``, where reference j's own keys sit."""

    keys: np.ndarray
    counts: list[np.ndarray]
    most: np.ndarray
    least: np.ndarray
    positions: list[np.ndarray]


class NgramIndex:
    """N-gram ids of orders 1..max_order over several named sides of equal segment count; ``references`` name the
    sides every other side is compared with (their keys are merged once per order: one search per system)."""

    def __init__(self, sides: dict[Hashable, TokenSide], max_order: int, references: tuple[Hashable, ...] = ()):
        if max_order < 1:
            raise ValueError("max_order must be at least 1")
        self.max_order = max_order
        self.sides = sides
        self.references = tuple(references)
        names = list(sides)
        starts = np.cumsum([0] + [len(sides[k].ids) for k in names])
        self._side_range = {k: (int(starts[i]), int(starts[i + 1])) for i, k in enumerate(names)}
        flat = np.concatenate([sides[k].ids for k in names]) if names else np.zeros(0, np.int64)
        # how many tokens each position has up to the end of its segment (itself included)
        room = np.concatenate(
            [np.repeat(sides[k].offsets[1:], sides[k].lengths) - np.arange(len(sides[k].ids)) for k in names]
        ) if names else np.zeros(0, np.int64)
        unigram, uniques = pd.factorize(flat)
        self._flat = flat
        self._grams: list[np.ndarray] = [np.asarray(unigram, dtype=np.int64)]  # per order: id or -1
        self._n_grams: list[int] = [len(uniques)]
        for n in range(2, max_order + 1):
            # the n-gram starting at p: its (n-1)-gram prefix at p and the unigram at p + n - 1 — contiguous slices,
            # kept where the segment has room for n tokens (where it has not, the pair is garbage and dropped)
            grams = np.full(len(flat), -1, dtype=np.int64)
            m = max(len(flat) - n + 1, 0)
            valid = room[:m] >= n
            combined = self._grams[n - 2][:m] * self._n_grams[0] + self._grams[0][n - 1:]
            codes, uniq = pd.factorize(combined[valid])
            grams[:m][valid] = codes
            self._grams.append(grams)
            self._n_grams.append(len(uniq))
        self._first: dict[int, np.ndarray] = {}  # per order, built on first use (only n-gram texts need it)
        self._counts: dict[tuple[Hashable, int], NgramCounts] = {}
        self._unions: dict[int, _ReferenceUnion] = {}
        self._found: dict[tuple[Hashable, int], np.ndarray] = {}

    @staticmethod
    def _first_positions(grams: np.ndarray, n_grams: int) -> np.ndarray:
        first = np.zeros(n_grams, dtype=np.int64)
        pos = np.flatnonzero(grams >= 0)
        first[grams[pos][::-1]] = pos[::-1]
        return first

    def counts(self, side: Hashable, n: int) -> NgramCounts:
        """The per-segment multiset of order-``n`` n-grams of ``side`` (computed once, then cached)."""
        key = (side, n)
        if key not in self._counts:
            if not 1 <= n <= self.max_order:
                raise ValueError(f"order {n} outside 1..{self.max_order}")
            lo, hi = self._side_range[side]
            tokens = self.sides[side]
            seg_of = np.repeat(np.arange(tokens.n_segments, dtype=np.int64), tokens.lengths)
            grams = self._grams[n - 1][lo:hi]
            valid = grams >= 0
            n_grams = max(self._n_grams[n - 1], 1)
            keys, counts = np.unique(seg_of[valid] * n_grams + grams[valid], return_counts=True)
            self._counts[key] = NgramCounts(
                keys=keys, counts=counts.astype(np.int64), seg=keys // n_grams, gram=keys % n_grams,
                n_segments=tokens.n_segments,
            )
        return self._counts[key]

    def _union(self, n: int) -> _ReferenceUnion:
        if n not in self._unions:
            own = [self.counts(ref, n) for ref in self.references]
            if not own:
                keys, positions = np.zeros(0, dtype=np.int64), []
            elif len(own) == 1:
                keys, positions = own[0].keys, [np.arange(len(own[0].keys), dtype=np.int64)]
            else:
                keys, inverse = np.unique(np.concatenate([c.keys for c in own]), return_inverse=True)
                ends = np.cumsum([0] + [len(c.keys) for c in own])
                positions = [inverse[ends[j]:ends[j + 1]] for j in range(len(own))]
            counts = []
            for c, pos in zip(own, positions):
                laid_out = np.zeros(len(keys) + 1, dtype=np.int64)
                laid_out[pos] = c.counts
                counts.append(laid_out)
            stacked = np.stack(counts) if counts else np.zeros((1, len(keys) + 1), dtype=np.int64)
            self._unions[n] = _ReferenceUnion(keys, counts, stacked.max(axis=0), stacked.min(axis=0), positions)
        return self._unions[n]

    def _in_union(self, side: Hashable, n: int) -> np.ndarray:
        """Where each key of ``side`` sits in the references' keys (``len(keys)`` where it is not one): one search
        per side and order, shared by every metric and reference."""
        if (side, n) not in self._found:
            union, keys = self._union(n), self.counts(side, n).keys
            pos = np.searchsorted(union.keys, keys)
            found = pos < len(union.keys)
            found[found] = union.keys[pos[found]] == keys[found]
            self._found[(side, n)] = np.where(found, pos, len(union.keys))
        return self._found[(side, n)]

    def count_in_reference(self, side: Hashable, n: int, reference: Hashable) -> np.ndarray:
        """Each of ``side``'s (segment, n-gram) keys counted in ``reference`` (0 where it lacks it)."""
        return self._union(n).counts[self.references.index(reference)][self._in_union(side, n)]

    def max_reference_count(self, side: Hashable, n: int) -> np.ndarray:
        """Each of ``side``'s keys counted in every reference: the largest count (BLEU's clipping)."""
        return self._union(n).most[self._in_union(side, n)]

    def min_reference_count(self, side: Hashable, n: int) -> np.ndarray:
        """Each of ``side``'s keys counted in every reference: the smallest count (0 if a reference lacks it)."""
        return self._union(n).least[self._in_union(side, n)]

    def counts_at_reference(self, side: Hashable, n: int, reference: Hashable) -> np.ndarray:
        """Each of ``reference``'s keys counted in ``side`` (0 where ``side`` lacks it): the reverse lookup."""
        union = self._union(n)
        laid_out = np.zeros(len(union.keys) + 1, dtype=np.int64)
        laid_out[self._in_union(side, n)] = self.counts(side, n).counts  # keys not in the union land on the spare slot
        return laid_out[union.positions[self.references.index(reference)]]

    def gram_ids(self, n: int, gram: np.ndarray) -> np.ndarray:
        """The token ids of n-grams (shape (len(gram), n)), read from each n-gram's first occurrence."""
        if n not in self._first:
            self._first[n] = self._first_positions(self._grams[n - 1], self._n_grams[n - 1])
        start = self._first[n][gram]
        return self._flat[start[:, None] + np.arange(n)]


def char_sides(refs: pd.DataFrame, hyps: pd.DataFrame) -> dict[Hashable, TokenSide]:
    """Every raw text as code points with whitespace removed (chrF's character n-gram input)."""
    sides = {}
    for role, frame in (("ref", refs), ("hyp", hyps)):
        for name in frame.columns:
            stripped = ["".join(text.split()) for text in frame[name]]
            lengths = np.fromiter(map(len, stripped), dtype=np.int64, count=len(stripped))
            offsets = np.zeros(len(stripped) + 1, dtype=np.int64)
            np.cumsum(lengths, out=offsets[1:])
            ids = np.frombuffer("".join(stripped).encode("utf-32-le"), dtype=np.uint32).astype(np.int64)
            sides[(role, name)] = TokenSide(ids=ids, offsets=offsets)
    return sides


def chrf_words(text: str) -> list[str]:
    """chrF++'s words (sacrebleu ``CHRF._remove_punctuation``, after Popović's chrF++): whitespace-split words, a
    punctuation mark at the end (else the start) of a longer word split off; one-character words kept whole."""
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


def clipped_ngram_statistics(index: NgramIndex, tokens, system: str, order: int) -> np.ndarray:
    """``[c, r, clipped_1..order, total_1..order]`` per segment (BLEU's statistics, shared with NEVA): hypothesis
    length, closest reference length, and per order the n-grams clipped by their maximum count over references."""
    c, r = hyp_and_closest_ref_lengths(tokens, system)
    clipped, totals = [], []
    for n in range(1, order + 1):
        hyp = index.counts(("hyp", system), n)
        rc = index.max_reference_count(("hyp", system), n)
        clipped.append(hyp.per_segment(np.minimum(hyp.counts, rc)))
        totals.append(hyp.totals)
    return np.column_stack([c, r, *clipped, *totals]).astype(np.int64)


def hyp_and_closest_ref_lengths(tokens, system: str) -> tuple[np.ndarray, np.ndarray]:
    """Per segment, the hypothesis length and the closest reference length (:func:`closest_ref_length`) in
    ``tokens`` (a :class:`~mtdiag.tokenize.TokenizedSet`)."""
    c = tokens.hyps[system].lengths
    return c, closest_ref_length(c, np.stack([side.lengths for side in tokens.refs.values()], axis=1))


def closest_ref_length(hyp_len: np.ndarray, ref_lens: np.ndarray) -> np.ndarray:
    """Per segment, the reference length nearest the candidate's; a tie goes to the shorter (as BLEU).

    ``ref_lens`` has shape (n_segments, n_refs).
    """
    diff = np.abs(ref_lens - hyp_len[:, None])
    nearest = diff == diff.min(axis=1, keepdims=True)
    return np.where(nearest, ref_lens, np.iinfo(np.int64).max).min(axis=1)

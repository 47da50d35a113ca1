"""``mtdiag.metrics.ngram_index.NgramIndex``: n-gram ids within segments, per-segment counts, and the lookups of a side's
(segment, n-gram) keys in the references (merged once per order), by hand."""

from __future__ import annotations

import numpy as np

from mtdiag.metrics.ngram_index import NgramIndex
from mtdiag.core.tokenize import TokenSide


def _side(*segments: list[int]) -> TokenSide:
    lengths = [len(s) for s in segments]
    return TokenSide(ids=np.array([t for s in segments for t in s], dtype=np.int64),
                     offsets=np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64))


# token ids: 1 = "a", 2 = "b", 3 = "c"; two segments each
HYP = _side([1, 1, 2], [3, 3, 3])          # "a a b" | "c c c"
REF1 = _side([1, 2], [3])                  # "a b"   | "c"
REF2 = _side([1, 1, 1], [])                # "a a a" | ""
INDEX = NgramIndex({("hyp", "h"): HYP, ("ref", "r1"): REF1, ("ref", "r2"): REF2}, 3,
                   references=(("ref", "r1"), ("ref", "r2")))


def _by_key(side, n, values):
    counts = INDEX.counts(side, n)
    words = INDEX.gram_ids(n, counts.gram)
    return {(int(s), tuple(int(t) for t in w)): int(v) for s, w, v in zip(counts.seg, words, values)}


def test_counts_stay_inside_segments():
    unigrams = INDEX.counts(("hyp", "h"), 1)
    assert _by_key(("hyp", "h"), 1, unigrams.counts) == {(0, (1,)): 2, (0, (2,)): 1, (1, (3,)): 3}
    assert INDEX.counts(("hyp", "h"), 3).totals.tolist() == [1, 1]  # no trigram crosses the segment boundary
    assert INDEX.counts(("ref", "r1"), 2).totals.tolist() == [1, 0]
    assert INDEX.counts(("ref", "r2"), 1).per_segment(np.array([5])).tolist() == [5, 0]


def test_lookups_in_each_reference_their_maximum_minimum_and_the_reverse():
    hyp = ("hyp", "h")
    assert _by_key(hyp, 1, INDEX.count_in_reference(hyp, 1, ("ref", "r1"))) == {(0, (1,)): 1, (0, (2,)): 1,
                                                                                (1, (3,)): 1}
    assert _by_key(hyp, 1, INDEX.count_in_reference(hyp, 1, ("ref", "r2"))) == {(0, (1,)): 3, (0, (2,)): 0,
                                                                                (1, (3,)): 0}
    assert _by_key(hyp, 1, INDEX.max_reference_count(hyp, 1)) == {(0, (1,)): 3, (0, (2,)): 1, (1, (3,)): 1}
    assert _by_key(hyp, 1, INDEX.min_reference_count(hyp, 1)) == {(0, (1,)): 1, (0, (2,)): 0, (1, (3,)): 0}
    assert _by_key(hyp, 2, INDEX.max_reference_count(hyp, 2)) == {(0, (1, 1)): 2, (0, (1, 2)): 1, (1, (3, 3)): 0}
    # the reverse: each reference key counted in the hypothesis ("c" of r1's segment 1: three times)
    assert _by_key(("ref", "r1"), 1, INDEX.counts_at_reference(hyp, 1, ("ref", "r1"))) == {
        (0, (1,)): 2, (0, (2,)): 1, (1, (3,)): 3}
    assert _by_key(("ref", "r2"), 2, INDEX.counts_at_reference(hyp, 2, ("ref", "r2"))) == {(0, (1, 1)): 1}


def test_no_reference_counts_nothing():
    index = NgramIndex({("hyp", "h"): HYP}, 2)
    assert index.max_reference_count(("hyp", "h"), 1).tolist() == [0, 0, 0]
    assert index.min_reference_count(("hyp", "h"), 2).tolist() == [0, 0, 0]  # a a, a b | c c

"""chrF consensus (mtdiag.metrics.chrf_consensus): the hand-computed worked example, the clipped matches against
their definition, and the scoring computing it for the judge without reporting it."""

import numpy as np
import pytest

from mtdiag.core.evalset import evalset_from_lists
from mtdiag.metrics.chrf_consensus import ChrfConsensus
from mtdiag.metrics.consensus import matches_with_the_others
from mtdiag.metrics.ngram_index import NgramIndex
from mtdiag.core.tokenize import TokenSide
from mtdiag.scoring.evaluate import Options, default_metrics, evaluate


def test_worked_example():
    # A "ab", B "ab", C "b". A, order 1: a and b match B (2) and b matches C (1): match 3 of hyp 2 × 2 = 4,
    # ref 2 + 1 = 3; order 2: "ab" matches B's: 1 of 1 × 2 = 2, ref 1 + 0 = 1; orders 3-6: A has none (not
    # counted). P = (3/4 + 1/2) / 2 = 0.625, R = (3/3 + 1/1) / 2 = 1, chrF2 = 5PR / (4P + R) = 3.125 / 3.5.
    # C, order 1: b matches A's and B's: 2 of 1 × 2 = 2, ref 2 + 2 = 4; order 2: C has none. P = 1, R = 0.5,
    # chrF2 = 2.5 / 4.5.
    evalset = evalset_from_lists({}, {"A": ["ab"], "B": ["ab"], "C": ["b"]}, src=["ab"])
    report = evaluate(evalset, Options(metrics=("chrf_consensus",)))
    scores = report.segments["chrf_consensus"]
    assert scores[("A", 0)] == pytest.approx(100 * 3.125 / 3.5)
    assert scores[("B", 0)] == pytest.approx(100 * 3.125 / 3.5)
    assert scores[("C", 0)] == pytest.approx(100 * 2.5 / 4.5)
    stats = report.results[("chrf_consensus", "A")].stats[0]
    assert stats[:6].tolist() == [4, 3, 3, 2, 1, 1]  # [hyp, ref, match] of orders 1 and 2


def _brute_force(table: np.ndarray, seg_start: np.ndarray) -> np.ndarray:
    k = table.shape[0]
    out = np.zeros((k, len(seg_start) - 1), dtype=np.int64)
    for g in range(len(seg_start) - 1):
        for column in range(seg_start[g], seg_start[g + 1]):
            for s in range(k):
                out[s, g] += sum(min(table[s, column], table[j, column]) for j in range(k) if j != s)
    return out


def test_matches_equal_the_definition_on_repeated_ngrams():
    rng = np.random.default_rng(0)
    lengths = rng.integers(0, 30, size=(4, 6))  # 4 sides, 6 segments of tokens from a vocabulary of 3: repeats
    sides = {}
    for i, row in enumerate(lengths):
        offsets = np.concatenate([[0], np.cumsum(row)])
        sides[("hyp", str(i))] = TokenSide(ids=rng.integers(0, 3, size=int(row.sum())), offsets=offsets)
    index = NgramIndex(sides, 3)
    for n in (1, 2, 3):
        expected = _brute_force(index.rows(list(sides), n).astype(np.int64), index.seg_start(n))
        assert (matches_with_the_others(index, list(sides), n) == expected).all()
    assert index.rows(list(sides), 1).max() >= 5  # the count levels above 1 are exercised


def test_matches_are_exact_on_long_runs_several_outputs_hold():
    """A word held thousands of times by three of four outputs (different counts, one tie), in two segments: the
    counts ranked per column give the definition's sums (no pass per count level)."""
    runs = [[3000, 2000, 3000, 0], [1, 2500, 7, 2500]]
    sides = {}
    for i in range(4):
        ids = np.concatenate([np.zeros(runs[0][i], np.int64), [1, 2], np.zeros(runs[1][i], np.int64)])
        sides[("hyp", str(i))] = TokenSide(ids=ids, offsets=np.array([0, runs[0][i] + 1, len(ids)]))
    index = NgramIndex(sides, 2)
    for n in (1, 2):
        expected = _brute_force(index.rows(list(sides), n).astype(np.int64), index.seg_start(n))
        assert (matches_with_the_others(index, list(sides), n) == expected).all()
    # by hand, order 1, segment 0 (the run, then token 1 once in each output): 3000 meets 2000 + 3000 + 0; token 1
    # meets the other three outputs' once each
    assert matches_with_the_others(index, list(sides), 1)[0, 0] == 2000 + 3000 + 3


def test_computed_for_the_judge_not_reported():
    evalset = evalset_from_lists({"ref": ["the cat sat", "hello world"]},
                                 {"A": ["the cat sat", "hello there"], "B": ["a cat sat", "hello"],
                                  "C": ["the dog sat", "hi world"]})
    assert "chrf_consensus" not in default_metrics(evalset)
    report = evaluate(evalset)
    assert "predicted_mqm" in report.metrics and "chrf_consensus" not in report.metrics
    asked = evaluate(evalset, Options(metrics=("chrf_consensus",)))
    from mtdiag.spans.judge_features import judge_features

    # the judge read the statistics the scoring made: the same consensus as the metric's own scores
    assert judge_features(report)["consensus"].to_numpy() == pytest.approx(
        asked.segments["chrf_consensus"].to_numpy())
    assert ChrfConsensus.info.on_request

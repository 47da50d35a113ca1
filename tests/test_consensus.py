"""The consensus metric (mtdiag.metrics.consensus): each output against the other systems' outputs as
pseudo-references (MBR expected agreement, Kumar & Byrne 2004; consensus n-grams, DeNero et al. 2009) — equal to a
brute-force loop over system pairs, reference-free, resampled like any metric."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from mtdiag.analysis import significance
from mtdiag.scoring.evaluate import Options, available_metrics, default_metrics, evaluate
from mtdiag.core.evalset import evalset_from_lists
from mtdiag.core.tokenize import TokenizeOptions, tokenize_text

HYPS = {"a": ["the cat sat on the mat", "x y z", "", "we go home"],
        "b": ["the cat sat on a mat", "x y", "hello", "we go home now"],
        "c": ["a dog ran in the park", "x y z z", "hello there", "home we go"],
        "d": ["the the cat", "q", "hello", "we went home"]}
SRC = ["s1", "s2", "s3", "s4"]


def brute_force(hyps: dict[str, list[str]], order: int = 2) -> dict[str, np.ndarray]:
    """Per system, the statistics [match_1..N, hyp_1..N, ref_1..N] per segment by a loop over system pairs."""
    options = TokenizeOptions()
    out = {}
    for s in hyps:
        rows = []
        for seg in range(len(hyps[s])):
            tokens = {t: tokenize_text(hyps[t][seg], options) for t in hyps}
            grams = {t: [Counter(tuple(tokens[t][i:i + n]) for i in range(len(tokens[t]) - n + 1))
                         for n in range(1, order + 1)] for t in hyps}
            match = [sum(sum((grams[s][n] & grams[j][n]).values()) for j in hyps if j != s) for n in range(order)]
            hyp = [(len(hyps) - 1) * sum(grams[s][n].values()) for n in range(order)]
            ref = [sum(sum(grams[j][n].values()) for j in hyps if j != s) for n in range(order)]
            rows.append(match + hyp + ref)
        out[s] = np.array(rows)
    return out


@pytest.fixture(scope="module")
def report():
    return evaluate(evalset_from_lists({}, HYPS, src=SRC))


def test_statistics_equal_a_brute_force_loop_over_system_pairs(report):
    expected = brute_force(HYPS)
    for system in HYPS:
        np.testing.assert_array_equal(report.result("consensus", system).stats, expected[system])


def test_scores_by_hand(report):
    # segment 1 of "a" ("the cat sat on the mat"): unigram matches 5 (b) + 1 (c: "the") + 2 (d: "the the" clipped to
    # the, the; cat) ... the formula on the statistics, checked against an explicit F1 of averaged P and R
    stats = report.result("consensus", "a").stats[0].astype(float)
    match, hyp, ref = stats[:2], stats[2:4], stats[4:6]
    p, r = (match / hyp).mean(), (match / ref).mean()
    assert report.segments.at[("a", 0), "consensus"] == pytest.approx(100 * 2 * p * r / (p + r))
    assert report.segments.at[("d", 1), "consensus"] == 0.0  # "q": shared with nobody


def test_reference_free_and_only_with_three_systems():
    two = evalset_from_lists({}, {k: HYPS[k] for k in "ab"}, src=SRC)
    assert "consensus" not in available_metrics(two)
    assert "consensus" in available_metrics(evalset_from_lists({}, HYPS, src=SRC))
    with_refs = evalset_from_lists({"A": HYPS["a"]}, HYPS, src=SRC)
    assert "consensus" in available_metrics(with_refs) and "consensus" not in default_metrics(with_refs)


def test_chunked_scoring_and_significance_treat_it_like_any_metric(report):
    from mtdiag.scoring.chunks import Execution

    chunked = evaluate(report.evalset, Options(), execution=Execution(chunk=1))
    np.testing.assert_allclose(chunked.segments["consensus"], report.segments["consensus"])
    np.testing.assert_allclose(chunked.corpus["consensus"], report.corpus["consensus"])
    sig = significance.significance(report, "a", "bs", 100)
    assert ("d", "consensus") in sig.index
    assert "ref:none" in report.result("consensus", "a").signature

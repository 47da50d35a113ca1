"""The worst-first queue (mtdiag.triage): the lift measure on toy rankings, the problem score's definition, the
queue and source contracts."""

from __future__ import annotations

import numpy as np
import pytest

from mtdiag import triage
from mtdiag.api import Options, evaluate
from mtdiag.evalset import evalset_from_lists


def test_lift_of_perfect_reverse_and_tied_rankings():
    human_bad = np.arange(100, dtype=float)  # item 99 is the worst
    assert triage.lift(human_bad, human_bad) == pytest.approx(10.0)  # perfect: 1 / 0.1
    assert triage.lift(-human_bad, human_bad) == pytest.approx(0.0)
    assert triage.lift(np.zeros(100), human_bad) == pytest.approx(1.0)  # all tied: random
    rate, value = triage.flag_lift(human_bad >= 90, human_bad)
    assert rate == pytest.approx(0.1) and value == pytest.approx(10.0)


def test_top_weights_share_ties_at_the_cut():
    weights = triage.top_weights(np.array([5, 4, 4, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0.0]), 0.1)
    assert weights.sum() == pytest.approx(2.0) and weights[0] == 1.0
    np.testing.assert_allclose(weights[1:4], 1 / 3)


@pytest.fixture(scope="module")
def report():
    refs = ["the cat sat on the mat", "a dog runs in the park", "it rains today"]
    hyps = {"good": list(refs),
            "loop": ["the cat cat cat cat sat", "a dog runs in the park", "it rains today"],
            "bad": ["mat", "a dog runs in park", "rain"]}
    return evaluate(evalset_from_lists({"ref": refs}, hyps), Options(metrics=("ter", "chrf", "otem", "bleu")))


def test_problem_is_the_geometric_mean_badness_percentile_of_ter_chrf_otem(report):
    scores = triage.problem_scores(report)
    percentiles = [triage.badness_percentile(report.segments[m], m) for m in ("ter", "chrf", "otem")]
    expected = np.prod(percentiles, axis=0) ** (1 / 3)
    np.testing.assert_allclose(scores["problem"].to_numpy(), expected)
    per_source = scores["relative"].groupby(level="seg").sum()
    np.testing.assert_allclose(per_source.to_numpy(), 0.0, atol=1e-12)  # relative to the source's mean


def test_queue_contract(report):
    queue = triage.worst_first(report)
    assert list(queue.columns[:4]) == ["system", "seg_id", "problem", "relative"]
    assert {"ter", "chrf", "otem", "bleu"} <= set(queue.columns)
    assert len(queue) == 9 and set(queue["seg_id"]) == {1, 2, 3}
    assert (np.diff(queue["problem"].to_numpy()) <= 1e-12).all()  # worst first
    assert (queue.iloc[0]["system"], queue.iloc[0]["seg_id"]) in {("loop", 1), ("bad", 1)}
    assert queue[queue["system"] == "good"]["problem"].max() < queue["problem"].max()


def test_sources_ranked_by_difficulty_and_spread(report):
    sources = triage.source_difficulty(report)
    assert list(sources.columns) == ["seg_id", "difficulty", "spread", "worst_system", "worst_problem"]
    assert sources["seg_id"].iat[0] == 1 and sources["worst_system"].iat[0] in ("loop", "bad")
    assert (np.diff(sources["difficulty"].to_numpy()) <= 1e-12).all()


def test_without_the_three_views_every_directional_metric_is_used():
    report = evaluate(evalset_from_lists({"r": ["a b", "c d"]}, {"s": ["a b", "x"]}), Options(metrics=("bleu", "waft")))
    assert triage.ranking_metrics(report) == ["bleu", "waft"]

"""The worst-first queue (mtdiag.triage.ranking): the lift measure on toy rankings, the problem score's definition, the
queue and source contracts."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from mtdiag.triage import ranking
from mtdiag.scoring.evaluate import Options, evaluate
from mtdiag.core.evalset import evalset_from_lists


def test_lift_of_perfect_reverse_and_tied_rankings():
    human_bad = np.arange(100, dtype=float)  # item 99 is the worst
    assert ranking.lift(human_bad, human_bad) == pytest.approx(10.0)  # perfect: 1 / 0.1
    assert ranking.lift(-human_bad, human_bad) == pytest.approx(0.0)
    assert ranking.lift(np.zeros(100), human_bad) == pytest.approx(1.0)  # all tied: random
    rate, value = ranking.flag_lift(human_bad >= 90, human_bad)
    assert rate == pytest.approx(0.1) and value == pytest.approx(10.0)


def test_top_weights_share_ties_at_the_cut():
    weights = ranking.top_weights(np.array([5, 4, 4, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0.0]), 0.1)
    assert weights.sum() == pytest.approx(2.0) and weights[0] == 1.0
    np.testing.assert_allclose(weights[1:4], 1 / 3)


@pytest.fixture(scope="module")
def report():
    refs = ["the cat sat on the mat", "a dog runs in the park", "it rains today"]
    hyps = {"good": list(refs),
            "loop": ["the cat cat cat cat sat", "a dog runs in the park", "it rains today"],
            "bad": ["mat", "a dog runs in park", "rain"]}
    return evaluate(evalset_from_lists({"ref": refs}, hyps), Options(metrics=("ter", "chrf", "otem", "bleu")))


def test_problem_is_the_percentile_of_error_rate_times_length(report):
    scores = ranking.problem_scores(report)
    assert ranking.ranking_metrics(report) == ["ter", "chrf", "otem", "consensus"]  # three systems: consensus joins
    consensus = evaluate(report.evalset, Options(metrics=("consensus",))).segments["consensus"]
    np.testing.assert_allclose(ranking.view_scores(report, "consensus").to_numpy(), consensus.to_numpy())
    percentiles = [ranking.badness_percentile(report.segments[m], m) for m in ("ter", "chrf", "otem")]
    percentiles.append(ranking.badness_percentile(consensus, "consensus"))
    rate = np.prod(percentiles, axis=0) ** (1 / 4)
    np.testing.assert_allclose(ranking.error_rate(report).to_numpy(), rate)
    length = np.tile([6.0, 6.0, 3.0], 3)  # reference tokens of the three segments, for each system
    penalty = pd.Series(rate * length)
    np.testing.assert_allclose(scores["problem"].to_numpy(), penalty.rank(pct=True).where(penalty > 0, 0.0))
    per_source = scores["relative"].groupby(level="seg").sum()
    np.testing.assert_allclose(per_source.to_numpy(), 0.0, atol=1e-12)  # relative to the source's mean


def test_queue_contract(report):
    queue = ranking.worst_first(report, strict=True)
    assert list(queue.columns[:4]) == ["system", "seg", "problem", "relative"]  # seg: 0-based positions
    assert {"ter", "chrf", "otem", "bleu"} <= set(queue.columns)
    assert len(queue) == 9 and set(queue["seg"]) == {0, 1, 2}
    assert queue.iloc[0]["system"] == "loop" and queue.iloc[0]["seg"] == 0  # a repetition loop: critical
    assert list(queue.columns[4:6]) == ["flags", "critical"]
    assert queue["critical"].tolist() == ["repetition"] + [""] * 8  # why the first row is out of problem order
    rest = queue.iloc[1:]
    assert (np.diff(rest["problem"].to_numpy()) <= 1e-12).all()  # then worst first
    assert queue[queue["system"] == "good"]["problem"].max() < queue["problem"].max()


def test_a_short_segment_cannot_outrank_a_long_one_by_its_rate_alone():
    # "Thank you. Thank you." -> "Vielen Dank. Vielen Dank." (MQM: no error) has an extreme TER/chrF rate on a
    # 4-word segment; a long output with a few real errors must come first
    long_ref = "Die Regierung hat am Dienstag einen neuen Plan für den Ausbau der Bahnstrecken im Norden vorgestellt ."
    long_hyp = "Die Regierung hat am Montag einen Plan für die Erweiterung der Straßen im Norden gezeigt ."
    refs = ["Danke . Danke .", long_ref, *FILLER]
    hyps = {"a": ["Vielen Dank . Vielen Dank .", long_hyp, *FILLER], "b": ["Danke . Danke .", long_ref, *FILLER]}
    report = evaluate(evalset_from_lists({"A": refs}, hyps), Options(metrics=("ter", "chrf", "otem")))
    assert ranking.error_rate(report)[("a", 0)] > ranking.error_rate(report)[("a", 1)]  # the rate alone: short first
    queue = ranking.worst_first(report, strict=True)
    assert (queue.iloc[0]["system"], queue.iloc[0]["seg"]) == ("a", 1)


FILLER = [f"Satz Nummer {i} ist kurz und klar ." for i in range(8)]


def test_first_screen_shows_one_pair_per_source_then_the_strict_order():
    ranked = pd.DataFrame({"system": list("abcabcab"), "seg": [0, 0, 0, 1, 1, 2, 2, 3],
                           "problem": [0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2]})
    screen = ranking.first_screen(ranked, rows=3, per_source=1)
    assert list(zip(screen["system"], screen["seg"]))[:3] == [("a", 0), ("a", 1), ("c", 2)]
    assert list(zip(screen["system"], screen["seg"]))[3:] == [("b", 0), ("c", 0), ("b", 1), ("a", 2), ("b", 3)]
    assert len(ranking.first_screen(ranked, rows=10)) == len(ranked)


def test_default_queue_puts_distinct_sources_first(report):
    default, strict = ranking.worst_first(report), ranking.worst_first(report, strict=True)
    assert default["seg"].head(3).nunique() == 3
    assert sorted(map(tuple, default[["system", "seg"]].to_numpy())) == \
        sorted(map(tuple, strict[["system", "seg"]].to_numpy()))


def test_sources_ranked_by_difficulty_and_spread(report):
    sources = ranking.source_difficulty(report)
    assert list(sources.columns) == ["seg", "difficulty", "spread", "worst_system", "worst_problem"]
    assert sources["seg"].iat[0] == 0 and sources["worst_system"].iat[0] in ("loop", "bad")
    assert (np.diff(sources["difficulty"].to_numpy()) <= 1e-12).all()


def test_without_the_three_views_every_directional_metric_is_used():
    report = evaluate(evalset_from_lists({"r": ["a b", "c d"]}, {"s": ["a b", "x"]}), Options(metrics=("bleu", "waft")))
    assert ranking.ranking_metrics(report) == ["bleu", "waft"]

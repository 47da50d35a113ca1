"""Predicted MQM (``mtdiag.metrics.predicted_mqm``), the metric derived from the report's predicted error spans:
its segment and corpus scores counted by hand, the same numbers sliced, threaded and reopened from statistics,
what it needs, and its agreement with human scores (``mtdiag.spans.agreement.mean_score_agreement``)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from mtdiag.scoring.evaluate import Options, available_metrics, evaluate, missing_input, report_from_statistics
from mtdiag.scoring.chunks import Execution
from mtdiag.core.evalset import evalset_from_lists
from mtdiag.metrics import REGISTRY, DerivedMetric
from mtdiag.metrics.predicted_mqm import SEVERITY_WEIGHTS, STAT_NAMES
from mtdiag.spans.judge import judged
from mtdiag.spans import predict_spans
from mtdiag.spans.omissions import missing_reference_words
from mtdiag.spans.agreement import mean_score_agreement, pairwise_accuracy, pearson, within_segment_accuracy

REFS = {"ref": ["the cat sat on the mat near the door", "we like the green house", "it is raining today"]}
HYPS = {"A": ["the cat sat on the mat near the door", "we like the green house", "it is raining today"],
        "B": ["the cat jumped on the mat near the door", "we like the green house", "it rains a lot today"],
        "C": ["a dog slept on the mat near the door", "we love a blue house", "it is raining today"],
        "D": ["the cat sat on the mat near the door", "we like the green house", "it is raining today"]}


@pytest.fixture(scope="module")
def report():
    return evaluate(evalset_from_lists(REFS, HYPS), Options(metrics=("chrf", "predicted_mqm")))


def test_segment_score_is_the_judges_and_the_statistics_hold_the_spans_expected_penalty(report):
    spans = predict_spans(report)
    expected = pd.Series(0.0, index=report.segments.index)
    for row in spans.itertuples():
        expected[(row.system, row.seg)] += row.confidence * SEVERITY_WEIGHTS[row.severity]
    assert len(spans) >= 3 and set(spans["severity"]) == {"minor", "major"}
    stats = np.concatenate([report.result("predicted_mqm", s).stats for s in report.evalset.systems])
    np.testing.assert_allclose(stats[:, STAT_NAMES.index("penalty")], expected.to_numpy())
    # the segment score is the learned judge's (tests/test_judge.py: its formula); a system's score is the mean of
    # its segments' (MQM's system score)
    scores = judged(report)["mqm"]
    np.testing.assert_allclose(report.segments["predicted_mqm"].to_numpy(), scores.to_numpy())
    np.testing.assert_allclose(report.corpus["predicted_mqm"].to_numpy(),
                               scores.groupby(level="system").mean().reindex(report.corpus.index).to_numpy())
    assert report.corpus["predicted_mqm"].idxmax() in ("A", "D")  # the outputs equal to the reference: the best


def test_statistics_count_the_spans_of_each_severity_and_the_missing_words(report):
    spans = predict_spans(report)
    stats = report.result("predicted_mqm", "C").stats
    assert report.result("predicted_mqm", "C").stat_names == STAT_NAMES
    mine = spans[spans["system"] == "C"]
    for column, severity in enumerate(("critical", "major", "minor")):
        assert stats[:, column].sum() == (mine["severity"] == severity).sum()
    assert stats[:, STAT_NAMES.index("segments")].tolist() == [1, 1, 1]
    assert stats[:, STAT_NAMES.index("omitted")].tolist() == [3, 3, 0]


def test_missing_reference_words_are_clipped_counts_of_the_closest_reference():
    refs = {"A": ["the cat , the dog and the bird .", "yes", "we like tea"],
            "B": ["a cat and a dog .", "", "we love tea"]}
    hyps = {"S": ["the cat and the dog", "yes yes", "we like it"], "T": ["", "no", "tea"]}
    report = evaluate(evalset_from_lists(refs, hyps), Options(metrics=("chrf",)))
    missing = missing_reference_words(report)
    # S, segment 1: A lacks one 'the' (3 against 2) and 'bird' — punctuation is not a word —, B 'a' twice: the
    # closer lacks 2; segment 2: nothing ('yes' twice covers one); segment 3: A lacks 'tea', B 'love' and 'tea'.
    # T: every word, 7 of A or 5 of B; 1 of A or none of the empty B; 2 of either
    assert missing.tolist() == [[2.0, 0.0, 1.0], [5.0, 0.0, 2.0]]
    no_reference = evaluate(evalset_from_lists({}, {**hyps, "U": ["x", "y", "z"]}, src=["a", "b", "c"]),
                            Options(metrics=("consensus",)))
    assert (missing_reference_words(no_reference) == 0).all()


def test_the_same_numbers_threaded_sliced_and_reopened_from_statistics(report):
    evalset = report.evalset
    threaded = evaluate(evalset, Options(metrics=("chrf", "predicted_mqm")), execution=Execution(chunk=1, workers=2))
    pd.testing.assert_frame_equal(threaded.segments, report.segments)
    statistics = {key: result.stats for key, result in report.results.items()}
    reopened = report_from_statistics(evalset, report.options, report.metrics, statistics)
    pd.testing.assert_frame_equal(reopened.corpus, report.corpus)  # the formula alone: no span predicted again
    assert ("spans", "predicted", 0.1) not in reopened.context._memo
    # statistics of the earlier layout (five per segment, before the missing words) are refused, not misread
    earlier = {key: (stats[:, :5] if key[0] == "predicted_mqm" else stats) for key, stats in statistics.items()}
    with pytest.raises(ValueError, match=r"statistics of predicted_mqm for A have the shape \(3, 5\).*computes 7"):
        report_from_statistics(evalset, report.options, report.metrics, earlier)


def test_a_derived_metric_is_not_computed_from_tokens():
    metric = REGISTRY["predicted_mqm"]()
    assert isinstance(metric, DerivedMetric)
    with pytest.raises(TypeError, match="derived from a report"):
        metric.statistics(None, "A")


def test_it_needs_a_reference_or_three_systems():
    two = evalset_from_lists({}, {"A": ["a b"], "B": ["a c"]}, src=["x y"])
    assert "predicted_mqm" not in available_metrics(two)
    assert missing_input(two, "predicted_mqm") == "a reference or three systems (--ref, or three --hyp)"  # mtdiag.core.needs
    three = evalset_from_lists({}, {"A": ["a b"], "B": ["a c"], "C": ["a d"]}, src=["x y"])
    assert "predicted_mqm" in available_metrics(three)
    assert "predicted_mqm" in available_metrics(evalset_from_lists({"ref": ["a b"]}, {"A": ["a b"]}))


def test_the_threshold_is_an_option_that_leaves_out_less_confident_spans(report):
    strict = evaluate(report.evalset, Options(metrics=("predicted_mqm",),
                                              metric_options={"predicted_mqm": {"threshold": 0.99}}))
    # no span counted at 0.99; the judge's score does not move (it reads the spans at its own operating point)
    stats = np.concatenate([strict.result("predicted_mqm", s).stats for s in strict.evalset.systems])
    assert stats[:, :4].sum() == 0
    np.testing.assert_allclose(strict.segments["predicted_mqm"].to_numpy(), report.segments["predicted_mqm"].to_numpy())
    assert "threshold:0.99" in strict.signatures()["predicted_mqm"].format()


def test_mean_score_agreement_is_the_agreement_of_the_segment_scores_and_their_means():
    index = pd.MultiIndex.from_tuples([("A", 0), ("A", 1), ("B", 0), ("B", 1), ("C", 0)], names=["system", "seg"])
    scores = pd.Series([0.0, -1.0, -2.0, -1.0, -5.0], index=index)
    human = pd.DataFrame({"seg": [0, 1, 0, 1, 0, 1], "system": ["A", "A", "B", "B", "C", "C"],
                          "score": [0.0, -5.0, -1.0, -1.0, -10.0, -2.0]})
    found = mean_score_agreement(scores, human)
    # (C, 1) has no score: left out everywhere. Means A -0.5, B -1.5, C -5 vs A -2.5, B -1, C -10: A/B disagree
    assert (found["sys_accuracy"], found["sys_pairs"]) == (pytest.approx(2 / 3), 3)
    segs, values, truth = [0, 1, 0, 1, 0], [0.0, -1.0, -2.0, -1.0, -5.0], [0.0, -5.0, -1.0, -1.0, -10.0]
    assert found["seg_pearson"] == pytest.approx(pearson(values, truth))
    assert (found["seg_accuracy"], found["seg_pairs"]) == within_segment_accuracy(segs, values, truth)
    assert found["n_seg"] == 5 and found["n_sys"] == 3
    assert pairwise_accuracy([-0.5, -1.5, -5.0], [-2.5, -1.0, -10.0])[0] == pytest.approx(2 / 3)


def test_by_default_up_to_a_bound_of_pairs_on_request_above(monkeypatch):
    from mtdiag.scoring.evaluate import default_metrics
    from mtdiag.metrics.predicted_mqm import DEFAULT_MAX_PAIRS, PredictedMQM

    evalset = evalset_from_lists(REFS, HYPS)  # 3 segments x 4 systems = 12 pairs
    assert "predicted_mqm" in default_metrics(evalset) and DEFAULT_MAX_PAIRS == 100_000
    monkeypatch.setattr(PredictedMQM, "info", PredictedMQM.info.__class__(
        **{**PredictedMQM.info.__dict__, "default_max_pairs": 11}))
    assert "predicted_mqm" not in default_metrics(evalset)
    assert "predicted_mqm" in available_metrics(evalset)  # still there on request

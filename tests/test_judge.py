"""The learned judge (``mtdiag.spans.judge``, its features and its training): features counted by hand on a toy
set, the model applied as its file says, the fit deterministic, the shipped model's provenance, the protocols."""

from __future__ import annotations

import json
from importlib import resources

import numpy as np
import pandas as pd
import pytest

from mtdiag.core.evalset import evalset_from_lists
from mtdiag.core.needs import human_protocol
from mtdiag.metrics.predicted_mqm import JUDGE_VERSION, STAT_NAMES
from mtdiag.scoring.evaluate import Options, default_metrics, evaluate
from mtdiag.spans.judge import MODEL_FILE, caption, judged, model_inputs, stored_model
from mtdiag.spans.judge_features import FEATURES, character_consensus, judge_features
from mtdiag.spans.judge_training import _pairs, fit_model, fit_ranking, training_rows
from mtdiag.spans import predict_spans
from mtdiag.spans.protocol import OPERATING_POINTS, default_threshold, operating_point, protocol_spans

REFS = {"ref": ["the cat sat on the mat near the door", "we like the green house", "it is raining today"]}
HYPS = {"A": ["the cat sat on the mat near the door", "we like the green house", "it is raining today"],
        "B": ["the cat jumped on the mat near the door", "we like the green house", "it rains a lot today"],
        "C": ["a dog slept on the mat near the door", "we love a blue house", "it is raining today"],
        "D": ["the cat sat on the mat near the door", "we like the green house", "it is raining today"]}
SRC = ["die Katze saß auf der Matte an der Tür", "wir mögen das grüne Haus", "es regnet heute"]


@pytest.fixture(scope="module")
def report():
    return evaluate(evalset_from_lists(REFS, HYPS, src=SRC), Options(metrics=("chrf", "predicted_mqm")))


def test_features_by_hand(report):
    features = judge_features(report)
    assert list(features.columns) == list(FEATURES)
    row = features.loc[("A", 1)]
    # A = the reference, and B and D agree with it: chrF 100, its words all in the reference
    assert row["chrf"] == pytest.approx(100.0) and row["rho_mean"] == 1.0 and row["missing_share"] == 0.0
    assert row["unsupported_share"] == 0.0 and row["len_vs_ref"] == 0.0
    # C's "we love a blue house": 'love', 'blue' in no reference and in no other output (σ = 0), 'a' in none
    # either: three of five words unsupported; 'like', 'the', 'green' missing of five reference words
    c = features.loc[("C", 1)]
    assert c["unsupported_share"] == pytest.approx(3 / 5) and c["missing_share"] == pytest.approx(3 / 5)
    assert c["rho_mean"] == pytest.approx(2 / 5) and c["sigma_mean"] == pytest.approx(2 / 5)
    # log characters (whitespace removed): "welikethegreenhouse" has 19
    assert row["log_chars"] == pytest.approx(np.log1p(19))


def test_character_consensus_of_identical_outputs():
    evalset = evalset_from_lists({"ref": ["a b c", "x"]}, {"A": ["abc d", "x"], "B": ["abc d", "x"],
                                                           "C": ["abc d", "x"]})
    outputs, reference = character_consensus(evaluate(evalset, Options(metrics=("chrf",))))
    # three equal outputs: each agrees fully with the other two; the reference "abc" against "abcd": chrF of
    # "abc" (hyp) against "abcd" (refs): precision 1 on every order it has (1-3), recall 3/4, 2/3, 1/2 — chrF's
    # orders 4-6 have no reference-side n-grams in "abc" and count not
    assert outputs[:, 0].tolist() == pytest.approx([100.0] * 3) and outputs[:, 1].tolist() == pytest.approx([100.0] * 3)
    recall = (3 / 4 + 2 / 3 + 1 / 2) / 3
    assert reference[0] == pytest.approx(100 * 5 * recall / (4 + recall))  # F-beta, beta 2, precision 1


def test_model_inputs_are_relative_to_the_source(report):
    relative, level = model_inputs(judge_features(report), 4, 3)
    # each feature minus its source's mean over systems: they sum to 0 per source
    sums = relative[list(FEATURES)].to_numpy().reshape(4, 3, -1).sum(axis=0)
    np.testing.assert_allclose(sums, 0.0, atol=1e-9)
    # the system prior: the system's mean chrF over the set minus the mean over systems, the same on every segment
    chrf = judge_features(report)["chrf"].to_numpy().reshape(4, 3)
    prior = relative["prior_chrf"].to_numpy().reshape(4, 3)
    np.testing.assert_allclose(prior[:, 0], chrf.mean(axis=1) - chrf.mean(axis=1).mean())
    assert (prior == prior[:, :1]).all()
    np.testing.assert_allclose(level["seg_chrf"].to_numpy().reshape(4, 3), np.broadcast_to(chrf.mean(axis=0), (4, 3)))


def _by_the_file(report, model: dict, protocol: str) -> np.ndarray:
    """The model file's formula, written out again: q = standardised relative inputs · weights, centred per source;
    score = level + relative · q, clipped to the protocol's range."""
    relative, level = model_inputs(judge_features(report), 4, 3)
    inputs = pd.concat([relative, level], axis=1)
    part = model["variants"]["references"]

    def apply(block):
        z = (inputs[block["features"]].to_numpy() - np.array(block["mean"])) / np.array(block["scale"])
        return np.nan_to_num(z) @ np.array(block["weights"]) + block["intercept"]

    q = apply(part["rank"]).reshape(4, 3)
    q = (q - q.mean(axis=0)).reshape(-1)
    score = apply(part[protocol]["level"]) + part[protocol]["relative"] * q
    return np.clip(score, *((-np.inf, 0.0) if protocol == "mqm" else (0.0, 100.0)))


def test_predicted_mqm_and_esa_are_the_model_files_formula(report):
    model = stored_model()
    scores = judged(report)
    np.testing.assert_allclose(scores["mqm"].to_numpy(), _by_the_file(report, model, "mqm"))
    np.testing.assert_allclose(scores["esa"].to_numpy(), _by_the_file(report, model, "esa"))
    # the metric's segment score is the judge's; a system's score the mean of its segments'
    np.testing.assert_allclose(report.segments["predicted_mqm"].to_numpy(), scores["mqm"].to_numpy())
    np.testing.assert_allclose(report.corpus["predicted_mqm"].to_numpy(),
                               scores["mqm"].groupby(level="system").mean().reindex(report.corpus.index).to_numpy())
    assert report.result("predicted_mqm", "A").stat_names == STAT_NAMES
    # A and D wrote the same: the same score; C, the worst by every feature, the lowest on its segments 1 and 2
    np.testing.assert_allclose(scores.loc["A"].to_numpy(), scores.loc["D"].to_numpy())
    assert scores.loc[("C", 0), "mqm"] < scores.loc[("A", 0), "mqm"]
    assert scores.loc[("C", 1), "mqm"] < scores.loc[("B", 1), "mqm"]
    assert (scores["mqm"] <= 0).all() and scores["esa"].between(0, 100).all()


def _rows():
    """Two sources, three outputs each, one input: the humans order them as the input does on source 0 and
    the other way on source 1's first pair."""
    return pd.DataFrame({"set": "s", "seg": [0, 0, 0, 1, 1, 1], "system": list("ABCABC"),
                         "human": [0.0, -1.0, -5.0, -1.0, 0.0, -1.0], "x": [3.0, 2.0, 1.0, 1.0, 2.0, 3.0]})


def test_pairs_are_the_ordered_pairs_of_one_source():
    a, b, sign = _pairs(_rows())
    found = sorted(zip(a.tolist(), b.tolist(), sign.tolist()))
    # source 0: every pair ordered; source 1: (3, 5) tied by the humans — left out
    assert found == [(0, 1, 1.0), (0, 2, 1.0), (1, 2, 1.0), (3, 4, -1.0), (4, 5, 1.0)]


def test_the_ranking_fit_is_deterministic_and_learns_the_order():
    rows = _rows()
    first, second = fit_ranking(rows, ("x",), ridge=0.1), fit_ranking(rows, ("x",), ridge=0.1)
    assert json.dumps(first) == json.dumps(second)
    # x agrees with the humans on 3 of 5 pairs (4 of 5 weighing source 0's): a positive weight
    assert first["weights"][0] > 0
    assert first["mean"] == [2.0] and first["scale"] == [pytest.approx(np.std([3, 2, 1, 1, 2, 3]), rel=1e-5)]


def test_training_rows_and_a_whole_fit_are_byte_for_byte_the_same(report):
    human = pd.DataFrame({"seg": [0, 0, 0, 1, 1, 1, 2, 2], "system": list("ABCABCBC"),
                          "score": [0.0, -1.0, -6.0, 0.0, 0.0, -5.0, -2.0, 0.0]})
    from dataclasses import replace

    rated = evaluate(replace(report.evalset, human=human), Options(metrics=("chrf",)))
    rows = training_rows(rated, "mqm", "toy")
    assert len(rows) == 8 and set(rows["protocol"]) == {"mqm"}
    text = [json.dumps(fit_model(rows), sort_keys=True) for _ in range(2)]
    assert text[0] == text[1]
    assert set(json.loads(text[0])["variants"]["references"]) == {"rank", "mqm"}  # no ESA data: no ESA scale


def test_the_shipped_model_is_small_and_fitted_on_dev_sets_only():
    path = resources.files("mtdiag.spans").joinpath(MODEL_FILE)
    assert len(path.read_bytes()) <= 5 * 2**20
    model = stored_model()
    assert str(model["format"]) == JUDGE_VERSION
    assert set(model["variants"]) == {"references", "no_references"}
    trained = " ".join(model["trained_on"])
    for held_out in ("wmt23", "en-zh", "en-cs", "en-ja"):
        assert held_out not in trained
    assert "wmt24/en-hi (esa)" in model["trained_on"]


def test_without_references_the_reference_free_variant_scores():
    evalset = evalset_from_lists({}, HYPS, src=SRC)
    scores = judged(evaluate(evalset, Options(metrics=("consensus", "predicted_mqm"))))
    assert np.isfinite(scores["mqm"]).all()
    np.testing.assert_allclose(scores.loc["A"].to_numpy(), scores.loc["D"].to_numpy())


def test_human_protocol_and_the_operating_points():
    human_mqm = pd.DataFrame({"seg": [0, 0], "system": ["A", "B"], "score": [0.0, -5.0]})
    human_esa = pd.DataFrame({"seg": [0, 0], "system": ["A", "B"], "score": [90.0, 40.0]})
    base = evalset_from_lists(REFS, HYPS)
    from dataclasses import replace

    assert human_protocol(base) is None
    assert human_protocol(replace(base, human=human_mqm)) == "mqm"
    esa = replace(base, human=human_esa)
    assert human_protocol(esa) == "esa"
    assert "predicted_esa" in default_metrics(esa) and "predicted_esa" not in default_metrics(base)
    assert operating_point("mqm") == {"threshold": 0.10, "share": 1.0} == OPERATING_POINTS["mqm"]
    assert default_threshold(None) == OPERATING_POINTS["mqm"]["threshold"]
    with pytest.raises(ValueError, match="protocol 'dqm'"):
        operating_point("dqm")


def test_the_caption_quotes_the_benchmarks_figures():
    text = caption()
    assert text.startswith("Predicted MQM is the learned judge's estimate on the human scale")
    assert "chrF" in text and "of the system pairs" in text


def test_the_esa_operating_point_marks_only_the_worst_outputs(report, monkeypatch):
    import mtdiag.spans.protocol as protocol

    monkeypatch.setitem(protocol.OPERATING_POINTS, "esa", {"threshold": 0.10, "share": 1 / 3})
    # by hand: four outputs score 10, 20, 30, 40, the eight others 100 — the worst third (the 1/3 quantile of the
    # 12, linear between the 4th and 5th values: 40 + 2/3 · 60 = 80) are those four; every span of theirs stays
    # (C's of segment 0), no other (B's and C's of segments 1 and 2 go)
    worst = {("C", 0), ("A", 1), ("A", 2), ("D", 0)}
    scores = pd.DataFrame({"esa": 100.0}, index=report.segments.index)
    scores.loc[sorted(worst), "esa"] = [10.0, 20.0, 30.0, 40.0]
    every = predict_spans(report, 0.10)
    gated = protocol_spans(report, "esa", scores)
    expected = every[[(s, g) in worst for s, g in zip(every["system"], every["seg"])]].reset_index(drop=True)
    pd.testing.assert_frame_equal(gated, expected)
    assert len(gated) and len(gated) < len(every)
    pd.testing.assert_frame_equal(protocol_spans(report, "mqm"), every)  # MQM: every output

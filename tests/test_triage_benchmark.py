"""benchmarks/triage_vs_human.py on hand-made inputs: the two kinds of human score it measures against (an error
sum, and the holistic proxy — the same scores compared among pairs of similar length), the ways predicted MQM could
join the problem score (read from the report), and one line, not a traceback, when its data folder is missing."""

from __future__ import annotations

import importlib.util

import numpy as np
import pandas as pd
import pytest

from mtdiag.triage import ranking
from mtdiag.scoring.evaluate import Options, evaluate
from mtdiag.core.evalset import evalset_from_lists
from tests.conftest import REPO


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("triage_vs_human", REPO / "benchmarks" / "triage_vs_human.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _rated(lengths: np.ndarray, rates: np.ndarray) -> pd.DataFrame:
    """Rated pairs whose error sum is rate × length, banded by length as the benchmark bands them."""
    human_bad = rates * lengths
    return pd.DataFrame({"human_bad": human_bad, "per_word": human_bad / lengths,
                         "band": pd.qcut(lengths, 10, labels=False, duplicates="drop")})


def test_length_helps_on_the_error_sum_and_not_among_pairs_of_similar_length(bench):
    lengths = np.repeat(np.arange(1, 11) * 5.0, 20)  # ten lengths, twenty pairs each: ten bands
    rates = np.tile(np.linspace(0.05, 1.0, 20), 10)
    rated = _rated(lengths, rates)
    by_length = bench.lifts(lengths, rated)
    by_rate = bench.lifts(rates, rated)
    assert by_length["holistic"] == pytest.approx(1.0)  # within a band every pair is tied: random
    assert by_rate["holistic"] == pytest.approx(10.0)  # within a band the rate orders the sum exactly
    assert by_rate["per_word"] == pytest.approx(10.0)  # per word the sum is the rate again
    assert by_length["per_word"] == pytest.approx(1.0)  # ... and length tells nothing
    assert by_length["mqm"] == pytest.approx(4.0) == by_rate["mqm"]  # on the sum, length counts as much as the rate


def test_predicted_mqm_candidates_are_rank_products_of_the_reports_own_column(bench):
    refs = ["the cat sat on the mat today", "a dog runs in the park", "it rains today"]
    src = ["die Katze sass heute auf der Matte", "ein Hund rennt im Park", "es regnet heute"]
    hyps = {"good": list(refs), "loop": ["the cat cat cat cat sat", "a dog runs in the park", "it rains"],
            "bad": ["mat", "a dog runs in park", "rain today"]}
    evalset = evalset_from_lists({"ref": refs}, hyps, src=src)
    report = evaluate(evalset, Options(metrics=("ter", "chrf", "otem", "predicted_mqm")))
    views = ranking.ranking_metrics(report)
    rate, length = ranking.error_rate(report, views), ranking.segment_length(report)
    rows = dict(bench.predicted_mqm_candidates(report, views, rate, length))
    assert len(rows) == 8
    # predicted MQM as one more view of the rank product is what error_rate makes of it
    np.testing.assert_allclose(rows[f"rate of {', '.join(views)}, predicted MQM as a count × length"].to_numpy(),
                               (ranking.error_rate(report, [*views, "predicted_mqm"]) * length).to_numpy())
    penalty = -report.segments["predicted_mqm"]
    assert (penalty > 0).any()  # the loop and the dropped words are predicted errors
    share = len(views) / (len(views) + 1)  # one view among len(views) + 1: the predicted penalty as a rate
    np.testing.assert_allclose(rows[f"rate of {', '.join(views)}, predicted MQM per token of the length × length"],
                               rate ** share * (penalty / length).rank(pct=True) ** (1 - share) * length)
    # at the penalty level: the percentiles of rate × length and of the predicted penalty
    both = np.sqrt((rate * length).rank(pct=True) * penalty.rank(pct=True))
    np.testing.assert_allclose(rows["rank product of rate × length and predicted MQM"], both)
    # without a predicted MQM in the report there is nothing to join (and nothing is computed)
    plain = evaluate(evalset, Options(metrics=("ter", "chrf", "otem")))
    assert bench.predicted_mqm_candidates(plain, views, rate, length) == []
    assert "predicted_mqm" not in plain.metrics


def test_a_missing_data_folder_is_one_line_saying_where_to_get_it(bench, tmp_path, capsys):
    assert bench.main(["--data", str(tmp_path / "nowhere")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1
    assert err[0].startswith(str(tmp_path / "nowhere" / "wmt21" / "en-de") + ": not found")
    assert "google/wmt-mqm-human-evaluation" in err[0] and "--data DIR or MTDIAG_DEV_DATA" in err[0]


def test_the_data_folder_comes_from_the_environment(bench, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv(bench.DATA_ENV, str(tmp_path))
    assert bench.main([]) == 2
    assert capsys.readouterr().err.startswith(str(tmp_path / "wmt21" / "en-de") + ": not found")


def test_the_interval_of_queue_over_best_single_metric_resamples_source_segments(bench):
    rng = np.random.default_rng(1)
    rated = pd.DataFrame({"seg": np.repeat(np.arange(60), 5), "human_bad": rng.random(300)})
    human = rated["human_bad"].to_numpy()
    low, high, at_least_one = bench.resampled_ratio(human, human, rated, resamples=50)
    assert low == high == 1.0 and at_least_one == 1.0  # the same ranking: 1 on every resample
    low, high, at_least_one = bench.resampled_ratio(human, human + rng.normal(0, 0.3, 300), rated, resamples=200)
    assert 1.0 <= low < high and at_least_one == 1.0  # the human order itself beats any noisy copy of it
    low, high, at_least_one = bench.resampled_ratio(rng.random(300), human, rated, resamples=200)
    assert high < 0.5 and at_least_one == 0.0  # a random order against the perfect one

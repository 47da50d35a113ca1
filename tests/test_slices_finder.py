"""The slice finder (mtdiag.slices.finder, docs/slices.md) on dev TED zh-en: candidates are their expressions,
scores are the sliced report's own, the gap test's p-values too; the default test (departure from the rest of the
set) calls few slices significant where one system is ahead everywhere and finds the documents where two systems
differ; corrections are Holm's and Benjamini-Hochberg's."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import false_discovery_control

from mtdiag.analysis import significance
from mtdiag.analysis.significance import ALPHA, benjamini_hochberg, holm
from mtdiag.scoring.evaluate import evaluate
from mtdiag.io import load_folder
from mtdiag.slices import find_slices, segment_mask, where
from mtdiag.slices.finder import DEFAULT_CORRECTION, DEFAULT_TEST, candidate_slices, direction, resamples_for
from tests.conftest import DEV

A, B = "Facebook-AI", "metricsystem1"


@pytest.fixture(scope="module")
def report():
    return evaluate(load_folder(DEV / "ted" / "zh-en"))


@pytest.fixture(scope="module")
def found(report):
    return find_slices(report, A, B, "chrf", min_size=30)


@pytest.fixture(scope="module")
def gaps(report):
    return find_slices(report, A, B, "chrf", min_size=30, test="gap")


def test_holm_adjusts_as_in_holm_1979():
    # sorted: 0.005*4 = 0.02, 0.01*3 = 0.03, 0.03*2 = 0.06, 0.04*1 = 0.04 -> running maximum 0.02, 0.03, 0.06, 0.06
    adjusted = holm(np.array([0.01, 0.04, 0.03, 0.005, np.nan]))
    np.testing.assert_allclose(adjusted[:4], [0.03, 0.06, 0.06, 0.02])
    assert np.isnan(adjusted[4])
    assert holm(np.array([0.5, 0.6])).tolist() == [1.0, 1.0]


def test_benjamini_hochberg_equals_scipy():
    p = np.random.default_rng(3).uniform(0, 0.2, 200) ** 2
    np.testing.assert_allclose(benjamini_hochberg(p), false_discovery_control(p, method="bh"), rtol=1e-12)
    with_gap = benjamini_hochberg(np.array([0.01, np.nan, 0.02]))
    np.testing.assert_allclose(with_gap[[0, 2]], false_discovery_control([0.01, 0.02], method="bh"))


def test_every_candidate_is_what_its_expression_selects(report):
    candidates = candidate_slices(report, A, B, min_size=30)
    n = report.evalset.n_segments
    groups = {c.group for c in candidates}
    assert {"src_length", "ref_length", "ref_freq", "label:doc", "human", "flag:over_translation"} <= groups
    assert any(g.startswith("error:") for g in groups) and any(" & " in g for g in groups)
    keys = set()
    for candidate in candidates:
        assert (segment_mask(report, candidate.expression) == candidate.mask).all(), candidate.expression
        assert 30 <= candidate.mask.sum() < n
        keys.add(candidate.mask.tobytes())
    assert len(keys) == len(candidates)  # each set of segments is tried once


def test_scores_are_the_sliced_reports_and_the_gap_tests_p_values_too(report, found, gaps):
    assert list(found.columns) == ["expression", "size", "score_a", "score_b", "difference", "rest_difference",
                                   "departure", "direction", "p_value", "p_corrected", "correction", "significant"]
    assert DEFAULT_TEST == "departure" and found.attrs["test"] == "departure" and gaps.attrs["test"] == "gap"
    for row in found.head(4).itertuples():
        sliced, rest = where(report, row.expression), where(report, f"not ({row.expression})")
        assert sliced.evalset.n_segments == row.size
        assert sliced.corpus.loc[A, "chrf"] == row.score_a and sliced.corpus.loc[B, "chrf"] == row.score_b
        assert row.difference == row.score_a - row.score_b
        assert row.rest_difference == pytest.approx(rest.corpus.loc[A, "chrf"] - rest.corpus.loc[B, "chrf"], abs=1e-9)
        assert row.departure == row.difference - row.rest_difference
    for row in gaps.head(6).itertuples():
        sliced = where(report, row.expression)
        test = significance.significance(sliced, B, "bs", gaps.attrs["n"], systems=[A], metrics=["chrf"])
        assert test.loc[(A, "chrf"), "p"] == row.p_value


@pytest.mark.parametrize("test, ranked_by", [("departure", "departure"), ("gap", "difference")])
def test_ranked_by_significance_then_by_the_tested_quantity(report, found, gaps, test, ranked_by):
    table = found if test == "departure" else gaps
    assert table.attrs["tried"] == len(table) and table["correction"].eq("bh").all()
    significant = table["significant"].to_numpy()
    assert not (np.diff(significant.astype(int)) > 0).any()  # significant ones first
    for part in (table[significant], table[~significant]):
        assert (np.diff(part[ranked_by].abs().to_numpy()) <= 0).all()
    np.testing.assert_allclose(table["p_corrected"], benjamini_hochberg(table["p_value"].to_numpy()))
    assert (table["p_corrected"] >= table["p_value"] * (1 - 1e-12)).all()


def test_the_departure_test_is_reproducible_and_follows_its_seed(report):
    first, again = (find_slices(report, A, B, "chrf", min_size=80, n=2000) for _ in range(2))
    assert again["p_value"].tolist() == first["p_value"].tolist()
    other = find_slices(report, A, B, "chrf", min_size=80, n=2000, seed=7)
    assert other["p_value"].tolist() != first["p_value"].tolist()


def test_direction_says_which_way_a_slice_departs():
    assert direction(-2.0, 5.0, "A", "B") == "B wins here"
    assert direction(0.0, 5.0, "A", "B") == "B catches up" == direction(3.0, 5.0, "A", "B")
    assert direction(5.0, 5.0, "A", "B") == "as elsewhere"
    assert direction(7.0, 5.0, "A", "B") == "A's lead grows" and direction(10.0, 5.0, "A", "B") == "A's lead doubles"
    assert direction(-10.0, -5.0, "A", "B") == "B's lead doubles" and direction(1.0, -5.0, "A", "B") == "A wins here"
    assert direction(1.0, 0.0, "A", "B") == "A ahead here" and direction(float("nan"), 1.0, "A", "B") == ""


def test_one_system_ahead_everywhere_few_slices_depart(report):
    """TED zh-en: DIDI-NLP is ahead of Borderline by 5 chrF points over the set and on 159 of the 160 slices tried.
    A test of "A − B ≠ 0" per slice calls most of them significant, which says nothing about where; by default
    the finder tests where the gap departs from the rest of the set, and at most half of the slices do."""
    departure = find_slices(report, "Borderline", "DIDI-NLP", "chrf")
    gap = find_slices(report, "Borderline", "DIDI-NLP", "chrf", test="gap")
    assert (departure["difference"] < 0).mean() >= 0.99  # DIDI-NLP ahead on (almost) every slice
    assert gap.attrs["significant"] >= 0.8 * gap.attrs["tried"]
    assert departure.attrs["significant"] <= 0.5 * departure.attrs["tried"]
    assert departure.attrs["significant"] >= 1  # ... and still some: talk.2, where the lead doubles
    top = departure.iloc[0]
    assert top["expression"] == 'doc == "talk.2"' and top["direction"] == "DIDI-NLP's lead doubles"


@pytest.mark.parametrize("other", ["Borderline", "SMU"])
def test_two_systems_that_differ_on_three_documents_are_found_there(report, other):
    """B is DIDI-NLP's output except in three talks (241 of 529 segments), where it is another system's: the
    first slice found lies inside those talks."""
    evalset = report.evalset
    inside = evalset.segments["doc"].isin(["talk.2", "talk.5", "talk.7"]).to_numpy()
    hyps = evalset.hyps.copy()
    hyps["mixed"] = np.where(inside, hyps[other], hyps["DIDI-NLP"])
    mixed = evaluate(evalset.with_hyps(hyps))
    table = find_slices(mixed, "DIDI-NLP", "mixed", "chrf")
    first = segment_mask(mixed, table.iloc[0]["expression"])
    assert table.iloc[0]["significant"] and (first <= inside).all(), table.iloc[0]["expression"]


def test_holm_is_stricter_than_bh_and_top_cuts(report, found):
    strict = find_slices(report, A, B, "chrf", correction="holm", top=5)
    assert strict.attrs["test"] == "departure"
    assert len(strict) == 5 and strict["correction"].eq("holm").all()
    assert strict.attrs["significant"] <= found.attrs["significant"]
    assert strict.attrs["tried"] == found.attrs["tried"]


def test_finder_arguments_are_checked(report):
    for kwargs, message in (({"a": "X", "b": B}, "'X' is not a system"), ({"a": A, "b": A}, "two different"),
                            ({"a": A, "b": B, "metric": "comet"}, "metric 'comet' was not computed"),
                            ({"a": A, "b": B, "correction": "bonferroni"}, "unknown correction"),
                            ({"a": A, "b": B, "test": "anova"}, "unknown test 'anova'; choose departure, gap"),
                            ({"a": A, "b": B, "min_size": 0}, "at least 1")):
        with pytest.raises(ValueError, match=message):
            find_slices(report, **kwargs)


def test_enough_resamples_that_the_smallest_p_survives_either_correction(report, gaps):
    """A bootstrap of n resamples gives p >= 1/(n+1) and both corrections multiply the smallest p by the number of
    slices tried: with sacrebleu's 1,000 resamples Holm over ~160 slices could never find anything. The default
    draws enough resamples for the slices tried."""
    tried, n = gaps.attrs["tried"], gaps.attrs["n"]
    assert tried > 100 and n == resamples_for(tried) and (n + 1) * ALPHA >= 2 * tried
    assert gaps["p_value"].min() == pytest.approx(1 / (n + 1))
    assert resamples_for(3) == 1000
    fixed = find_slices(report, A, B, "chrf", correction="holm", n=1000, test="gap")
    assert fixed.attrs["n"] == 1000 and fixed.attrs["significant"] == 0  # the floor: 1/1001 * 158 > 0.05


def test_the_default_correction_reports_slices_where_two_systems_clearly_differ(report):
    """TED zh-en: DIDI-NLP is ahead of Borderline by about 5 chrF points over the whole set and by 7-10 on many
    slices. With the default correction and resamples the gap test must be able to say so — under Holm too."""
    assert DEFAULT_CORRECTION == "bh"
    table = find_slices(report, "Borderline", "DIDI-NLP", "chrf", test="gap")
    assert table.attrs["correction"] == "bh" and table.attrs["significant"] >= 10
    assert (table.loc[table["significant"], "difference"] < 0).all()
    strict = find_slices(report, "Borderline", "DIDI-NLP", "chrf", correction="holm", test="gap")
    assert strict.attrs["significant"] >= 10

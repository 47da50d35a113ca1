"""The slice finder (mtdiag.slices.finder, docs/slices.md) on dev TED zh-en: candidates are their expressions,
scores and p-values are the sliced report's own, corrections are Holm's and Benjamini-Hochberg's."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import false_discovery_control

from mtdiag import significance
from mtdiag.significance import ALPHA, benjamini_hochberg, holm
from mtdiag.api import evaluate
from mtdiag.io import load_folder
from mtdiag.slices import find_slices, segment_mask, where
from mtdiag.slices.finder import DEFAULT_CORRECTION, candidate_slices, resamples_for
from tests.conftest import DEV

A, B = "Facebook-AI", "metricsystem1"


@pytest.fixture(scope="module")
def report():
    return evaluate(load_folder(DEV / "ted" / "zh-en"))


@pytest.fixture(scope="module")
def found(report):
    return find_slices(report, A, B, "chrf", min_size=30)


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


def test_scores_and_p_values_are_the_sliced_reports(report, found):
    assert list(found.columns) == ["expression", "size", "score_a", "score_b", "difference", "p_value",
                                   "p_corrected", "correction", "significant"]
    for row in found.head(6).itertuples():
        sliced = where(report, row.expression)
        assert sliced.evalset.n_segments == row.size
        assert sliced.corpus.loc[A, "chrf"] == row.score_a and sliced.corpus.loc[B, "chrf"] == row.score_b
        assert row.difference == row.score_a - row.score_b
        test = significance.significance(sliced, B, "bs", found.attrs["n"], systems=[A], metrics=["chrf"])
        assert test.loc[(A, "chrf"), "p"] == row.p_value


def test_ranked_by_significance_then_by_the_size_of_the_difference(found):
    assert found.attrs["tried"] == len(found) and found["correction"].eq("bh").all()
    significant = found["significant"].to_numpy()
    assert significant.any() and not (np.diff(significant.astype(int)) > 0).any()  # significant ones first
    for part in (found[significant], found[~significant]):
        gaps = part["difference"].abs().to_numpy()
        assert (np.diff(gaps) <= 0).all()
    np.testing.assert_allclose(found["p_corrected"], benjamini_hochberg(found["p_value"].to_numpy()))
    assert (found["p_corrected"] >= found["p_value"] * (1 - 1e-12)).all()


def test_holm_is_stricter_than_bh_and_top_cuts(report, found):
    strict = find_slices(report, A, B, "chrf", correction="holm", top=5)
    assert len(strict) == 5 and strict["correction"].eq("holm").all()
    assert strict.attrs["significant"] <= found.attrs["significant"]
    assert strict.attrs["tried"] == found.attrs["tried"]


def test_finder_arguments_are_checked(report):
    for kwargs, message in (({"a": "X", "b": B}, "'X' is not a system"), ({"a": A, "b": A}, "two different"),
                            ({"a": A, "b": B, "metric": "comet"}, "metric 'comet' was not computed"),
                            ({"a": A, "b": B, "correction": "bonferroni"}, "unknown correction"),
                            ({"a": A, "b": B, "min_size": 0}, "at least 1")):
        with pytest.raises(ValueError, match=message):
            find_slices(report, **kwargs)


def test_enough_resamples_that_the_smallest_p_survives_either_correction(report, found):
    """A bootstrap of n resamples gives p >= 1/(n+1) and both corrections multiply the smallest p by the number of
    slices tried: with sacrebleu's 1,000 resamples Holm over ~160 slices could never find anything. The default
    draws enough resamples for the slices tried."""
    tried, n = found.attrs["tried"], found.attrs["n"]
    assert tried > 100 and n == resamples_for(tried) and (n + 1) * ALPHA >= 2 * tried
    assert found["p_value"].min() == pytest.approx(1 / (n + 1))
    assert resamples_for(3) == 1000
    fixed = find_slices(report, A, B, "chrf", correction="holm", n=1000)
    assert fixed.attrs["n"] == 1000 and fixed.attrs["significant"] == 0  # the floor: 1/1001 * 158 > 0.05


def test_the_default_correction_reports_slices_where_two_systems_clearly_differ(report):
    """TED zh-en: DIDI-NLP is ahead of Borderline by about 5 chrF points over the whole set and by 7-10 on many
    slices. With the default correction and resamples the finder must be able to say so — under Holm too."""
    assert DEFAULT_CORRECTION == "bh"
    table = find_slices(report, "Borderline", "DIDI-NLP", "chrf")
    assert table.attrs["correction"] == "bh" and table.attrs["significant"] >= 10
    assert (table.loc[table["significant"], "difference"] < 0).all()
    strict = find_slices(report, "Borderline", "DIDI-NLP", "chrf", correction="holm")
    assert strict.attrs["significant"] >= 10

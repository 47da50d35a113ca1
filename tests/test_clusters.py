"""Ranked significance clusters (WMT style) and the system x system matrix of paired tests (issue: analysis views)."""

from __future__ import annotations

import numpy as np
import pytest

from mtdiag.scoring.evaluate import Options, evaluate
from mtdiag.analysis.significance import pairwise_significance, ranked_clusters, significance
from mtdiag.core.evalset import evalset_from_lists
from tests.test_compare import HAND_METRICS, hand_made


@pytest.fixture(scope="module")
def ranked_report():
    """``best`` = the reference; ``worse`` and ``worse_twin`` = the same degraded output (over- and under-translated
    on every segment)."""
    refs, hyps = hand_made()
    hyps = {"worse": hyps["bad"], "best": hyps["good"], "worse_twin": list(hyps["bad"])}
    return evaluate(evalset_from_lists(refs, hyps), Options(metrics=HAND_METRICS))


@pytest.fixture(scope="module")
def pairwise(ranked_report):
    return pairwise_significance(ranked_report, "bs", 500)


def test_a_clearly_better_system_is_alone_in_cluster_one(ranked_report, pairwise):
    clusters = ranked_clusters(ranked_report, pairwise)
    for metric in HAND_METRICS:
        rows = clusters[clusters["metric"] == metric].set_index("system")
        assert rows.at["best", "rank"] == 1 and rows.at["best", "cluster"] == 1, metric
        # identical outputs share a cluster, below the best
        assert rows.at["worse", "cluster"] == rows.at["worse_twin", "cluster"] == 2, metric
        assert np.isnan(rows.at["best", "p_above"])


def test_matrix_is_antisymmetric_and_equals_the_pairwise_test(ranked_report, pairwise):
    systems = ranked_report.evalset.systems
    for metric in HAND_METRICS:
        for a in systems:
            for b in systems:
                if a == b:
                    continue
                ab, ba = pairwise.loc[(metric, a, b)], pairwise.loc[(metric, b, a)]
                assert ab["delta"] == pytest.approx(-ba["delta"]) and ab["better"] == -ba["better"]
                assert ab["p"] == pytest.approx(ba["p"])  # same draw: symmetric p
                single = significance(ranked_report, b, "bs", 500, systems=[a], metrics=[metric])
                assert ab["p"] == single.loc[(a, metric), "p"]
    assert pairwise.loc[("bleu", "worse", "worse_twin"), "better"] == 0
    assert not pairwise.loc[("bleu", "worse", "worse_twin"), "significant"]


def test_directionless_metrics_are_not_ranked():
    refs, hyps = hand_made()
    report = evaluate(evalset_from_lists(refs, hyps), Options(metrics=("bleu", "length_ratio")))
    clusters = ranked_clusters(report, pairwise_significance(report, "bs", 100))
    assert set(clusters["metric"]) == {"bleu"}


def test_the_one_draw_matrix_equals_significance_baseline_by_baseline():
    """On the WMT21 en-de sample (6 systems, 3 references): every (system, other) row of the bootstrap matrix —
    computed from one draw — is exactly :func:`significance` with ``other`` as the baseline."""
    from mtdiag.io import load_folder
    from tests.conftest import SAMPLE

    report = evaluate(load_folder(SAMPLE / "wmt21.en-de"), Options(metrics=("bleu", "chrf", "ter", "length_ratio")))
    matrix = pairwise_significance(report, "bs", 300, seed=7)
    assert matrix.attrs["n"] == 300 and matrix.attrs["seed"] == 7
    systems = report.evalset.systems
    for baseline in systems:
        frame = significance(report, baseline, "bs", 300, 7, n_confidence=0)
        for system in systems:
            if system == baseline:
                continue
            for metric in report.metrics:
                row, expected = matrix.loc[(metric, system, baseline)], frame.loc[(system, metric)]
                assert row["delta"] == expected["delta"] and row["better"] == expected["better"]
                assert row["p"] == expected["p"] or (np.isnan(row["p"]) and np.isnan(expected["p"]))
                assert row["significant"] == expected["significant"]
    assert len(matrix) == len(report.metrics) * len(systems) * (len(systems) - 1)

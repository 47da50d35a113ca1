"""Agreement of the metrics with human judgements and the MQM system ranking (shared/data/README.md)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from mtdiag.scoring.evaluate import Options, evaluate
from mtdiag.core.evalset import evalset_from_lists
from mtdiag.analysis.human_agreement import human_agreement, human_system_scores, mqm_system_ranking
from mtdiag.io import load_folder, read_human_scores

from tests.conftest import DEV

REFS = {"A": ["the cat sat on the mat", "a dog barked", "it rained all day", "we went home early"]}
HYPS = {
    "good": ["the cat sat on the mat", "a dog barked", "it rained all day", "we went home"],
    "fair": ["the cat sat on a mat", "the dog barks", "it rained", "we left early"],
    "poor": ["cat", "dog", "rain fell", "home"],
}
HUMAN_TSV = (
    "system\tseg_id\tscore\n"
    "good\t1\t0\ngood\t2\t-1\ngood\t3\t\ngood\t4\t-1\n"  # seg 3 of "good" not rated (blank)
    "fair\t1\t-2\nfair\t2\t-3\nfair\t3\t-5\nfair\t4\t-2\n"
    "poor\t1\t-9\npoor\t2\t-6\npoor\t3\t-8\npoor\t4\t-10\n"
    "ref.A\t1\t0\nref.A\t2\t0\nref.A\t3\t0\nref.A\t4\t0\n"  # a reference rated as a system: ignored
)


@pytest.fixture(scope="module")
def toy():
    report = evaluate(evalset_from_lists(REFS, HYPS), Options(metrics=("bleu", "ter", "waft")))
    human = read_human_scores(HUMAN_TSV.encode(), "human.tsv", n_segments=4)
    return report, human


def test_segment_level_correlations_pool_rated_system_segment_pairs(toy):
    report, human = toy
    table = human_agreement(report, human)
    assert table.loc["bleu", "n_seg"] == 11 and table.loc["bleu", "n_sys"] == 3  # 12 rated, 1 blank; ref.A ignored
    rated = human.set_index(["system", "seg"])["score"]
    pairs = report.segments.join(rated, how="inner")
    expected_r = stats.pearsonr(pairs["bleu"], pairs["score"])[0]
    expected_tau = stats.kendalltau(pairs["bleu"], pairs["score"])[0]
    assert table.loc["bleu", "seg_pearson"] == pytest.approx(expected_r, abs=1e-12)
    assert table.loc["bleu", "seg_kendall"] == pytest.approx(expected_tau, abs=1e-12)


def test_lower_is_better_metrics_are_sign_flipped_so_positive_means_agreement(toy):
    report, human = toy
    table = human_agreement(report, human)
    rated = report.segments.join(human.set_index(["system", "seg"])["score"], how="inner")
    assert table.loc["ter", "seg_pearson"] == pytest.approx(-stats.pearsonr(rated["ter"], rated["score"])[0])
    assert (table[["seg_pearson", "sys_pearson"]] > 0).all().all()  # every metric agrees on this easy case


def test_system_level_uses_mean_human_score_over_rated_segments_and_corpus_score(toy):
    report, human = toy
    table = human_agreement(report, human)
    means = human[human.system != "ref.A"].groupby("system")["score"].mean()
    assert means["good"] == pytest.approx(-2 / 3)  # the blank segment is not a zero
    corpus = report.corpus["bleu"].reindex(means.index)
    assert table.loc["bleu", "sys_pearson"] == pytest.approx(stats.pearsonr(corpus, means)[0], abs=1e-12)
    assert table.loc["bleu", "sys_kendall"] == pytest.approx(1.0)


def test_lower_is_better_human_scores_flip_too(toy):
    report, human = toy
    errors = human.assign(score=-human["score"])  # positive error counts: lower is better
    flipped = human_agreement(report, errors, human_higher_is_better=False)
    pd.testing.assert_frame_equal(flipped, human_agreement(report, human))


def test_without_matching_systems_everything_is_undefined(toy):
    report, human = toy
    table = human_agreement(report, human.assign(system="someone-else"))
    assert table[["seg_pearson", "sys_kendall"]].isna().all().all() and table["n_seg"].eq(0).all()
    assert human_agreement(report).isna()[["seg_pearson"]].all().all()  # the EvalSet has no human scores


def test_human_system_scores_rank_best_first(toy):
    _, human = toy
    table = human_system_scores(human)
    assert list(table.index) == ["ref.A", "good", "fair", "poor"]
    assert table.loc["good", "n_rated"] == 3


def test_mqm_ranking_reproduces_published_wmt21_en_de_means():
    """shared/data/README.md: en-de VolcTrans-GLAT 1.04, Facebook-AI 1.05, ref-C 0.51 (as −mean)."""
    human = load_folder(DEV / "wmt21" / "en-de").human
    ranking = mqm_system_ranking(human)
    assert ranking.loc["VolcTrans-GLAT", "mqm"].round(2) == 1.04
    assert ranking.loc["Facebook-AI", "mqm"].round(2) == 1.05
    assert ranking.loc["ref.C", "mqm"].round(2) == 0.51
    assert list(ranking.index[:4]) == ["ref.C", "ref.D", "VolcTrans-GLAT", "Facebook-AI"]
    assert ranking["n_rated"].eq(527).all() and ranking["rank"].tolist() == list(range(1, 12))
    assert np.all(np.diff(ranking["mqm"].to_numpy()) >= 0)


def test_dev_en_de_correlations_are_positive_at_system_level():
    evalset = load_folder(DEV / "wmt21" / "en-de")
    report = evaluate(evalset, Options(metrics=("bleu", "chrf", "ter")))
    table = human_agreement(report)
    assert table["n_sys"].eq(8).all() and table["n_seg"].eq(8 * 527).all()
    assert (table["sys_pearson"] > 0.5).all() and (table["seg_kendall"] > 0).all()


def test_the_human_page_opens_on_what_the_data_has():
    """Issue 37: the Human page opened on ORANGE/KING, empty for one-reference data. It opens on the agreement with
    human scores when there are some, else on ORANGE/KING with two references or more, else on the error
    statistics (the predicted error spans every set has)."""
    from mtdiag.views.human import SECTIONS, opening_section

    refs = {"A": ["a b c", "d e f"], "B": ["a b d", "d e g"]}
    hyps = {"x": ["a b c", "d e"], "y": ["a c", "d f"]}
    human = pd.DataFrame({"system": ["x", "x", "y", "y"], "seg": [0, 1, 0, 1], "score": [-1.0, 0.0, -5.0, -2.0]})
    assert opening_section(evaluate(evalset_from_lists(refs, hyps, human=human))) == "human"
    assert opening_section(evaluate(evalset_from_lists({"A": refs["A"]}, hyps, human=human))) == "human"
    assert opening_section(evaluate(evalset_from_lists(refs, hyps))) == "likeness"
    assert opening_section(evaluate(evalset_from_lists({"A": refs["A"]}, hyps))) == "errors"
    assert list(SECTIONS)[0] == "human"  # offered first, as the page opens on it


def test_a_one_reference_sets_likeness_notes_say_its_count_once():
    """ORANGE/KING and QUEEN on a set of one reference: why they are empty, the count said once (the page said
    "this set has 1 ... This set has 1 reference")."""
    from mtdiag.core.evalset import evalset_from_lists
    from mtdiag.scoring.evaluate import Options, evaluate
    from mtdiag.views import REGISTRY

    report = evaluate(evalset_from_lists({"ref": ["a b c", "d e f"]}, {"A": ["a b c", "d e"], "B": ["a c", "d f"]}),
                      Options(metrics=("chrf",)))
    view = REGISTRY["human"]
    chosen = view.resolve(report)
    for name, needed in (("orange_king", 2), ("queen", 3)):
        why = view.table(name).why_empty(report, chosen)
        assert why.lower().count("this set has") == 1 and why.count(" 1") == 1, why
        assert f"needs at least {needed} references per segment and this set has 1" in why
        assert why.endswith("Or pick a set with several references (e.g. wmt21.en-de).")

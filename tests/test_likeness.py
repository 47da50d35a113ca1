"""ORANGE, KING and QUEEN (Amigó et al. 2006 §2.2, §3.1, §3.3; shared/spec/METRICS.md §5).

The small cases are worked by hand in the comments; the core-backed cases check that the similarities are the
segment scores of ``mtdiag.scoring.evaluate.evaluate`` (sacrebleu's sentence BLEU / TER) with the held-out reference as a
system, oriented by ``MetricInfo.higher_is_better``.
"""

from __future__ import annotations

import numpy as np
import pytest
import sacrebleu

from mtdiag.core.evalset import evalset_from_lists
from mtdiag.io import load_folder
from mtdiag.analysis.likeness import (DEFAULT_QUEEN_METRICS, greedy_metric_set, king_of_set, likeness_scores, orange_king, orange_king_arrays, queen, queen_counts, queen_values, select_metrics)

from tests.conftest import SAMPLE

nan = float("nan")

# ORANGE / KING by hand: 2 segments x 2 held-out references x 2 systems.
HUMAN = np.array([[0.5, 0.7], [0.2, 0.4]])
SYSTEMS = np.array([
    [[0.5, 0.4], [0.8, 0.1]],  # seg 0: r0 ties a0 and beats a1 (KING); r1 loses to a0
    [[0.1, 0.3], [0.3, 0.4]],  # seg 1: r0 loses to a1; r1 beats a0 and ties a1 (KING)
])


def test_orange_and_king_by_hand_ties_count_for_the_human():
    counts = orange_king_arrays(HUMAN, SYSTEMS)
    assert counts.orange == 6 / 8  # wins: 2 + 1 + 1 + 2
    assert counts.king == 2 / 4
    assert (counts.n_comparisons, counts.n_cases) == (8, 4)
    assert counts.tie_share == 2 / 8
    assert counts.segment_king.tolist() == [0.5, 0.5]


def test_undefined_scores_are_left_out():
    systems = SYSTEMS.copy()
    systems[1, 1, 0] = nan  # seg 1, r1 vs a0 undefined: that comparison and that KING case drop out
    counts = orange_king_arrays(HUMAN, systems)
    assert counts.orange == 5 / 7 and counts.king == 1 / 3
    assert counts.segment_king.tolist() == [0.5, 0.0]


def test_a_metric_that_always_prefers_humans_has_king_one():
    rng = np.random.default_rng(1)
    systems = rng.random((50, 3, 4))
    human = systems.max(axis=2) + rng.random((50, 3)) * 0.1
    counts = orange_king_arrays(human, systems)
    assert counts.orange == 1.0 and counts.king == 1.0


def test_random_metric_orange_one_half_king_one_over_systems_plus_one():
    """§2.3: a random metric has ORANGE 0.5 and KING "1/|A|"; exactly, the human is the best of |A| + 1 i.i.d.
    scores with probability 1/(|A| + 1) (0.0909 for 10 systems), which the paper rounds to 1/|A| = 0.1."""
    rng = np.random.default_rng(7)
    n_systems = 10
    counts = orange_king_arrays(rng.random((40_000, 3)), rng.random((40_000, 3, n_systems)))
    assert counts.orange == pytest.approx(0.5, abs=0.003)
    assert counts.king == pytest.approx(1 / (n_systems + 1), abs=0.003)
    assert abs(counts.king - 1 / n_systems) > 0.005


# QUEEN by hand: one segment, three references, one candidate.
CAND = np.array([0.5, 0.3, 0.9])  # x(a, r0), x(a, r1), x(a, r2)
BETWEEN = np.array([  # x(r', r'') with r' the row, r'' the column
    [nan, 0.4, 0.6],
    [0.2, nan, 0.5],
    [0.45, 0.3, nan],
])


def test_queen_per_segment_by_hand():
    # r0: x(a,r0)=0.5 vs x(r1,r2)=0.5 (tie: yes), x(r2,r1)=0.3 (yes) -> 2
    # r1: 0.3 vs x(r0,r2)=0.6, x(r2,r0)=0.45 -> 0;   r2: 0.9 vs x(r0,r1)=0.4, x(r1,r0)=0.2 -> 2
    wins, valid = queen_counts(CAND[None, None, None, :], BETWEEN[None, None])
    assert (wins.item(), valid.item()) == (4, 6)


def test_queen_needs_every_metric_to_agree():
    second_cand = np.array([1.0, 1.0, 0.0])  # fails every triple with r = r2
    second_between = np.full((3, 3), 0.5)
    cand = np.stack([CAND, second_cand])[:, None, None, :]
    between = np.stack([BETWEEN, second_between])[:, None]
    assert queen_values(cand, between).item() == 2 / 6  # only r0's two triples pass both


def test_queen_pooled_by_hand():
    """Pooled pairs: every ordered reference pair of every segment, except, on the candidate's own segment,
    the pairs that contain its reference r."""
    between = np.stack([BETWEEN, np.where(np.eye(3, dtype=bool), nan, 0.25)])[None]  # seg 1: every pair 0.25
    cand = np.stack([CAND, np.zeros(3)])[None, :, None, :]
    wins, valid = queen_counts(cand, between, pool=True)
    # seg 0, r0 (0.5): seg 0 pairs without r0: 0.5, 0.3 -> 2; seg 1: six 0.25 -> 6  => 8 of 8
    #        r1 (0.3): 0.6, 0.45 -> 0; six 0.25 -> 6 => 6 of 8;   r2 (0.9): 8 of 8
    # seg 1, every r (0.0): beats nothing => 0 of 8 each
    assert wins.ravel().tolist() == [22, 0] and valid.ravel().tolist() == [24, 24]
    doubled = queen_counts(np.concatenate([cand, cand]), np.concatenate([between, between]), pool=True)
    assert [a.ravel().tolist() for a in doubled] == [[22, 0], [24, 24]]  # the k > 1 code path agrees


def _pairs_good(n_seg=6, n_sys=2, m=3):
    """x(c, r): systems 0, references 1 (NaN where c is r): a metric under which humans always win."""
    pairs = np.zeros((n_seg, n_sys + m, m))
    pairs[:, n_sys:, :] = 1.0
    for r in range(m):
        pairs[:, n_sys + r, r] = nan
    return pairs


def test_king_of_a_set_and_greedy_search_keep_a_perfect_metric_alone():
    rng = np.random.default_rng(3)
    good = _pairs_good()
    noise = np.where(np.isnan(good), nan, rng.random(good.shape))
    assert king_of_set(good[None], n_systems=2, pool=True).king == 1.0
    selected, best, steps = greedy_metric_set({"noise": noise, "good": good}, n_systems=2, pool=True)
    assert selected == ("good",) and best.king == 1.0
    assert [row[0] for row in steps] == ["good", "noise"] and [row[3] for row in steps] == [True, False]


def test_greedy_search_follows_the_papers_two_steps():
    rng = np.random.default_rng(11)
    shape = (30, 3 + 4, 4)  # 30 segments, 3 systems, 4 references
    pairs = {f"m{i}": rng.random(shape) for i in range(5)}
    for values in pairs.values():
        for r in range(4):
            values[:, 3 + r, r] = nan
    selected, best, steps = greedy_metric_set(pairs, n_systems=3, pool=False)
    alone = [row[1] for row in steps]
    assert alone == sorted(alone, reverse=True)  # 1. ranked by individual KING
    running = steps[0][2]
    for metric, _, king_with, added in steps[1:]:  # 2. added iff the set's KING increases
        assert added == (king_with > running)
        running = max(running, king_with) if added else running
    assert best.king == running == king_of_set(np.stack([pairs[m] for m in selected]), 3, False).king


# ------------------------------------------------------------------------------------------- with the core


@pytest.fixture(scope="module")
def en_de():
    return likeness_scores(load_folder(SAMPLE / "wmt21.en-de"), metrics=("waft", "neva", "bleu", "chrf", "ter"))


def test_held_out_similarities_are_the_cores_segment_scores(en_de):
    evalset = en_de.evalset
    refs, system = evalset.ref_names, evalset.systems[0]
    held = en_de.held_out
    for seg in (0, 5):
        for j, ref in enumerate(refs):
            others = [evalset.refs[r][seg] for r in refs if r != ref]
            human = sacrebleu.sentence_bleu(evalset.refs[ref][seg], others).score
            machine = sacrebleu.sentence_bleu(evalset.hyps[system][seg], others).score
            assert held["bleu"][seg, j, -1] == pytest.approx(human, abs=1e-9)
            assert held["bleu"][seg, j, 0] == pytest.approx(machine, abs=1e-9)
            ter = sacrebleu.sentence_ter(evalset.hyps[system][seg], others).score
            assert held["ter"][seg, j, 0] == pytest.approx(-ter, abs=1e-9)  # lower is better: negated


def test_pair_similarities_against_single_references(en_de):
    evalset = en_de.evalset
    a, c = evalset.refs["A"][3], evalset.refs["C"][3]
    n_sys = len(evalset.systems)
    pairs = en_de.pairs["bleu"]
    assert pairs[3, n_sys + 0, 1] == pytest.approx(sacrebleu.sentence_bleu(a, [c]).score, abs=1e-9)
    assert np.isnan(pairs[3, n_sys + 1, 1])  # a reference is never scored against itself


def test_orange_king_table_on_sample_en_de(en_de):
    result = orange_king(en_de)
    assert result.explanation is None
    assert list(result.table.index) == ["waft", "neva", "bleu", "chrf", "ter"]
    assert result.table["n_comparisons"].eq(117 * 3 * 6).all() and result.table["n_cases"].eq(117 * 3).all()
    assert result.table[["orange", "king"]].stack().between(0, 1).all()
    assert result.segments.shape == (117, 5)


def test_queen_per_segment_and_pooled_on_sample_en_de(en_de):
    per_segment = queen(en_de, DEFAULT_QUEEN_METRICS)
    pooled = queen(en_de, DEFAULT_QUEEN_METRICS, pool=True)
    assert per_segment.segments.shape == (117, 6) and not per_segment.pooled and pooled.pooled
    assert per_segment.systems.between(0, 1).all() and pooled.systems.between(0, 1).all()
    # per-system QUEEN = all triples of all segments (each segment has the same 6 triples): the segment mean
    assert per_segment.systems.to_numpy() == pytest.approx(per_segment.segments.mean().to_numpy())
    assert not np.allclose(per_segment.systems.to_numpy(), pooled.systems.to_numpy())


def test_select_metrics_pools_with_three_references(en_de):
    selection = select_metrics(en_de)
    assert selection.pooled and selection.explanation is None
    assert selection.selected[0] == selection.steps.iloc[0]["metric"]
    assert 0 <= selection.king <= 1 and 0 <= selection.orange <= 1


def test_identical_references_make_every_reference_win():
    refs = ["the cat sat on the mat", "a dog barked loudly", "it rained all day"]
    evalset = evalset_from_lists({"A": refs, "B": refs, "C": refs},
                                 {"s1": ["the cat sat", "a dog", "rain"], "s2": ["cat mat", "dog", "it rained"]})
    scores = likeness_scores(evalset, metrics=("bleu", "waft", "ter"))
    table = orange_king(scores).table
    assert table["orange"].eq(1.0).all() and table["king"].eq(1.0).all()
    assert queen(scores, ("bleu",)).systems.eq(0.0).all()  # x(a, r) < x(r', r'') = 100 everywhere


def test_fewer_references_explain_instead_of_raising():
    one = likeness_scores(evalset_from_lists({"A": ["a b"]}, {"s": ["a"]}), metrics=("bleu",))
    result = orange_king(one)
    assert result.table.empty and "at least 2 references" in result.explanation
    assert "at least 3 references" in queen(one).explanation
    assert select_metrics(one).explanation and select_metrics(one).selected == ()
    two = likeness_scores(evalset_from_lists({"A": ["a b"], "B": ["a c"]}, {"s": ["a"]}), metrics=("bleu",))
    assert orange_king(two).explanation is None
    assert queen(two).systems.empty and "at least 3 references" in queen(two).explanation


def test_unknown_or_unusable_metrics_are_value_errors():
    evalset = evalset_from_lists({"A": ["a b"], "B": ["a c"]}, {"s": ["a"]})
    with pytest.raises(ValueError, match="unknown metric"):
        likeness_scores(evalset, metrics=("nope",))
    with pytest.raises(ValueError, match="needs terms"):
        likeness_scores(evalset, metrics=("term_exact",))


def test_plain_words_say_what_orange_and_king_mean_against_chance():
    import pandas as pd

    from mtdiag.analysis.likeness import plain_words

    table = pd.DataFrame({"orange": [0.72, 0.5, 0.31], "king": [0.4, 0.1, 0.02], "tie_share": [0.0, 0.0, 0.6]},
                         index=pd.Index(["chrf", "bleu", "otem"], name="metric"))
    chrf, bleu, otem = plain_words(table, n_systems=5)
    assert chrf.startswith("chrF: scores a held-out human translation at least as high as a system output in 72%")
    assert "can tell human from machine" in chrf and "40% of cases (chance: 20%)" in chrf
    assert "no better than a coin" in bleu
    assert "below chance" in otem and "don't use it" in otem and "Mostly ties: 60%" in otem


def test_two_references_evaluate_twice_and_both_measures_share_the_reports(monkeypatch):
    from dataclasses import replace

    import mtdiag.analysis.likeness as likeness

    evalset = load_folder(SAMPLE / "wmt21.en-de")
    evalset = replace(evalset, refs=evalset.refs[["A", "C"]])
    calls = []
    real = likeness.evaluate
    monkeypatch.setattr(likeness, "evaluate", lambda subset, options: calls.append(list(subset.refs)) or real(subset, options))
    scores = likeness_scores(evalset, metrics=("bleu", "waft"))
    held, pairs = scores.held_out, scores.pairs
    assert sorted(calls) == [["A"], ["C"]]
    n_sys = len(evalset.systems)
    # x(A, {C}) is the same number in both: the held-out human's score and QUEEN's reference pair
    assert np.array_equal(held["bleu"][:, 0, -1], pairs["bleu"][:, n_sys + 0, 1])
    assert np.array_equal(held["waft"][:, 1, :n_sys], pairs["waft"][:, :n_sys, 0])
    a, c = evalset.refs["A"][4], evalset.refs["C"][4]
    assert held["bleu"][4, 0, -1] == pytest.approx(sacrebleu.sentence_bleu(a, [c]).score, abs=1e-9)

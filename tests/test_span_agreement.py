"""The agreement measures of ``mtdiag.spans.agreement`` on cases counted by hand: span precision, major recall and
character F1; the WMT23 QE task 2 character F1 with severity (against a character-by-character transcription of
the task's ``task2_evaluate.py`` rules on random spans); pairwise accuracy with its tie rules, within segments;
Pearson's r; and a report's metric against human scores."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from mtdiag.scoring.evaluate import Options, evaluate
from mtdiag.core.evalset import EvalSet
from mtdiag.spans.agreement import (character_axis, human_spans, is_major, pairwise_accuracy, pearson, rated_pairs,
                                    score_agreement, severity_f1, span_measures, within_segment_accuracy)

HYPS = pd.DataFrame({"A": ["the cat sat", "a dog"], "B": ["one two three", "xyz"]})


def _rows(*rows) -> pd.DataFrame:
    """Human error rows: (system, seg, start, end, severity[, weight])."""
    frame = pd.DataFrame([r if len(r) == 6 else (*r, 5.0 if r[4] == "major" else 1.0) for r in rows],
                         columns=["system", "seg", "start", "end", "severity", "weight"])
    return frame.assign(side="target")


def _spans(*rows) -> pd.DataFrame:
    return pd.DataFrame(list(rows), columns=["system", "seg", "start", "end", "severity"])


def test_the_axis_has_every_character_and_one_slot_after_each_output():
    axis = character_axis(HYPS, [("A", 0), ("B", 1), ("A", 0)])
    assert axis.pairs == (("A", 0), ("B", 1)) and axis.base.tolist() == [0, 12] and axis.size == 16
    assert axis.nonspace.tolist() == ([True] * 3 + [False] + [True] * 3 + [False] + [True] * 3 + [False]
                                      + [True] * 3 + [False])
    assert axis.index(["B", "A", "B"], [1, 0, 0]).tolist() == [1, 0, -1]


def test_major_is_major_or_critical_or_a_weight_of_five():
    assert is_major(["Major", "minor", "Critical", "minor"], [5, 1, 10, 25]).tolist() == [True, False, True, True]


def test_span_measures_counted_by_hand():
    axis = character_axis(HYPS, [("A", 0), ("A", 1), ("B", 0)])
    human = human_spans(axis, _rows(("A", 0, 4, 7, "major"), ("B", 0, 4, 7, "minor"), ("B", 0, 0, 0, "major")))
    predicted = _spans(("A", 0, 0, 7, "major"), ("A", 1, 2, 5, "minor"), ("B", 1, 0, 3, "major"))
    # B/1 is not rated: left out. 'the cat' hits 'cat'; 'dog' hits nothing. 3 of 9 characters predicted are true,
    # 3 of 6 true ones predicted; of 24 non-space characters 9 marked; the one major span with characters found
    assert span_measures(human, predicted) == pytest.approx(
        {"spans": 2, "precision": 0.5, "major_recall": 1.0, "char_p": 3 / 9, "char_r": 3 / 6, "char_f1": 0.4,
         "marked": 9 / 24})
    only_b = np.array([False, False, True])
    assert span_measures(human, predicted, only_b) == pytest.approx(
        {"spans": 0, "precision": 0.0, "major_recall": 0.0, "char_p": 0.0, "char_r": 0.0, "char_f1": 0.0,
         "marked": 0.0})


def test_severity_f1_counted_by_hand():
    # 'one two three' (B/0): humans mark 'two' minor and 'three' major, and an omission before 'one' (major)
    axis = character_axis(HYPS, [("B", 0)])
    human = human_spans(axis, _rows(("B", 0, 4, 7, "minor"), ("B", 0, 8, 13, "major"), ("B", 0, 0, 0, "major")))
    # 'two thr' predicted major: 'two' 3 × ½ (other severity), the space 0, 'thr' 3 × 1 — credit 4.5 over 7
    # characters predicted and over the 3 + 5 + 1 the humans marked
    found = severity_f1(human, _spans(("B", 0, 4, 11, "major")))
    assert found == pytest.approx({"sev_p": 4.5 / 7, "sev_r": 4.5 / 9,
                                   "sev_f1": 2 * (4.5 / 7) * (4.5 / 9) / (4.5 / 7 + 4.5 / 9)})
    # critical counts as major; a character humans marked both major and minor counts 1 with either severity
    both = human_spans(axis, _rows(("B", 0, 4, 7, "minor"), ("B", 0, 4, 7, "major")))
    assert severity_f1(both, _spans(("B", 0, 4, 7, "minor")))["sev_f1"] == pytest.approx(1.0)
    assert severity_f1(human, _spans(("B", 0, 8, 13, "critical")))["sev_p"] == pytest.approx(1.0)


def _official(texts, gold, predicted) -> float:
    """The character loop of WMT23 QE task 2's ``task2_evaluate.py`` (``score_new``), transcribed: per output
    ``len(mt) + 1`` slots of major and minor counts, a span ``s == e`` marking slot ``s``."""
    tp = total_gold = total_sys = 0.0
    for i, mt in enumerate(texts):
        marks = {}
        for side, spans in (("gold", gold), ("sys", predicted)):
            major, minor = [0] * (len(mt) + 1), [0] * (len(mt) + 1)
            for seg, start, end, severity in spans:
                if seg != i:
                    continue
                target = major if severity == "major" else minor
                end = min(end, len(mt))
                for c in ([start] if start == end else range(start, end)):
                    target[c] += 1
            marks[side] = (major, minor)
        for gm, sm, gn, sn in zip(marks["gold"][0], marks["sys"][0], marks["gold"][1], marks["sys"][1]):
            total_gold += gm != 0 or gn != 0
            total_sys += sm != 0 or sn != 0
            if gm > 0 and gn == 0:
                tp += 1 if sm > 0 else 0.5 if sn > 0 else 0
            elif gn > 0 and gm == 0:
                tp += 1 if sn > 0 else 0.5 if sm > 0 else 0
            elif gm > 0 and gn > 0:
                tp += 1 if sm > 0 or sn > 0 else 0
    p, r = tp / total_sys, tp / total_gold
    return 2 * p * r / (p + r) if p + r else 0.0


def test_severity_f1_is_the_shared_tasks_rule_on_random_spans():
    rng = np.random.default_rng(7)
    texts = ["".join(rng.choice(list("ab cd"), size=int(n))) for n in rng.integers(1, 30, size=40)]
    hyps = pd.DataFrame({"S": texts})
    axis = character_axis(hyps, [("S", g) for g in range(len(texts))])

    def draw(k, wide_only):
        seg = rng.integers(0, len(texts), size=k)
        start = np.array([rng.integers(0, len(texts[g]) + 1) for g in seg])
        end = np.array([min(s + rng.integers(0 if not wide_only else 1, 8), len(texts[g]) + 3)
                        for s, g in zip(start, seg)])
        if wide_only:
            keep = np.minimum(end, [len(texts[g]) for g in seg]) > start
            seg, start, end = seg[keep], start[keep], end[keep]
        return list(zip(seg.tolist(), start.tolist(), end.tolist(),
                        rng.choice(["major", "minor"], size=len(seg)).tolist()))

    for _ in range(5):
        gold, predicted = draw(60, wide_only=False), draw(50, wide_only=False)
        human = human_spans(axis, _rows(*[("S", g, s, e, sev) for g, s, e, sev in gold]))
        found = severity_f1(human, _spans(*[("S", g, s, e, sev) for g, s, e, sev in predicted]))
        assert found["sev_f1"] == pytest.approx(_official(texts, gold, predicted))


def test_pairwise_accuracy_leaves_human_ties_out_and_counts_a_metric_tie_half():
    # pairs (0,1): both up — agree; (0,2): humans tie — out; (1,2): metric ties — ½; NaN item left out
    assert pairwise_accuracy([1.0, 2.0, 2.0, np.nan], [0.0, 1.0, 0.0, 5.0]) == (pytest.approx(1.5 / 2), 2)
    assert pairwise_accuracy([3, 2, 1], [1, 2, 3]) == (0.0, 3)
    accuracy, pairs = pairwise_accuracy([1, 1], [2, 2])
    assert np.isnan(accuracy) and pairs == 0


def test_within_segment_accuracy_compares_systems_of_the_same_segment_only():
    segs = [0, 0, 0, 1, 1, 2]
    metric = [3.0, 2.0, 2.0, 1.0, 5.0, 9.0]
    human = [0.0, -1.0, -5.0, -2.0, -1.0, 0.0]
    # segment 0: (3,2) vs (0,-1) agree; (3,2) vs (0,-5) agree; (2,2) tie vs (-1,-5): ½ — segment 1: agree;
    # segment 2: one system, no pair. 3.5 of 4
    assert within_segment_accuracy(segs, metric, human) == (pytest.approx(3.5 / 4), 4)
    shuffled = [5, 3, 0, 4, 1, 2]
    assert within_segment_accuracy(np.take(segs, shuffled), np.take(metric, shuffled),
                                   np.take(human, shuffled)) == (pytest.approx(3.5 / 4), 4)


def test_pearson_is_scipys_and_nan_when_undefined():
    x, y = [1.0, 2.0, 4.0, 7.0, np.nan], [2.0, 1.0, 5.0, 8.0, 3.0]
    assert pearson(x, y) == pytest.approx(stats.pearsonr(x[:4], y[:4])[0])
    assert np.isnan(pearson([1, 1, 1], [1, 2, 3])) and np.isnan(pearson([1], [2]))


def test_score_agreement_of_a_reports_metric_counted_by_hand():
    refs = pd.DataFrame({"ref": ["a b c d", "e f g h", "i j k l"]})
    hyps = pd.DataFrame({"good": ["a b c d", "e f g h", "i j k x"], "fair": ["a b c x", "e f x x", "i j k l"],
                         "poor": ["x x x x", "e x x x", "i j x x"]})
    human = pd.DataFrame({"seg": [0, 1, 0, 1, 2, 0, 1, 2], "system": ["good", "good", "fair", "fair", "fair", "poor",
                                                                      "poor", "poor"],
                          "score": [0.0, 0.0, -1.0, -5.0, 0.0, -10.0, -5.0, -6.0]})
    evalset = EvalSet(segments=pd.DataFrame(index=range(3)), refs=refs, hyps=hyps, human=human)
    report = evaluate(evalset, Options(metrics=("ter",)))
    found = score_agreement(report, "ter")
    # TER over the rated segments: good 0 (segment 2 not rated), fair 3/12, poor 9/12 (lower is better): the
    # order of the human means (0, -2, -7) — 3 of 3 pairs
    assert (found["sys_accuracy"], found["sys_pairs"], found["n_sys"], found["n_seg"]) == (1.0, 3, 3, 8)
    # segment 0: TER 0, .25, 1 vs 0, -1, -10: 3 agree; segment 1: 0, .5, .75 vs 0, -5, -5: 2 agree, 1 human tie;
    # segment 2: fair 0, poor .5 vs 0, -6: agrees
    assert (found["seg_accuracy"], found["seg_pairs"]) == (1.0, 6)
    segment_ter = report.segments["ter"].reindex(pd.MultiIndex.from_arrays([human["system"], human["seg"]]))
    assert found["seg_pearson"] == pytest.approx(stats.pearsonr(-segment_ter.to_numpy(), human["score"])[0])


def test_rated_pairs_come_from_the_rated_outputs():
    evalset = EvalSet(segments=pd.DataFrame(index=range(2)), refs=pd.DataFrame({"ref": ["a", "b"]}), hyps=HYPS,
                      rated=pd.DataFrame({"seg": [1, 0, 0], "system": ["B", "B", "ref"], "rater": ["r", "r", "r"]}))
    assert rated_pairs(evalset) == [("B", 0), ("B", 1)]
    assert rated_pairs(evalset, ["A"]) == []

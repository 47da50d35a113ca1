"""Plainly broken outputs lead the queue (issue 23): empty, truncated, a character flood, a repetition loop the
source doesn't have — flagged by the critical checks of mtdiag.triage.checks and among the first 1 % of the queue, on
hand-made cases and on real WMT21 zh-en data (which has two empty Online-W lines)."""

from __future__ import annotations

import numpy as np
import pytest

from mtdiag.triage import checks, ranking
from mtdiag.scoring.evaluate import evaluate
from mtdiag.core.evalset import evalset_from_lists
from mtdiag.io import load_folder
from mtdiag.views.detail import segment_detail
from tests.conftest import DEV

DEV_ZH_EN = DEV / "wmt21" / "zh-en"

SRC = ["The government presented a new plan for the railway lines in the north on Tuesday .",
       "This photography studio is really great , the staff were friendly and the prices fair .",
       "Thank you . Thank you .",
       "🙊 🙊 🙊 so funny",
       "The committee will meet again next week to discuss the budget for the coming year ."]
REF = ["Die Regierung stellte am Dienstag einen neuen Plan für die Bahnstrecken im Norden vor .",
       "Dieses Fotostudio ist wirklich toll , das Personal war freundlich und die Preise fair .",
       "Danke . Danke .",
       "🙊 🙊 🙊 so lustig",
       "Der Ausschuss wird nächste Woche erneut zusammentreten , um den Haushalt für das kommende Jahr zu beraten ."]
FILLER_SRC = [f"This is ordinary sentence number {i} of the test set ." for i in range(20)]
FILLER_REF = [f"Das ist der gewöhnliche Satz Nummer {i} der Testmenge ." for i in range(20)]


@pytest.fixture(scope="module")
def report():
    broken = ["",  # empty
              "Dieses Fotostudio ist wirklich toll" + "!" * 300,  # a flood, half the source dropped
              "Vielen Dank . Vielen Dank .",  # the source repeats itself: not a fault
              "🙊 🙊 🙊 so lustig",  # copied from the source, which has the repetition
              "Haushalt"]  # a fraction of the source
    looping = [REF[0], REF[1], REF[2], REF[3],
               "Der Ausschuss wird nächste Woche den Haushalt den Haushalt den Haushalt den Haushalt beraten ."]
    hyps = {"broken": broken + FILLER_REF, "clean": REF + FILLER_REF, "loop": looping + FILLER_REF}
    return evaluate(evalset_from_lists({"A": REF + FILLER_REF}, hyps, src=SRC + FILLER_SRC))


def _flag(report, system, seg, name):
    return bool(checks.flag_frame(report).at[(system, seg), name])


def test_each_broken_output_fires_its_critical_check_and_the_clean_control_none(report):
    assert _flag(report, "broken", 0, "empty")
    assert _flag(report, "broken", 1, "flood")
    assert _flag(report, "broken", 4, "truncated")
    assert _flag(report, "loop", 4, "repetition")
    critical = checks.critical(checks.flag_frame(report))
    assert not critical.loc["clean"].any()
    assert not critical.loc[[("broken", 2), ("broken", 3)]].any()  # repetitions the source has


def test_a_repetition_the_source_has_is_not_the_outputs_fault(report):
    for seg in (2, 3):
        assert not _flag(report, "broken", seg, "repetition")
        assert not _flag(report, "broken", seg, "over_translation")


def test_broken_outputs_lead_the_queue(report):
    queue = ranking.worst_first(report, strict=True)
    top = dict(zip(zip(queue["system"].head(4), queue["seg"].head(4)), queue["critical"].head(4)))
    assert top == {("broken", 0): "empty", ("broken", 1): "flood", ("broken", 4): "truncated",
                   ("loop", 4): "repetition"}  # the column says why each row stands above higher problems
    assert (queue["critical"].iloc[4:] == "").all()


def test_the_flood_is_marked_in_the_output(report):
    evidence = checks.check_evidence(report, "broken", 1)
    findings = evidence.tables["checks"].frame
    assert "300 × '!'" in " ".join(findings["finding"])
    detail = segment_detail(report, "broken", 1)
    assert any(s.kind == "loop" for s in detail.hyp_spans)


def test_truncation_is_relative_to_the_sets_length_ratio():
    # zh -> en: an English output is several times as long as its Chinese source in characters
    src = ["我们明天去北京参加一个很重要的国际会议。", *[f"这是第{i}个普通的句子。" for i in range(12)]]
    ref = ["Tomorrow we are going to Beijing to attend a very important international conference .",
           *[f"This is ordinary sentence number {i} ." for i in range(12)]]
    hyps = {"short": ["Beijing .", *ref[1:]], "half": ["Tomorrow we go to a conference .", *ref[1:]],
            "full": list(ref)}
    report = evaluate(evalset_from_lists({"A": ref}, hyps, src=src))
    assert _flag(report, "short", 0, "truncated")
    assert not _flag(report, "half", 0, "truncated")  # half of it is under-translation, not a broken output
    assert not _flag(report, "full", 0, "truncated")
    assert not checks.flag_frame(report)["truncated"].loc["full"].any()


def test_on_real_data_every_broken_output_is_in_the_first_percent():
    evalset = load_folder(DEV_ZH_EN)
    hyps = evalset.hyps.copy()
    long_src = evalset.src.str.len().sort_values(ascending=False).index[:3].tolist()
    hyps.loc[long_src[0], "Online-B"] = "tonic"  # one word for a long source
    hyps.loc[long_src[1], "Online-G"] = "This photography studio is really great" + "!" * 400
    hyps.loc[long_src[2], "SMU"] = "?" * 50
    report = evaluate(evalset.with_hyps(hyps))
    empty = [(s, g) for s in evalset.systems for g in np.flatnonzero(hyps[s].str.strip().eq("").to_numpy())]
    assert ("Online-W", 514) in empty and ("Online-W", 1487) in empty
    planted = empty + [("Online-B", long_src[0]), ("Online-G", long_src[1]), ("SMU", long_src[2])]
    queue = ranking.worst_first(report)
    position = {(s, g): i for i, (s, g) in enumerate(zip(queue["system"], queue["seg"]))}
    first_percent = len(queue) // 100
    for pair in planted:
        assert position[pair] < first_percent, (pair, position[pair], first_percent)
        assert queue.iloc[position[pair]]["flags"], pair

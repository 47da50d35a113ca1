"""The measures of ``benchmarks/spans_vs_human.py`` on a hand-made MQM set (no dev data): span precision, major
recall, character F1 and characters marked, of the baseline "words not in the reference" and of the predicted
spans, counted by hand; and the one-line message when the data is missing."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from mtdiag.scoring.evaluate import evaluate
from mtdiag.io import load_folder
from mtdiag.spans.predict import phrase_spans

REPO = Path(__file__).resolve().parents[1]
REF = ["the cat sat on the mat", "we like green tea", "he reads a book", "it is raining today"]
SYSTEMS = {"S1": REF,
           "S2": ["the cat sat on the mat", "we love green tea", "he reads a book", "it rains today"],
           "S3": ["the dog sat on the mat", "we like green tea", "she reads a novel", "it is raining today"]}
ERRORS = {("S2", 2): ("we <v>love</v> green tea", "Style/Awkward", "Minor"),
          ("S3", 1): ("the <v>dog</v> sat on the mat", "Accuracy/Mistranslation", "Major"),
          ("S3", 3): ("<v>she</v> reads a novel", "Accuracy/Mistranslation", "Major")}
NONSPACE = 59 + 55 + 61  # non-space characters of the twelve outputs


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("spans_vs_human", REPO / "benchmarks" / "spans_vs_human.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    yield module
    sys.modules.pop(spec.name, None)


@pytest.fixture()
def folder(tmp_path):
    (tmp_path / "src.txt").write_text("\n".join(["猫坐在垫子上", "我们喜欢绿茶", "他在读书", "今天在下雨"]) + "\n",
                                      encoding="utf-8")
    (tmp_path / "ref.A.txt").write_text("\n".join(REF) + "\n", encoding="utf-8")
    for name, lines in SYSTEMS.items():
        (tmp_path / f"{name}.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (tmp_path / "segments.tsv").write_text("seg_id\tdoc\n1\ttalk.1\n2\ttalk.1\n3\ttalk.2\n4\ttalk.2\n",
                                           encoding="utf-8")
    rows = ["system\tdoc\tdoc_id\tseg_id\trater\tsource\ttarget\tcategory\tseverity"]
    for system, lines in SYSTEMS.items():
        for seg, line in enumerate(lines, start=1):
            target, category, severity = ERRORS.get((system, seg), (line, "No-error", "No-error"))
            rows.append(f"{system}\td\t1\t{seg}\trater1\ts\t{target}\t{category}\t{severity}")
    (tmp_path / "mqm.errors.tsv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    return tmp_path


def test_the_baseline_counted_by_hand(bench, folder):
    evalset = load_folder(folder)
    truth = bench.truth_of(evalset)
    assert len(truth.pairs) == 12 and int(truth.axis.nonspace.sum()) == NONSPACE and int(truth.human.is_major.sum()) == 2
    spans = bench.on_axis(truth, bench.baseline_spans(evaluate(evalset)))
    # love (hit), rains, dog (hit), she (hit), novel: 20 characters marked, 10 of them in the 10 human ones
    assert spans["text"].tolist() == ["love", "rains", "dog", "she", "novel"]
    figures = bench.figures(truth, spans)
    assert figures == pytest.approx({"spans": 5, "precision": 0.6, "major_recall": 1.0, "char_p": 0.5,
                                     "char_r": 1.0, "char_f1": 2 / 3, "marked": 20 / NONSPACE})
    assert bench.figures(truth, spans, {"talk.1"}) == pytest.approx(
        {"spans": 2, "precision": 1.0, "major_recall": 1.0, "char_p": 1.0, "char_r": 1.0, "char_f1": 1.0,
         "marked": 7 / (17 * 3 + 14 * 3)})


def test_the_predicted_spans_counted_by_hand(bench, folder):
    evalset = load_folder(folder)
    truth = bench.truth_of(evalset)
    spans = bench.on_axis(truth, phrase_spans(evaluate(evalset)))
    # 'she' and 'novel' are two tokens apart: one phrase
    assert spans["text"].tolist() == ["love", "rains", "dog", "she reads a novel"]
    assert spans["hit"].tolist() == [True, False, True, True]
    figures = bench.figures(truth, spans)
    assert {k: figures[k] for k in bench.SPAN_MEASURES} == pytest.approx(
        {"spans": 4, "precision": 0.75, "major_recall": 1.0, "char_p": 10 / 26, "char_r": 1.0,
         "char_f1": 2 * (10 / 26) / (10 / 26 + 1), "marked": 26 / NONSPACE})


def test_the_whole_benchmark_runs_on_a_small_set(bench, folder, capsys):
    assert bench.main([str(folder)]) == 0
    out = capsys.readouterr().out
    assert "| **predicted (mtdiag.spans)** | 4 | 0.750 | 1.000 |" in out
    assert "| baseline: words not in the reference(s) | 5 | 0.600 | 1.000 |" in out
    assert ": reference A | 0.750 (0.600) | 1.25× | 1.000 |" in out
    # severity: love, rains, dog (one word: minor), she reads a novel (major); humans: love minor, dog and she
    # major. Credit love 4 + dog 3 × ½ + she 3 = 8.5 over 29 characters predicted and 10 marked: F1 0.436; the
    # baseline (all major) love 4 × ½ + dog 3 + she 3 = 8 over 20 and 10: F1 0.533
    assert "| 4 | 0.0% | 25.0% | 75.0% | 0.436 | 0.533 | 0.82× |" in out
    p, r = 8.5 / 29, 8.5 / 10
    assert f"{2 * p * r / (p + r):.3f}" == "0.436"
    # what bounds it: every span major, love 4 × ½ + dog 3 + she 3 = 8 over 29 and 10: F1 0.410; the oracle
    # severity (dog major: the human error it overlaps) 10 over 29 and 10: F1 20 / 39 = 0.513
    assert ": reference A | 0.436 | 0.410 | 0.513 |" in out
    # whose severity: one rater, 3 errors (2 major). Each guessed from the other two: love from two majors (major,
    # wrong), dog and she from a tie (minor, wrong); our rule on the three our spans overlap: love minor, dog
    # minor (wrong), she major
    assert "| 3 | 66.7% | 0.667 | 0.000 | 3 | 0.667 | 0.667 |" in out
    # predicted MQM and chrF against the human MQM of the same errors (minor 1, major 5)
    assert "| predicted MQM (held out) |" in out and "| chrF |" in out and "## Must show (issue 34)" in out


def test_the_omission_weight_is_the_least_squares_ratio_held_out_by_talk(bench):
    import numpy as np
    import pandas as pd

    penalty = np.array([1.0, 0.0, 2.0, 3.0, 0.5, 1.5])
    omitted = np.array([0.0, 2.0, 1.0, 4.0, 3.0, 1.0])
    frame = pd.DataFrame({"penalty": penalty, "omitted": omitted, "doc": ["a", "a", "b", "b", "c", "c"],
                          "human": -(2.0 * penalty + 0.5 * omitted)},
                         index=pd.MultiIndex.from_product([["S"], range(6)], names=["system", "seg"]))
    # human = −(2 · penalty + 0.5 · omitted) exactly: a missing word weighs a quarter of a unit of span penalty
    assert bench.fit_omission_weight([frame]) == pytest.approx(0.25)
    unrated = frame.assign(human=np.where(frame["doc"] == "c", np.nan, frame["human"]))
    assert bench.fit_omission_weight([unrated]) == pytest.approx(0.25)  # unrated outputs are left out
    scores = bench.held_out_mqm({"set": frame}, "set")
    assert scores.tolist() == pytest.approx((-(penalty + 0.25 * omitted)).tolist())


def test_missing_data_is_one_line_saying_what_and_where(bench, tmp_path, capsys, monkeypatch):
    monkeypatch.delenv(bench.devdata.ENV_VAR, raising=False)
    assert bench.main([str(tmp_path / "nowhere")]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no test-set folder at" in err and "ted/zh-en" in err and "ted/en-de" in err
    (tmp_path / "ref.A.txt").write_text("a\n", encoding="utf-8")
    (tmp_path / "S1.txt").write_text("a\n", encoding="utf-8")
    assert bench.main([str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "has no human error spans (mqm.errors.tsv or esa.jsonl" in err

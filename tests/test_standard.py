"""BLEU and chrF equal sacrebleu's own results, corpus and every segment, on WMT21 en-de (12 systems, 3 refs)."""

from __future__ import annotations

import numpy as np
import pytest
import sacrebleu

from mtdiag.scoring.evaluate import Options, evaluate
from mtdiag.core.evalset import evalset_from_lists
from tests.conftest import en_de_texts



@pytest.fixture(scope="module")
def en_de_report():
    refs, hyps = en_de_texts()
    return evaluate(evalset_from_lists(refs, hyps), Options(metrics=("bleu", "chrf"))), refs, hyps


def test_bleu_and_chrf_equal_sacrebleu_on_every_system_and_segment(en_de_report):
    report, refs, hyps = en_de_report
    ref_columns = list(refs.values())
    bleu, chrf = sacrebleu.BLEU(), sacrebleu.CHRF()
    sentence_bleu = sacrebleu.BLEU(effective_order=True)
    for system, lines in hyps.items():
        assert report.corpus.loc[system, "bleu"] == pytest.approx(bleu.corpus_score(lines, ref_columns).score, abs=1e-9)
        assert report.corpus.loc[system, "chrf"] == pytest.approx(chrf.corpus_score(lines, ref_columns).score, abs=1e-9)
        seg_refs = list(zip(*ref_columns))
        expected_bleu = [sentence_bleu.sentence_score(h, list(r)).score for h, r in zip(lines, seg_refs)]
        expected_chrf = [chrf.sentence_score(h, list(r)).score for h, r in zip(lines, seg_refs)]
        np.testing.assert_allclose(report.segments.loc[system, "bleu"], expected_bleu, atol=1e-9, rtol=0)
        np.testing.assert_allclose(report.segments.loc[system, "chrf"], expected_chrf, atol=1e-9, rtol=0)


def test_bleu_statistics_are_sacrebleus(en_de_report):
    report, refs, hyps = en_de_report
    system = "Online-W"
    expected = np.array(sacrebleu.BLEU()._extract_corpus_statistics(hyps[system], list(refs.values())))
    np.testing.assert_array_equal(report.result("bleu", system).stats, expected)


@pytest.mark.parametrize("hyp,ref", [("", "a b"), ("a b", ""), ("", ""), ("x", "x"), ("a", "b")])
def test_bleu_chrf_edge_cases_equal_sacrebleu(hyp, ref):
    report = evaluate(evalset_from_lists({"ref": [ref]}, {"sys": [hyp]}), Options(metrics=("bleu", "chrf")))
    assert report.corpus.loc["sys", "bleu"] == pytest.approx(sacrebleu.corpus_bleu([hyp], [[ref]]).score, abs=1e-9)
    assert report.corpus.loc["sys", "chrf"] == pytest.approx(sacrebleu.corpus_chrf([hyp], [[ref]]).score, abs=1e-9)
    assert report.segments.loc[("sys", 0), "bleu"] == pytest.approx(sacrebleu.sentence_bleu(hyp, [ref]).score, abs=1e-9)
    assert report.segments.loc[("sys", 0), "chrf"] == pytest.approx(sacrebleu.sentence_chrf(hyp, [ref]).score, abs=1e-9)


def test_a_perfect_system_scores_exactly_100():
    """sacrebleu prints 100.00000000000004 (exp of a log); BLEU is at most 100 (issue: hardening)."""
    report = evaluate(evalset_from_lists({"r": ["the cat sat on the mat"]}, {"s": ["the cat sat on the mat"]}),
                      Options(metrics=("bleu", "chrf")))
    assert report.corpus.loc["s", "bleu"] == 100.0 and report.corpus.loc["s", "chrf"] == 100.0
    assert report.segments.loc[("s", 0), "bleu"] == 100.0

"""The two metrics added through the registry alone: chrF++ (chrF's ``word_order`` option) equal to sacrebleu's
``CHRF(word_order=2)``, and ``length_ratio`` hand-checked and equal to sacrebleu BLEU's ``sys_len / ref_len``."""

from __future__ import annotations

import numpy as np
import pytest
import sacrebleu

from mtdiag.scoring.evaluate import Options, evaluate
from mtdiag.core.evalset import evalset_from_lists
from tests.conftest import en_de_texts


@pytest.fixture(scope="module")
def en_de():
    refs, hyps = en_de_texts()
    return evalset_from_lists(refs, hyps), refs, hyps


def test_chrf_plus_plus_equals_sacrebleu_on_every_system_and_segment(en_de):
    evalset, refs, hyps = en_de
    report = evaluate(evalset, Options(metrics=("chrf",), metric_options={"chrf": {"word_order": 2}}))
    ref_columns = list(refs.values())
    seg_refs = [list(r) for r in zip(*ref_columns)]
    chrf_pp = sacrebleu.CHRF(word_order=2)
    for system, lines in hyps.items():
        assert report.corpus.loc[system, "chrf"] == pytest.approx(chrf_pp.corpus_score(lines, ref_columns).score,
                                                                   abs=1e-9)
        expected = [chrf_pp.sentence_score(h, r).score for h, r in zip(lines, seg_refs)]
        np.testing.assert_allclose(report.segments.loc[system, "chrf"], expected, atol=1e-9, rtol=0)
    assert report.result("chrf", "Online-W").signature.startswith("chrF2++|nrefs:3|case:mixed|eff:yes|nc:6|nw:2|")


@pytest.mark.parametrize("word_order", [1, 3])
def test_other_word_orders_equal_sacrebleu(word_order):
    hyps = ["The cat sat (on) the mat.", "Hello, world!", "", "a b c d e f"]
    refs = ["The cat sat on the mat .", "Hello world !", "x", "a b c x e f"]
    report = evaluate(evalset_from_lists({"r": refs}, {"s": hyps}),
                      Options(metrics=("chrf",), metric_options={"chrf": {"word_order": word_order}}))
    metric = sacrebleu.CHRF(word_order=word_order)
    assert report.corpus.loc["s", "chrf"] == pytest.approx(metric.corpus_score(hyps, [refs]).score, abs=1e-9)
    expected = [metric.sentence_score(h, [r]).score for h, r in zip(hyps, refs)]
    np.testing.assert_allclose(report.segments.loc["s", "chrf"], expected, atol=1e-9, rtol=0)


def test_length_ratio_by_hand():
    # segment 0: 3 tokens vs references of 2 and 4 tokens -> closest is a tie (1 away): the shorter, 2 -> 1.5
    # segment 1: 2 tokens vs 5 and 1 -> closest 1 -> 2.0; corpus (3 + 2) / (2 + 1) = 5/3
    refs = {"A": ["a b", "a b c d e"], "B": ["a b c d", "x"]}
    report = evaluate(evalset_from_lists(refs, {"s": ["a b c", "a b"]}), Options(metrics=("length_ratio",)))
    np.testing.assert_allclose(report.segments.loc["s", "length_ratio"], [1.5, 2.0])
    assert report.corpus.loc["s", "length_ratio"] == pytest.approx(5 / 3)


def test_length_ratio_of_empty_references_stays_defined():
    report = evaluate(evalset_from_lists({"r": ["", "", "a"]}, {"s": ["a b", "", ""]}), Options(metrics=("length_ratio",)))
    np.testing.assert_allclose(report.segments.loc["s", "length_ratio"], [2.0, 1.0, 0.0])


def test_length_ratio_equals_sacrebleu_sys_len_over_ref_len(en_de):
    evalset, refs, hyps = en_de
    report = evaluate(evalset, Options(metrics=("length_ratio",)))
    for system, lines in hyps.items():
        bleu = sacrebleu.BLEU().corpus_score(lines, list(refs.values()))
        assert report.corpus.loc[system, "length_ratio"] == pytest.approx(bleu.sys_len / bleu.ref_len, abs=1e-12)

"""Evidence without noise (issue 12): typographic normalisation for the diagnostic metrics, and frequency lists
that hide punctuation and stop words."""

from __future__ import annotations

import pandas as pd
import pytest

from mtdiag.scoring.evaluate import Options, evaluate
from mtdiag.core.evalset import evalset_from_lists
from mtdiag.io import load_folder
from mtdiag.metrics.ht_mt_ngrams import ngram_tables
from mtdiag.core.tokenize import TokenizeOptions, normalise_typography, tokenize_text
from mtdiag.views import ngrams, over_under, waft_neva
from mtdiag.views.detail import segment_detail
from tests.conftest import DEV, SAMPLE


@pytest.mark.parametrize("written,plain", [
    ("don’t ‘it’ ‚low‛ 5′", "don't 'it' 'low' 5'"),  # apostrophes, single quotes, prime
    ("“Haus” „Haus“ «Haus» ‹Haus›", '"Haus" "Haus" "Haus" \'Haus\''),  # double quotes, guillemets
    ("a–b a—b a‒b a―b −5 non‑breaking", "a-b a-b a-b a-b -5 non-breaking"),  # dashes, minus, hyphens
    ("wait…", "wait..."),
    ("ＡＢＣ１２３！（ｘ）％", "ABC123!(x)%"),  # full-width ASCII forms
    ("a\u00a0b\u202fc\u2009d\u3000e", "a b c d e"),  # non-breaking, narrow, thin, ideographic spaces
    ("ﬁ ² ｶ 。、", "ﬁ ² ｶ 。、"),  # not NFKC: ligatures, superscripts, half-width kana, CJK punctuation kept
])
def test_normalise_typography(written, plain):
    assert normalise_typography(written) == plain


def test_tokens_normalised_only_when_asked():
    assert tokenize_text("I don’t know", TokenizeOptions()) == ("i", "don't", "know")
    assert tokenize_text("I don’t know", TokenizeOptions(typography=False)) == ("i", "don’t", "know")


@pytest.fixture(scope="module")
def pair():
    refs = {"A": ["I don't know what „this“ is – really .", "It is 10 % ."]}
    hyps = {"sys": ["I don’t know what \"this\" is - really .", "It is １０ ％ ."]}
    evalset = evalset_from_lists(refs, hyps)
    return evaluate(evalset), evaluate(evalset, Options(typography=False))


def test_diagnostic_metrics_see_no_typographic_difference(pair):
    normalised, kept = pair
    assert normalised.segments.loc[("sys", 0), "waft"] == pytest.approx(1.0)
    assert normalised.segments.loc[("sys", 1), "waft"] == pytest.approx(1.0)
    assert normalised.segments.loc[("sys", 0), "utem"] == pytest.approx(0.0)
    assert kept.segments.loc[("sys", 0), "waft"] < 1.0  # as written, don’t ≠ don't and – ≠ -
    assert kept.segments.loc[("sys", 0), "utem"] > 0.0


def test_bleu_chrf_ter_stay_as_written(pair):
    normalised, kept = pair
    for metric in ("bleu", "chrf", "ter", "length_ratio"):
        pd.testing.assert_series_equal(normalised.segments[metric], kept.segments[metric])
        assert normalised.corpus[metric].equals(kept.corpus[metric])
        assert str(normalised.result(metric, "sys").sig) == str(kept.result(metric, "sys").sig)
        assert "typo" not in str(normalised.result(metric, "sys").sig)


def test_signatures_record_the_typography(pair):
    normalised, kept = pair
    for metric in ("otem", "utem", "waft", "neva"):
        assert "|typo:norm|" in str(normalised.result(metric, "sys").sig)
        assert "|typo:keep|" in str(kept.result(metric, "sys").sig)


def test_evidence_is_shown_as_written(pair):
    normalised, _ = pair
    detail = segment_detail(normalised, "sys", 0)
    assert "don’t" in detail.hyp.shown and "don't" in detail.hyp.matched  # shown as written, matched normalised
    assert detail.hyp.shown[0] == "I"  # and in its original case


def test_ht_only_unigrams_on_dev_zh_en_have_no_apostrophe_variants():
    # issue 12: 5–7 of the top 10 HT-only unigrams of most zh-en systems were curly/straight variants
    evalset = load_folder(DEV / "wmt21" / "zh-en")
    curly = set("’‘“”")
    variants = {}
    for typography in (False, True):
        tables = ngram_tables(evalset, orders=(1,), systems=["SMU"], options=TokenizeOptions("13a", True, typography))
        top = tables.table("SMU", 1).ht_only["ngram"].head(10)
        variants[typography] = sum(any(c in g for c in curly) for g in top)
    assert variants == {False: 7, True: 0}


# ------------------------------------------------------------------------------------------------ list filters


def test_function_ngrams_are_punctuation_symbols_and_stop_words():
    grams = pd.Series([",", "die", "of the", "--", "&", "<PUNC> <UNK>", "of the virus", "Virus", "€ 5", "„"])
    assert ngrams.function_ngrams(grams, "en").tolist() == [
        True, False, True, True, True, True, False, False, False, True]
    assert ngrams.function_ngrams(grams, "de")[1]  # "die" is a German stop word
    assert not ngrams.function_ngrams(pd.Series(["the"]), None)[0]  # unknown language: punctuation only


def test_lists_hide_function_words_on_request():
    report = evaluate(load_folder(SAMPLE / "wmt21.en-de"))
    system = report.evalset.systems[0]
    every = waft_neva.edit_tables(report, system, top=None)
    content = waft_neva.edit_tables(report, system, top=None, hide_function_words=True)
    subs, kept = every["substitute"], content["substitute"]
    assert 0 < len(kept) < len(subs)
    both_function = ngrams.function_ngrams(subs["hyp"], "de") & ngrams.function_ngrams(subs["ref"], "de")
    assert len(kept) == int((~both_function).sum())
    grams = over_under.evidence_ngrams(report, "otem", system, hide_function_words=True)
    assert not ngrams.function_ngrams(grams["ngram"], "de").any()
    rows = ngrams.ngram_rows(report, system, 1, "ht_only", hide_function_words=True)
    assert "," not in set(rows["ngram"]) and "die" not in set(rows["ngram"])
    assert len(rows) < len(ngrams.ngram_rows(report, system, 1, "ht_only"))

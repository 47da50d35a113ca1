"""Tokenise the text as written, then fold case (``shared/spec/METRICS.md`` §0/§4)."""

from __future__ import annotations

from mtdiag.core.evalset import evalset_from_lists
from mtdiag.metrics.ht_mt_ngrams import ngram_tables
from mtdiag.core.tokenize import TokenizeOptions, sacrebleu_tokenizer, tokenize_text

JA = "Ｇ７の首脳はVATについて議論した。"


def test_mecab_sees_the_cased_text_and_the_tokens_are_folded_after():
    # texts as written (typography normalisation would turn the full-width "Ｇ７" into "G7", tested elsewhere)
    cased = tokenize_text(JA, TokenizeOptions("ja-mecab", lowercase=False, typography=False))
    assert cased[:1] == ("Ｇ７",)
    lowered = tokenize_text(JA, TokenizeOptions("ja-mecab", lowercase=True, typography=False))
    assert lowered == tuple(t.lower() for t in cased)
    assert lowered == ("ｇ７", "の", "首脳", "は", "vat", "について", "議論", "し", "た", "。")
    # folding first (sacrebleu's order) changes MeCab's segmentation: "ｇ" "７"
    assert sacrebleu_tokenizer("ja-mecab")(JA.lower()).split()[:2] == ["ｇ", "７"]


def test_ht_mt_ngrams_on_japanese_keep_the_cased_segmentation():
    evalset = evalset_from_lists({"A": [JA]}, {"mt": ["Ｇ７の首脳は税について議論した。"]})
    tables = ngram_tables(evalset, orders=(1,), min_count=1, options=TokenizeOptions("ja-mecab", lowercase=True, typography=False))
    unigrams = tables.table("mt", 1)
    rows = unigrams.ht_only[["ngram", "ht_count", "mt_count"]].itertuples(index=False)
    assert [(g, int(h), int(m)) for g, h, m in rows] == [("vat", 1, 0)]
    assert "ｇ" not in set(unigrams.ht_only.ngram) | set(unigrams.mt_only.ngram)


def test_lower_casing_leaves_bleu_chrf_and_ter_alone():
    """The sidebar says so beside its "Lower-case" box (issue 23): sacrebleu's defaults, whatever the option."""
    from mtdiag.scoring.evaluate import Options, evaluate

    refs = {"A": ["The Cat sat on the Mat .", "Berlin is in Germany ."]}
    hyps = {"mt": ["the cat sat on the mat .", "BERLIN IS IN GERMANY ."]}
    evalset = evalset_from_lists(refs, hyps)
    folded, cased = evaluate(evalset, Options(lowercase=True)), evaluate(evalset, Options(lowercase=False))
    for metric in ("bleu", "chrf", "ter"):
        assert folded.corpus[metric].equals(cased.corpus[metric]), metric
        assert folded.segments[metric].equals(cased.segments[metric]), metric
    assert folded.corpus.at["mt", "waft"] == 1.0 and cased.corpus.at["mt", "waft"] < 1.0  # the tokens' metrics fold
    assert folded.corpus.at["mt", "bleu"] < 100.0  # BLEU is case-sensitive (sacrebleu's default) ...
    assert folded.corpus.at["mt", "ter"] == 0.0  # ... and TER is not (its own case_sensitive option, off)

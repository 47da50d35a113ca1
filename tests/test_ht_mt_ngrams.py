"""HT-only / MT-only / skewed n-gram tables (Aikawa & Rarrick §2.2, §3; shared/spec/METRICS.md §4).

Expected tables below are counted by hand from the toy corpora; the larger checks compare the vectorised counter
with a plain per-sentence ``Counter`` written here from the spec's wording.
"""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest

from mtdiag.core.evalset import evalset_from_lists
from mtdiag.io import load_folder
from mtdiag.metrics.ht_mt_ngrams import frequent_words, ngram_tables
from mtdiag.core.tokenize import is_punctuation
from mtdiag.core.tokenize import TokenizeOptions, tokenize_text

from tests.conftest import DEV, SAMPLE, read_lines

HT = ["the cat sat .", "the dog ran !", "a cat"]
MT = ["the cat sat", "a dog ran .", "the the"]
WS = TokenizeOptions("none", lowercase=False)


def rows(frame):
    return [(g, int(h), int(m)) for g, h, m in frame[["ngram", "ht_count", "mt_count"]].itertuples(index=False)]


@pytest.fixture(scope="module")
def toy():
    return ngram_tables(evalset_from_lists({"ht": HT}, {"mt": MT}), min_count=1, options=WS)


def test_unigram_tables_by_hand(toy):
    table = toy.table("mt", 1)
    assert rows(table.ht_only) == [("!", 1, 0)]
    assert rows(table.mt_only) == []


def test_bigram_tables_pad_each_sentence_with_one_start_token(toy):
    table = toy.table("mt", 2)
    # HT bigrams: <s> the (x2), the cat, cat sat, sat ., the dog, dog ran, ran !, <s> a, a cat
    # MT bigrams: <s> the (x2), the cat, cat sat, <s> a, a dog, dog ran, ran ., the the
    assert rows(table.ht_only) == [("a cat", 1, 0), ("ran !", 1, 0), ("sat .", 1, 0), ("the dog", 1, 0)]
    assert rows(table.mt_only) == [("a dog", 0, 1), ("ran .", 0, 1), ("the the", 0, 1)]
    skewed = table.skewed.set_index("ngram")
    assert (skewed.loc["<s> the", "ht_count"], skewed.loc["<s> the", "mt_count"]) == (2, 2)
    assert skewed.loc["<s> the", "segments"].tolist() == [0, 1, 2]  # HT 0, 1 and MT 0, 2


def test_segments_point_at_the_sentences_that_contain_the_ngram(toy):
    ht_only = toy.table("mt", 2).ht_only.set_index("ngram")["segments"]
    mt_only = toy.table("mt", 2).mt_only.set_index("ngram")["segments"]
    assert ht_only["a cat"].tolist() == [2] and ht_only["sat ."].tolist() == [0]
    assert mt_only["the the"].tolist() == [2] and mt_only["a dog"].tolist() == [1]


def test_min_count_default_two_keeps_only_repeated_ngrams():
    tables = ngram_tables(evalset_from_lists({"ht": HT + ["a cat"]}, {"mt": MT + ["the the"]}), options=WS)
    assert rows(tables.table("mt", 2).ht_only) == [("a cat", 2, 0)]
    assert rows(tables.table("mt", 2).mt_only) == [("the the", 0, 2)]


def test_skewed_log_ratio_is_add_one_smoothed_relative_frequency(toy):
    skewed = toy.table("mt", 1).skewed.set_index("ngram")
    # "the": HT 2 of N_ht = 10 unigrams, MT 3 of N_mt = 9; V = 8 distinct unigrams in the two corpora
    expected = math.log(3 / (10 + 8)) - math.log(4 / (9 + 8))
    assert skewed.loc["the", "log_ratio"] == pytest.approx(expected, abs=1e-12)
    ranked = toy.table("mt", 1).skewed
    assert ranked["log_ratio"].abs().is_monotonic_decreasing
    assert ranked.iloc[0]["ngram"] == "!"  # HT 1, MT 0: the most skewed unigram


def test_rows_sort_by_count_then_code_point_order():
    ht = ["B a é ä", "B a", "B"]
    tables = ngram_tables(evalset_from_lists({"ht": ht}, {"mt": ["x"] * 3}), orders=1, min_count=1, options=WS)
    assert tables.table("mt", 1).ht_only["ngram"].tolist() == ["B", "a", "ä", "é"]


def test_punctuation_is_every_character_in_unicode_category_p():
    assert all(map(is_punctuation, [".", ",", "…", "）－", "«", "!?", "—"]))
    assert not any(map(is_punctuation, ["$", "+", "a.", "e.g.", "1", "<"]))  # symbols (S*) are words


def test_transform_keeps_the_100_most_frequent_ht_words_ties_by_word():
    words = [f"w{i:03d}" for i in range(105)]
    ht = [" ".join(words[:50]), " ".join(words), ", , , , , , , , , ,"]  # w000-w049 twice, the rest once
    mt = ["w101 w000 ,", "$ w104 w099"]
    evalset = evalset_from_lists({"ht": ht}, {"mt": mt + [""]})
    tables = ngram_tables(evalset, orders=3, min_count=1, options=WS)
    # the comma (10 times) is punctuation, not a word; among the count-1 words w050-w099 win the tie by name
    assert tables.frequent_words == tuple(words[:100])
    mt_only = rows(tables.table("mt", 3).mt_only)
    assert ("<s> <s> <UNK>", 0, 2) in mt_only  # w101 and "$" (a symbol, not punctuation) are <UNK>
    assert ("<s> <UNK> w000", 0, 1) in mt_only and ("<UNK> w000 <PUNC>", 0, 1) in mt_only
    assert ("<UNK> <UNK> w099", 0, 1) in mt_only  # w104 is not among the 100
    assert ("<PUNC> <PUNC> <PUNC>", 8, 0) in rows(tables.table("mt", 3).ht_only)


def test_padding_uses_n_minus_one_start_tokens_and_never_pads_alone():
    evalset = evalset_from_lists({"ht": ["x", "", "x y"]}, {"mt": ["z", "", ""]})
    tables = ngram_tables(evalset, min_count=1, options=WS)
    assert rows(tables.table("mt", 4).ht_only) == [("<s> <s> <s> x", 2, 0), ("<s> <s> x y", 1, 0)]
    assert rows(tables.table("mt", 2).ht_only) == [("<s> x", 2, 0), ("x y", 1, 0)]
    assert rows(tables.table("mt", 2).mt_only) == [("<s> z", 0, 1)]
    assert rows(tables.table("mt", 1).mt_only) == [("z", 0, 1)]  # order 1: no padding


def test_japanese_is_segmented_with_ja_mecab():
    line = read_lines(SAMPLE / "wmt21.en-ja" / "ref.A.txt")[0]
    assert line == "インドの首相、係争地の寺院で定礎式に出席"
    tokens = tokenize_text(line, TokenizeOptions("ja-mecab"))
    assert tokens == ("インド", "の", "首相", "、", "係争", "地", "の", "寺院", "で", "定礎", "式", "に", "出席")
    evalset = evalset_from_lists({"A": [line]}, {"mt": [line.replace("首相", "大統領")]})
    tables = ngram_tables(evalset, orders=(1, 2, 3), min_count=1, options=TokenizeOptions("ja-mecab"))
    assert rows(tables.table("mt", 1).ht_only) == [("首相", 1, 0)]
    assert rows(tables.table("mt", 1).mt_only) == [("大統領", 0, 1)]
    assert rows(tables.table("mt", 2).ht_only) == [("の 首相", 1, 0), ("首相 、", 1, 0)]
    assert "、" not in tables.frequent_words and "の" in tables.frequent_words
    assert ("首相 <PUNC> 係争", 1, 0) in rows(tables.table("mt", 3).ht_only)


def test_a_folder_named_en_ja_defaults_to_ja_mecab():
    tables = ngram_tables(load_folder(SAMPLE / "wmt21.en-ja"), orders=1)
    assert tables.options == TokenizeOptions("ja-mecab", lowercase=True)


def spec_counts(texts, order, kept, options):
    """The spec read literally, one sentence at a time: transform (orders 3-4), pad, count."""
    counts, segments = Counter(), {}
    for seg, text in enumerate(texts):
        tokens = list(tokenize_text(text, options))
        if order >= 3:
            tokens = ["<PUNC>" if is_punctuation(t) else t if t in kept else "<UNK>" for t in tokens]
        tokens = ["<s>"] * (order - 1) + tokens
        for i in range(len(tokens) - order + 1):
            gram = " ".join(tokens[i : i + order])
            if set(tokens[i : i + order]) != {"<s>"}:
                counts[gram] += 1
                segments.setdefault(gram, set()).add(seg)
    return counts, segments


@pytest.mark.parametrize("order", [1, 2, 3, 4])
def test_vectorised_counts_equal_a_per_sentence_counter_on_wmt21_en_de(order):
    evalset = load_folder(SAMPLE / "wmt21.en-de")
    options = TokenizeOptions("13a")
    tables = ngram_tables(evalset, orders=order, min_count=2, options=options, systems=["Online-W"])
    ht_words = Counter(t for text in evalset.refs["A"] for t in tokenize_text(text, options) if not is_punctuation(t))
    kept = sorted(ht_words, key=lambda w: (-ht_words[w], w))[:100]
    assert tables.frequent_words == tuple(kept)
    ht, ht_segs = spec_counts(evalset.refs["A"], order, set(kept), options)
    mt, mt_segs = spec_counts(evalset.hyps["Online-W"], order, set(kept), options)
    table = tables.table("Online-W", order)
    expect_ht_only = sorted(((g, c, 0) for g, c in ht.items() if c >= 2 and g not in mt), key=lambda r: (-r[1], r[0]))
    expect_mt_only = sorted(((g, 0, c) for g, c in mt.items() if c >= 2 and g not in ht), key=lambda r: (-r[2], r[0]))
    assert rows(table.ht_only) == expect_ht_only and rows(table.mt_only) == expect_mt_only
    skewed = table.skewed.set_index("ngram")
    expected_skewed = {g for g in set(ht) | set(mt) if max(ht[g], mt[g]) >= 2}
    assert set(skewed.index) == expected_skewed
    for gram in list(expected_skewed)[:200]:
        assert (skewed.loc[gram, "ht_count"], skewed.loc[gram, "mt_count"]) == (ht[gram], mt[gram])
        assert skewed.loc[gram, "segments"].tolist() == sorted(ht_segs.get(gram, set()) | mt_segs.get(gram, set()))
    for gram, segs in table.ht_only.set_index("ngram")["segments"].items():
        assert segs.tolist() == sorted(ht_segs[gram])


def test_repeated_texts_are_counted_at_every_repeat():
    once = ngram_tables(evalset_from_lists({"ht": HT}, {"mt": MT}), min_count=1, options=WS)
    thrice = ngram_tables(evalset_from_lists({"ht": HT * 3}, {"mt": MT * 3}), min_count=1, options=WS)
    single, triple = once.table("mt", 2).skewed, thrice.table("mt", 2).skewed
    assert triple["ht_count"].tolist() == (3 * single["ht_count"]).tolist()
    first = triple.set_index("ngram").loc["a cat", "segments"].tolist()
    assert first == [2, 5, 8]


def test_ht_can_be_another_reference_and_systems_can_be_references():
    evalset = load_folder(SAMPLE / "wmt21.en-de")
    tables = ngram_tables(evalset, ht_ref="C", orders=2, systems=["A", "UEdin"])
    assert tables.ht_ref == "C" and tables.systems == ["A", "UEdin"]
    assert len(tables.table("A", 2).ht_only) > 0


@pytest.mark.parametrize("kwargs, message", [
    ({"ht_ref": "Z"}, "unknown HT reference"),
    ({"orders": 5}, "orders must be among"),
    ({"min_count": 0}, "min_count"),
    ({"systems": ["nobody"]}, "cannot compare"),
])
def test_bad_arguments_are_value_errors(kwargs, message):
    with pytest.raises(ValueError, match=message):
        ngram_tables(evalset_from_lists({"ht": HT}, {"mt": MT}), **kwargs)


def test_frequent_words_break_ties_by_code_point():
    vocab = np.array(["b", "a", ",", "c"], dtype=object)
    assert vocab[frequent_words(vocab, np.array([2, 2, 9, 1]), n=2)].tolist() == ["a", "b"]


def test_zh_en_dev_all_orders_and_systems_in_one_call():
    evalset = load_folder(DEV / "wmt21" / "zh-en")
    tables = ngram_tables(evalset)
    assert tables.orders == (1, 2, 3, 4) and len(tables.systems) == 12
    online_w = tables.table("Online-W", 1)  # Online-W has empty output lines: a valid (bad) translation
    assert (online_w.ht_only["ht_count"] >= 2).all() and (online_w.ht_only["mt_count"] == 0).all()

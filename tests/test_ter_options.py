"""TER's four sacrebleu options (normalized, no_punct, asian_support, case_sensitive) and their target-language
default (``shared/spec/METRICS.md`` §0; docs/metrics.md), checked against ``sacrebleu.metrics.TER``."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from sacrebleu.metrics import TER as SacreTER

from mtdiag.api import Options, evaluate
from mtdiag.evalset import evalset_from_lists
from mtdiag.io import load_folder
from mtdiag.metrics.base import ScoringContext
from mtdiag.metrics.ter import TER, resolve_ter_tokenization, ter_scores, ter_statistics
from mtdiag.metrics.ter_engine import TerTokenization, ter_words
from tests.conftest import DEV, read_lines
from tests.test_ter import stats_digest

EN_JA = DEV / "wmt21" / "en-ja"
# sacrebleu 2.6.0, TER(normalized=True, asian_support=True), reference A, all 1,000 segments: (SHA-256 of
# _extract_corpus_statistics(hyps, [ref]) as a little-endian float64 (1000, 2) array, corpus_score(hyps, [ref]).score)
SACREBLEU_EN_JA_ASIAN = {
    "BUPT_rush": ("2ac6061905cfd3ba7f067904af68d257cd2e1f0063b2a5953e9aeb86f01ecffe", 59.07377025587888),
}
OPTION_SETS = [dict(zip(("normalized", "no_punct", "asian_support", "case_sensitive"), values))
               for values in itertools.product((False, True), repeat=4)]


@pytest.fixture(scope="module")
def en_ja():
    refs = {"A": read_lines(EN_JA / "ref.A.txt")}
    hyps = {system: read_lines(EN_JA / f"newstest2021.en-ja.{system}.txt") for system in SACREBLEU_EN_JA_ASIAN}
    return refs, hyps


@pytest.mark.parametrize("options", OPTION_SETS, ids=lambda o: ",".join(k for k, v in o.items() if v) or "default")
def test_ter_words_are_sacrebleus_preprocessing_for_every_option(options):
    texts = ["Ｇ７の首脳は、VATについて議論した。", "He said: \"Don't!\" &amp; left (3.5%).", "東京で２０２１年。Hello, World"]
    sacre = SacreTER(**options)
    for text in texts:
        assert ter_words(text, TerTokenization(**options)) == sacre._preprocess_segment(text).split()


@pytest.mark.parametrize("options", OPTION_SETS, ids=lambda o: ",".join(k for k, v in o.items() if v) or "default")
def test_every_option_set_equals_sacrebleu_on_en_ja_segments(options, en_ja):
    refs, hyps = en_ja
    index = np.arange(0, 1000, 50)
    hyp = [hyps["BUPT_rush"][i] for i in index]
    ref = [refs["A"][i] for i in index]
    sacre = SacreTER(**options)
    expected = sacre._extract_corpus_statistics(hyp, [ref])
    stats = ter_statistics(hyp, [ref], tokenization=TerTokenization(**options))
    assert stats.tolist() == expected
    assert ter_scores(stats.sum(axis=0)) == pytest.approx(sacre._aggregate_and_compute(expected).score, abs=1e-9)
    metric = TER(**options)
    result = metric.compute(ScoringContext(evalset_from_lists({"A": ref}, {"mt": hyp})), "mt")
    assert result.corpus == pytest.approx(sacre._aggregate_and_compute(expected).score, abs=1e-9)
    signature = sacre.get_signature().format()
    for field in ("case", "tok", "norm", "punct", "asian"):
        assert f"{field}:" in signature
        wanted = signature.split(f"{field}:")[1].split("|")[0]
        assert f"|{field}:{wanted}|" in result.signature


@pytest.mark.parametrize("system", SACREBLEU_EN_JA_ASIAN)
def test_normalized_asian_ter_equals_sacrebleu_on_every_en_ja_segment_and_differs_from_plain(system, en_ja):
    refs, hyps = en_ja
    ctx = ScoringContext(evalset_from_lists(refs, {system: hyps[system]}))
    result = TER(normalized=True, asian_support=True).compute(ctx, system)
    digest, corpus = SACREBLEU_EN_JA_ASIAN[system]
    assert result.stats.shape == (1000, 2) and stats_digest(result.stats) == digest
    assert result.corpus == pytest.approx(corpus, abs=1e-9)
    np.testing.assert_allclose(result.segments, ter_scores(result.stats), rtol=0, atol=0)
    plain = TER(normalized=False, asian_support=False).compute(ctx, system)
    assert plain.corpus > corpus + 40  # unsegmented Japanese: about one "word" per sentence
    assert "|norm:yes|punct:yes|asian:yes|" in result.signature and "|norm:no|punct:yes|asian:no|" in plain.signature


def test_auto_default_turns_normalized_and_asian_support_on_for_a_japanese_target():
    evalset = load_folder(EN_JA)
    assert evalset.tgt_lang == "ja"
    report = evaluate(evalset, Options(metrics=("ter",)))
    for system, (digest, corpus) in SACREBLEU_EN_JA_ASIAN.items():
        assert stats_digest(report.results[("ter", system)].stats) == digest
        assert report.results[("ter", system)].corpus == pytest.approx(corpus, abs=1e-9)
    assert "|case:lc|tok:tercom|norm:yes|punct:yes|asian:yes|" in report.results[("ter", "BUPT_rush")].signature
    # the same data declared English keeps sacrebleu's plain defaults
    english = evaluate(evalset, Options(metrics=("ter",), tgt_lang="en"))
    assert english.results[("ter", "BUPT_rush")].corpus > report.results[("ter", "BUPT_rush")].corpus + 40
    assert "|norm:no|punct:yes|asian:no|" in english.results[("ter", "BUPT_rush")].signature


@pytest.mark.parametrize(("lang", "cjk"), [("ja", True), ("zh", True), ("ko", True), ("zh-TW", True), ("zh_Hant", True),
                                           ("en", False), ("de", False), (None, False)])
def test_auto_resolution_by_target_language(lang, cjk):
    assert resolve_ter_tokenization({}, lang) == TerTokenization(normalized=cjk, asian_support=cjk)
    explicit = {"normalized": False, "asian_support": True, "no_punct": True, "case_sensitive": True}
    assert resolve_ter_tokenization(explicit, lang) == TerTokenization(False, True, True, True)


def test_options_are_declared_with_sacrebleus_defaults_and_validated():
    specs = {spec.name: spec for spec in TER.info.options}
    assert list(specs) == ["normalized", "no_punct", "asian_support", "case_sensitive"]
    assert specs["normalized"].default is None and specs["asian_support"].default is None  # auto
    assert specs["no_punct"].default is False and specs["case_sensitive"].default is False
    assert all(spec.choices == (False, True) for spec in specs.values())
    with pytest.raises(ValueError):
        TER(normalized="yes")

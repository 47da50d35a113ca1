"""TER's four sacrebleu options (normalized, no_punct, asian_support, case_sensitive) and their target-language
default (``shared/spec/METRICS.md`` §0; docs/metrics.md), checked against ``sacrebleu.metrics.TER``."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from sacrebleu.metrics import TER as SacreTER

from mtdiag.scoring.evaluate import Options, evaluate
from mtdiag.core.evalset import evalset_from_lists
from mtdiag.io import load_folder
from mtdiag.metrics.base import ScoringContext
from mtdiag.metrics.ter import TER, resolve_ter_tokenization, ter_scores, ter_statistics
from mtdiag.metrics.ter_engine import TerTokenization, ter_words
from tests.conftest import DEV, read_lines
from tests.test_ter import stats_digest

EN_JA = DEV / "wmt21" / "en-ja"
# sacrebleu 2.6.0, TER(normalized=True, asian_support=True), reference A, all 1,000 segments of each of the 12
# systems: (SHA-256 of _extract_corpus_statistics(hyps, [ref]) as a little-endian float64 (1000, 2) array,
# corpus_score(hyps, [ref]).score). Recorded once (sacrebleu takes ~80 s per system here); the per-segment live
# comparison below runs every option combination on a sample.
SACREBLEU_EN_JA_ASIAN = {
    "BUPT_rush": ("2ac6061905cfd3ba7f067904af68d257cd2e1f0063b2a5953e9aeb86f01ecffe", 59.07377025587888),
    "Facebook-AI": ("ba6f266488f1203982d317728a5d4e07e421414eba70cfd99b04fdf8086cecad", 55.40684454422473),
    "HuaweiTSC": ("aa07a658f7850bec5c53338b9eda50724bfe34a0b4f0d0069ad7ba8a4a5a98ce", 57.864893647641246),
    "Illini": ("b46161c5b0549050e781a2a77bbd6949ef30bd5bf5a9c05decafd63b7f3ea5a5", 67.48121923840775),
    "MiSS": ("dc6971ade3c225e05339a63cb14247b6136f9105830155332647a052e115034c", 59.75016550096422),
    "NiuTrans": ("cd5cab32e5d2ce3a91892b60eab8e61a9cd59bfc925fde19fcd4871c6a91495b", 56.44590277178136),
    "Online-A": ("25da73ff8785b4c44d9ea3f487e0f0e534dc65885a05905e6eb0fe8d22b9c507", 61.84555162190944),
    "Online-B": ("1b807a44613575d0bf515c5fa5212f5712cd539b7680e4a335770c7f963fb604", 60.104193650519534),
    "Online-G": ("247d58daca7574419ed296953211640934772236629e4e57a9c306825884097c", 68.02521371211468),
    "Online-W": ("fbe73a4604584810e69b5fc8b58938702cb6016ca57619bb89e07ab8bb089a1f", 60.12721987162881),
    "Online-Y": ("0c3b328119173746cdfc0faa73b240fb91fd9be5b93e32ea2a24e0b29e6d5ae8", 62.10171833175028),
    "WeChat-AI": ("53f227596f3f8de643342c621314c8069744a8b7ddbd392229a14e2e3a17c2c1", 57.54828310738854),
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


@pytest.mark.slow
@pytest.mark.parametrize("system", SACREBLEU_EN_JA_ASIAN)
def test_normalized_asian_ter_equals_sacrebleu_live_on_interleaved_en_ja_segments(system, en_ja):
    refs, hyps = en_ja
    k = list(SACREBLEU_EN_JA_ASIAN).index(system)
    index = np.arange(k % 12, 1000, 12)
    ctx = ScoringContext(evalset_from_lists(refs, {system: hyps[system]}))
    result = TER(normalized=True, asian_support=True).compute(ctx, system)
    sacre = SacreTER(normalized=True, asian_support=True)
    expected = sacre._extract_corpus_statistics([hyps[system][i] for i in index], [[refs["A"][i] for i in index]])
    assert result.stats[index].tolist() == expected
    np.testing.assert_allclose(result.segments[index], [sacre._compute_score_from_stats(r).score for r in expected],
                               rtol=0, atol=1e-9)


@pytest.mark.parametrize("case_sensitive", [False, True])
def test_ter_words_without_normalisation_are_the_tercom_tokenizers(case_sensitive):
    """The direct path of :func:`ter_words` (no ``normalized``, no ``no_punct``) gives sacrebleu's Tercom words on
    every dev text and on whitespace oddities; ``asian_support`` alone changes nothing, as in sacrebleu."""
    from sacrebleu.tokenizers.tokenizer_ter import TercomTokenizer

    from mtdiag.metrics.ter_engine import TerTokenization, ter_words
    from tests.conftest import DEV, read_lines

    texts = [line for path in sorted(DEV.glob("*/*/*.txt")) for line in read_lines(path)]
    texts += ["", "  ", "A\tB\u00a0C  D\u2028E ", "İSTANBUL ΣΑΣ", "x\u3000y"]
    for asian in (False, True):
        options = TerTokenization(asian_support=asian, case_sensitive=case_sensitive)
        tercom = TercomTokenizer(asian_support=asian, case_sensitive=case_sensitive)
        assert [ter_words(t, options) for t in texts] == [tercom(t.rstrip()).split() for t in texts]

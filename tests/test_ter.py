"""TER (mtdiag.metrics.ter / ter_engine) equals sacrebleu's TER: every segment's statistics, corpus and segment
scores, on WMT21 zh-en (12 systems, 1 reference) and en-de (3 references); hand cases; per-token costs (TERm).

The oracle is sacrebleu itself (``TER()._extract_corpus_statistics``, the per-segment half of ``corpus_score``).
sacrebleu's pure-Python TER needs ~9 CPU-minutes for all of zh-en, too slow for every test run, so zh-en is checked
twice: every segment of every system against digests of sacrebleu's statistics (recorded with sacrebleu 2.6.0 by
``benchmarks/bench_ter.py --digests``, which recomputes them and compares every segment), and, live, an interleaved
twelfth of each system (system k: segments k, k + 12, ...; together every segment position). en-de (3 references)
is compared live in full. The live oracle computes each distinct (hypothesis, references) segment once — the
statistics are a pure function of that pair — in forked processes over every CPU.
"""

from __future__ import annotations

import hashlib
import multiprocessing
import os
import random

import numpy as np
import pytest
import sacrebleu
from sacrebleu.metrics import TER as SacreTER
from sacrebleu.metrics.lib_ter import translation_edit_rate as sacre_ter

from mtdiag.core.evalset import evalset_from_lists
from mtdiag.metrics.base import ScoringContext
from mtdiag.metrics.ter import TER, reference_set, ter_scores, ter_statistics
from mtdiag.metrics.ter_engine import ReferenceSet, ter_words, translation_edit_rate
from tests.conftest import DEV, read_lines

ZH_EN = DEV / "wmt21" / "zh-en"
EN_DE = DEV / "wmt21" / "en-de"
ZH_EN_SYSTEMS = sorted(p.name.split(".")[-2] for p in ZH_EN.glob("newstest2021.zh-en.*.txt"))
EN_DE_SYSTEMS = ("Facebook-AI", "Online-W", "VolcTrans-GLAT")

# sacrebleu 2.6.0, zh-en, reference A, all 1,948 segments: (SHA-256 of TER()._extract_corpus_statistics(hyps, [ref])
# as a little-endian float64 (1948, 2) array, TER().corpus_score(hyps, [ref]).score).
SACREBLEU_ZH_EN = {
    "Borderline": ("bcc33f80ea05068e781f4ddcd8ea9e88a4f0e9cf9ef009879a435dbc70811d20", 58.50294844968613),
    "DIDI-NLP": ("b0b0c34ea529aca6dc4a1ca775c335e61d7ba03051424bbf9b045e9d6a436f11", 58.265170249191556),
    "Facebook-AI": ("8edce7629a8b6e88a2ae694f894b40aac9ae7199ea9af4f16123cc21b98f7fc0", 59.163971847061056),
    "HuaweiTSC": ("3d7d12c22c310df63f4c2ebfbab2580872e0c9cb66209d00bfff02e4fad32927", 62.916111850865505),
    "IIE-MT": ("a340106751588a66f33f05a0afe6e5f73b277469bea6475f1f79ae5ce9ebfcff", 59.514298395789744),
    "MiSS": ("66d70a3622a285b43362aac1f94c7fadd29a5833d75324b4a7a88b92ad2de621", 57.82924354828482),
    "NiuTrans": ("7ee7d5a11ab4c2a2ac1d624b66451b3ff0b34cdf2b2a9e66993b3db4043c32fb", 60.81256737049014),
    "Online-B": ("8c6b545bfeb339e8408242d620f75a23afe1f494187b8e2afba0a9086d6e210b", 58.58537822585759),
    "Online-G": ("2676399474dde7e218b9588a5c9c0e1fe306747c7fc9a96de70e6a068eaafff6", 64.29522541373407),
    "Online-W": ("bf1ec5a71e0f44d7ade15a8c365dd69114840eb4a9e17277561310975d567a00", 62.6989410944138),
    "Online-Y": ("09a0f13c0ee67d099b68e1a69a5ca31d7bafd33ce144819aa47c6f5c4945ab75", 64.19852894553294),
    "SMU": ("46be9d70e578640e31b40d9207b008ec9c5e49b481acb9829763a99cb21e42ce", 59.63635787204362),
}


def stats_digest(stats) -> str:
    return hashlib.sha256(np.asarray(stats, dtype="<f8").tobytes()).hexdigest()


def _sacrebleu_statistics(hyps: list[str], ref_columns: list[list[str]]) -> list[list[float]]:
    return SacreTER()._extract_corpus_statistics(hyps, ref_columns)


def _load(folder, pair: str, ref_names: str, systems) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    refs = {name: read_lines(folder / f"ref.{name}.txt") for name in ref_names}
    hyps = {system: read_lines(folder / f"newstest2021.{pair}.{system}.txt") for system in systems}
    return refs, hyps


@pytest.fixture(scope="module")
def data():
    zh_refs, zh_hyps = _load(ZH_EN, "zh-en", "A", ZH_EN_SYSTEMS)
    de_refs, de_hyps = _load(EN_DE, "en-de", "ACD", EN_DE_SYSTEMS)
    return {"zh-en": (zh_refs, zh_hyps), "en-de": (de_refs, de_hyps)}


def _live_segments(data) -> dict[tuple[str, str], np.ndarray]:
    """The segments compared live with sacrebleu: an interleaved twelfth of each zh-en system, all of en-de."""
    zh_en = {("zh-en", s): np.arange(k % 12, 1948, 12) for k, s in enumerate(data["zh-en"][1])}
    return zh_en | {("en-de", s): np.arange(len(data["en-de"][0]["A"])) for s in data["en-de"][1]}


@pytest.fixture(scope="module")
def oracle(data):
    """sacrebleu's per-segment [edits, average ref length] on the live segments of every (pair, system)."""
    live = _live_segments(data)
    jobs = {}
    for (pair, system), index in live.items():
        refs, hyps = data[pair]
        seg_refs = list(zip(*refs.values()))
        jobs[pair, system] = [(hyps[system][i], seg_refs[i]) for i in index]
    segments = dict.fromkeys(seg for job in jobs.values() for seg in job)  # distinct, in first-seen order
    n_chunks = 4 * (os.cpu_count() or 1)
    chunks = []
    for n_refs in {len(r) for _, r in segments}:
        items = [seg for seg in segments if len(seg[1]) == n_refs]
        chunks += [items[i::n_chunks] for i in range(n_chunks) if items[i::n_chunks]]
    with multiprocessing.get_context("fork").Pool(os.cpu_count()) as pool:
        results = pool.starmap(
            _sacrebleu_statistics, [([h for h, _ in c], [list(col) for col in zip(*(r for _, r in c))]) for c in chunks]
        )
    by_segment = {seg: stats for chunk, chunk_stats in zip(chunks, results) for seg, stats in zip(chunk, chunk_stats)}
    return {key: (live[key], [by_segment[seg] for seg in job]) for key, job in jobs.items()}


@pytest.fixture(scope="module")
def zh_en_context(data):
    refs, hyps = data["zh-en"]
    return ScoringContext(evalset_from_lists(refs, hyps))


def _assert_equals_sacrebleu(system: str, stats: np.ndarray, segment_scores: np.ndarray, expected) -> None:
    expected_arr = np.array(expected, dtype=float)
    assert stats.shape == expected_arr.shape
    bad = np.flatnonzero((stats != expected_arr).any(axis=1))
    assert bad.size == 0, f"{system}: rows {bad[:10].tolist()} differ: {stats[bad[:3]]} vs {expected_arr[bad[:3]]}"
    sacre = SacreTER()
    expected_corpus = sacre._aggregate_and_compute(expected).score
    assert TER().corpus_score(stats.sum(axis=0)) == pytest.approx(expected_corpus, abs=1e-9)
    expected_segments = [sacre._compute_score_from_stats(row).score for row in expected]
    np.testing.assert_allclose(segment_scores, expected_segments, atol=1e-9, rtol=0)


def test_zh_en_has_twelve_systems_of_1948_segments(data):
    refs, hyps = data["zh-en"]
    assert len(ZH_EN_SYSTEMS) == 12 and set(SACREBLEU_ZH_EN) == set(ZH_EN_SYSTEMS)
    assert len(refs["A"]) == 1948 and all(len(lines) == 1948 for lines in hyps.values())


@pytest.mark.parametrize("system", ZH_EN_SYSTEMS)
def test_zh_en_every_segment_equals_sacrebleu_digest(system, zh_en_context):
    result = TER().compute(zh_en_context, system)
    digest, corpus = SACREBLEU_ZH_EN[system]
    assert result.stat_names == ("edits", "ref_len") and result.stats.shape == (1948, 2)
    assert stats_digest(result.stats) == digest, (
        f"{system}: per-segment statistics differ from sacrebleu {sacrebleu.__version__}'s recorded ones; "
        "`python benchmarks/bench_ter.py` names the segments"
    )
    assert result.corpus == pytest.approx(corpus, abs=1e-9)
    assert result.signature.startswith("ter|nrefs:1|case:lc|tok:tercom")


@pytest.mark.slow
@pytest.mark.parametrize("system", ZH_EN_SYSTEMS)
def test_zh_en_interleaved_segments_equal_sacrebleu_live(system, zh_en_context, oracle):
    index, expected = oracle["zh-en", system]
    result = TER().compute(zh_en_context, system)
    _assert_equals_sacrebleu(system, result.stats[index], result.segments[index], expected)


@pytest.mark.slow
@pytest.mark.parametrize("system", EN_DE_SYSTEMS)
def test_en_de_three_references_equal_sacrebleu(system, data, oracle):
    refs, hyps = data["en-de"]
    ctx = ScoringContext(evalset_from_lists(refs, {system: hyps[system]}))
    result = TER().compute(ctx, system)
    _, expected = oracle["en-de", system]
    _assert_equals_sacrebleu(system, result.stats, result.segments, expected)
    assert result.corpus == pytest.approx(SacreTER()._aggregate_and_compute(expected).score, abs=1e-9)
    assert result.signature.startswith("ter|nrefs:3|case:lc|tok:tercom")


@pytest.mark.slow
def test_segment_scores_are_sacrebleu_sentence_scores(data):
    refs, hyps = data["en-de"]
    lines = hyps[EN_DE_SYSTEMS[0]][:60]
    seg_refs = [list(r) for r in zip(*refs.values())][:60]
    ours = ter_scores(ter_statistics(lines, [col[:60] for col in refs.values()]))
    expected = [SacreTER().sentence_score(h, r).score for h, r in zip(lines, seg_refs)]
    np.testing.assert_allclose(ours, expected, atol=1e-9, rtol=0)


@pytest.mark.slow
def test_all_ones_costs_equal_ter(data, oracle):
    refs, hyps = data["en-de"]
    system = EN_DE_SYSTEMS[1]
    ones = [[np.ones(len(ter_words(text))) for text in column] for column in refs.values()]
    stats = ter_statistics(hyps[system], list(refs.values()), ones)
    assert np.array_equal(stats, np.array(oracle["en-de", system][1], dtype=float))
    assert np.array_equal(stats, ter_statistics(hyps[system], list(refs.values())))


# ---------------------------------------------------------------- hand cases, checked against sacrebleu directly


@pytest.mark.parametrize(
    "hyp, ref",
    [
        ("", "the cat sat"),  # empty hypothesis: every reference word is missing
        ("the cat sat", ""),  # empty reference: edits = hypothesis length, length 0
        ("", ""),
        ("   ", "  "),
        ("The cat sat on the mat .", "the cat sat on the mat ."),  # case-insensitive: identical
        ("a b c d e", "c d e a b"),  # one block shift
        ("the cat sat on the mat", "on the mat the cat sat"),
        ("he said that the talks failed yesterday", "yesterday he said that the negotiations failed"),
        ("x " * 3, "x " * 120),  # length ratio 40: beam band follows the pseudo-diagonal
        ("y", "y z " * 70),  # length ratio 140 > 50: sacrebleu widens the beam
    ],
)
def test_hand_cases_equal_sacrebleu(hyp, ref):
    words_hyp, words_ref = ter_words(hyp), ter_words(ref)
    assert translation_edit_rate(words_hyp, words_ref) == sacre_ter(words_hyp, words_ref)
    stats = ter_statistics([hyp], [[ref]])
    expected = SacreTER()._extract_corpus_statistics([hyp], [[ref]])
    assert stats.tolist() == expected
    assert ter_scores(stats)[0] == pytest.approx(SacreTER().sentence_score(hyp, [ref]).score, abs=1e-9)


def test_hand_case_values():
    assert ter_statistics([""], [["the cat sat"]]).tolist() == [[3.0, 3.0]]
    assert ter_statistics(["the cat sat"], [[""]]).tolist() == [[3.0, 0.0]]
    assert ter_scores(np.array([[3.0, 0.0], [0.0, 0.0], [3.0, 3.0], [1.0, 4.0]])).tolist() == [100.0, 0.0, 100.0, 25.0]
    assert ter_statistics(["a b c d e"], [["c d e a b"]]).tolist() == [[1.0, 5.0]]


def test_multi_reference_takes_best_edits_and_average_length():
    hyp = "the cat sat on the mat"
    refs = [["a cat was sitting on the mat"], ["the cat sat on the mat"], [""]]
    stats = ter_statistics([hyp], refs)
    assert stats.tolist() == [[0.0, 13 / 3]]
    assert stats.tolist() == SacreTER()._extract_corpus_statistics([hyp], refs)


def test_corpus_score_is_vectorised_over_leading_axes():
    rng = np.random.default_rng(0)
    stats = rng.integers(0, 5, size=(3, 4, 2)).astype(float)
    scores = TER().corpus_score(stats)
    assert scores.shape == (3, 4)
    sacre = SacreTER()
    for index in np.ndindex(3, 4):
        assert scores[index] == pytest.approx(sacre._compute_score_from_stats(list(stats[index])).score, abs=1e-9)


def test_random_word_sequences_equal_sacrebleu():
    """Small vocabularies force many shifts, long sequences exercise the beam, the shift distance limit and the
    1000-candidate budget (whose last round of shifts sacrebleu does not apply)."""
    rng = random.Random(20240611)
    for case in range(60):
        vocab = rng.randint(2, 12)
        n_ref = rng.randint(0, 70 if case % 10 else 130)
        ref = [str(rng.randint(0, vocab)) for _ in range(n_ref)]
        hyp = list(ref)
        for _ in range(rng.randint(0, 6)):  # block moves
            i, j, k = rng.randrange(len(hyp) + 1), rng.randrange(len(hyp) + 1), rng.randint(1, 8)
            block = hyp[i : i + k]
            del hyp[i : i + k]
            hyp[j:j] = block
        for _ in range(rng.randint(0, 8)):  # substitutions, deletions, insertions
            op, pos = rng.randrange(3), rng.randrange(len(hyp) + 1)
            if op == 0 and pos < len(hyp):
                hyp[pos] = str(rng.randint(0, vocab + 3))
            elif op == 1 and pos < len(hyp):
                del hyp[pos]
            else:
                hyp.insert(pos, str(rng.randint(0, vocab + 3)))
        assert translation_edit_rate(hyp, ref) == sacre_ter(hyp, ref), (hyp, ref)


def test_shift_search_with_the_suffix_shortcut_equals_sacrebleu_on_many_reorderings():
    """The shift search scores a candidate from its changed rows and the current hypothesis's suffix distances
    (unit costs): 400 more random block moves over small vocabularies, short and long, against sacrebleu."""
    rng = random.Random(14)
    for case in range(400):
        vocab = rng.randint(2, 6)
        ref = [str(rng.randint(0, vocab)) for _ in range(rng.randint(1, 25 if case % 4 else 60))]
        hyp = list(ref)
        for _ in range(rng.randint(1, 5)):
            i, j, k = rng.randrange(len(hyp) + 1), rng.randrange(len(hyp) + 1), rng.randint(1, 6)
            block = hyp[i : i + k]
            del hyp[i : i + k]
            hyp[j:j] = block
        if case % 3 == 0 and hyp:
            hyp[rng.randrange(len(hyp))] = "new"
        assert translation_edit_rate(hyp, ref) == sacre_ter(hyp, ref), (hyp, ref)


def test_reference_preprocessing_is_cached():
    refs = [["the cat sat", "a dog"], ["the cat", "dogs"]]
    first = reference_set(refs)
    assert reference_set([list(column) for column in refs]) is first
    assert first.words[1][0] == ("the", "cat")
    assert first.lengths.tolist() == [[3, 2], [2, 1]]


# ---------------------------------------------------------------- per-reference-token costs (TERm)


def _weighted(hyp: str, ref: str, costs: list[float]) -> float:
    return float(ter_statistics([hyp], [[ref]], [[np.array(costs)]])[0, 0])


REF = "the red car is here"  # TER words: the red car is here; "red" is the term token below
TERM = [1.0, 2.0, 1.0, 1.0, 1.0]


def test_substituted_term_token_costs_lambda():
    assert _weighted("the blue car is here", REF, [1.0] * 5) == 1.0
    assert _weighted("the blue car is here", REF, TERM) == 2.0


def test_missing_term_token_costs_lambda():
    assert _weighted("the car is here", REF, [1.0] * 5) == 1.0
    assert _weighted("the car is here", REF, TERM) == 2.0
    assert _weighted("", REF, TERM) == 6.0
    assert _weighted("", REF, [1.0, 2.5, 1.0, 1.0, 1.0]) == 6.5


def test_costs_on_matched_tokens_change_nothing():
    hyp = "the red bus is here"  # "red" matched, "car" substituted
    assert _weighted(hyp, REF, TERM) == _weighted(hyp, REF, [1.0] * 5) == 1.0
    assert _weighted(hyp, REF, [3.0, 2.0, 1.0, 4.0, 5.0]) == 1.0


def test_hypothesis_insertions_and_shifts_cost_one():
    assert _weighted("the big red car is here", REF, TERM) == 1.0  # inserted hypothesis word
    assert _weighted("here the red car is", REF, [1.0, 2.0, 2.0, 1.0, 1.0]) == 1.0  # one shift
    assert _weighted("the red car is here", REF, [5.0] * 5) == 0.0


def test_weighted_length_stays_unweighted_and_best_reference_wins():
    refs = [["the red car is here"], ["the blue car is here"]]
    costs = [[np.array(TERM)], [None]]
    assert ter_statistics(["the blue car is here"], refs, costs).tolist() == [[0.0, 5.0]]
    assert ter_statistics(["the green car is here"], refs, costs).tolist() == [[1.0, 5.0]]
    assert ter_statistics(["the green car is here"], refs[:1], costs[:1]).tolist() == [[2.0, 5.0]]


def test_cost_arrays_are_validated():
    refs = ReferenceSet.from_words([[["a", "b"]]])
    with pytest.raises(ValueError, match="TER words"):
        refs.edits([["a"]], [[np.ones(3)]])
    with pytest.raises(ValueError, match="non-negative"):
        refs.edits([["a"]], [[np.array([1.0, -1.0])]])
    with pytest.raises(ValueError, match="columns"):
        refs.edits([["a"]], [[None], [None]])

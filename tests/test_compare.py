"""Paired significance (mtdiag.analysis.significance): certain answers on hand-made corpora, and agreement with sacrebleu.

- Koehn 2004 (paired bootstrap resampling) and Riezler & Maxwell 2005 (approximate randomisation) as sacrebleu
  2.6 implements them (``sacrebleu/significance.py``): the expected numbers in the agreement tests are computed
  here by sacrebleu's own ``PairedTest`` on WMT21 en-de (3 references), not copied.
- The one deliberate difference (ties count as "at least as extreme", Riezler & Maxwell 2005 Fig. 1) is pinned by
  ``test_identical_systems_differ_from_sacrebleu_only_in_the_tie_rule``.
"""

from __future__ import annotations

import io
import json
import random

import numpy as np
import pandas as pd
import pytest
import sacrebleu
from sacrebleu.significance import PairedTest, estimate_ci

from mtdiag import __version__
from mtdiag.scoring.evaluate import Options, evaluate
from mtdiag.analysis.significance import (bootstrap_counts, bootstrap_indices, compare_stats, confidence_interval, p_value, paired_bootstrap, paired_randomization, randomization_draws, resampling_signature, significance)
from mtdiag.core.evalset import evalset_from_lists
from mtdiag.report.export import export_comparison, latex_escape
from mtdiag.metrics import REGISTRY, Signature, create_metric
from tests.conftest import DEV, read_lines

EN_DE = DEV / "wmt21" / "en-de"
HAND_METRICS = tuple(m for m in ("otem", "utem", "waft", "neva", "bleu", "chrf", "ter") if m in REGISTRY)
LOWER_IS_BETTER = {m for m in HAND_METRICS if not REGISTRY[m].info.higher_is_better}
METHODS = [("bs", 1000), ("ar", 2000)]


# ------------------------------------------------------------------------------------------ hand-made corpora


def hand_made() -> tuple[dict, dict]:
    """50 segments of 8-12 distinct words. ``good`` = the reference (perfect on every segment), ``twin`` = an
    identical copy of ``good``, ``bad`` = the reference with its first two words repeated (over-translation:
    OTEM) and its last two dropped (under-translation: UTEM) — worse than ``good`` on every segment, every metric."""
    rng = random.Random(7)
    vocab = [f"w{i}" for i in range(400)]
    refs, bad = [], []
    for _ in range(50):
        words = rng.sample(vocab, rng.randint(8, 12))
        refs.append(" ".join(words))
        bad.append(" ".join(words[:2] + words[:-2]))
    return {"ref": refs}, {"good": list(refs), "twin": list(refs), "bad": bad}


@pytest.fixture(scope="module")
def hand_report():
    refs, hyps = hand_made()
    return evaluate(evalset_from_lists(refs, hyps), Options(metrics=HAND_METRICS))


def test_hand_made_corpus_is_what_it_claims(hand_report):
    corpus = hand_report.corpus
    for metric in HAND_METRICS:
        good, bad = corpus.loc["good", metric], corpus.loc["bad", metric]
        assert (good < bad) if metric in LOWER_IS_BETTER else (good > bad), metric
    assert {"otem", "utem"} <= LOWER_IS_BETTER
    seg = hand_report.segments
    for metric in ("bleu", "chrf", "waft"):  # strictly better on every one of the 50 segments
        assert (seg.loc["good", metric].to_numpy() > seg.loc["bad", metric].to_numpy()).all()


@pytest.mark.parametrize("method,n", METHODS)
def test_identical_systems_have_p_one(hand_report, method, n):
    frame = significance(hand_report, "good", method, n)
    twin = frame.xs("twin", level="system")
    assert (twin["p"] == 1.0).all(), twin
    assert (twin["delta"] == 0).all() and (twin["better"] == 0).all() and not twin["significant"].any()


@pytest.mark.parametrize("method,n", METHODS)
def test_strictly_better_system_is_significant_in_every_metric_direction(hand_report, method, n):
    frame = significance(hand_report, "bad", method, n)
    good = frame.xs("good", level="system")
    assert (good["p"] < 0.01).all(), good["p"]
    assert good["significant"].all()
    assert (good["better"] == 1).all(), good["better"]  # OTEM/UTEM/TER lower, and recognised as better
    for metric in LOWER_IS_BETTER:
        assert good.loc[metric, "delta"] < 0
    worse = significance(hand_report, "good", method, n).xs("bad", level="system")
    assert (worse["better"] == -1).all() and (worse["p"] < 0.01).all()


@pytest.mark.parametrize("method,n", METHODS)
def test_frame_layout_baseline_first_and_nan_p(hand_report, method, n):
    frame = significance(hand_report, "twin", method, n)
    assert list(frame.columns) == ["score", "mean", "ci_lo", "ci_hi", "ci", "delta", "p", "significant", "better"]
    assert list(frame.index.names) == ["system", "metric"]
    assert list(dict.fromkeys(frame.index.get_level_values("system"))) == ["twin", "good", "bad"]
    assert frame.xs("twin", level="system")["p"].isna().all()
    pd.testing.assert_series_equal(frame.xs("bad", level="system")["score"],
                                   hand_report.corpus.loc["bad", list(HAND_METRICS)].rename("score"),
                                   check_names=False, check_index_type=False)


# ------------------------------------------------------------------------------------------ WMT21 en-de


@pytest.fixture(scope="module")
def en_de():
    refs = {name: read_lines(EN_DE / f"ref.{name}.txt") for name in "ACD"}
    names = ["Online-W", "Facebook-AI", "VolcTrans-GLAT"]  # close calls: p between 0.003 and 0.25
    hyps = {name: read_lines(EN_DE / f"newstest2021.en-de.{name}.txt") for name in names}
    report = evaluate(evalset_from_lists(refs, hyps), Options(metrics=("otem", "utem", "waft", "neva", "bleu", "chrf")))
    return report, refs, hyps


def _sacrebleu_paired(refs, hyps, test_type, n):
    references = list(refs.values())
    metrics = {"bleu": sacrebleu.BLEU(references=references), "chrf": sacrebleu.CHRF(references=references)}
    sigs, scores = PairedTest(list(hyps.items()), metrics, references=None, test_type=test_type, n_samples=n,
                              n_ar_confidence=1000 if test_type == "ar" else -1)()
    names = {"bleu": "BLEU", "chrf": "chrF2"}
    return {m: dict(zip(scores["System"], scores[names[m]])) for m in names}, sigs


@pytest.mark.parametrize("method,n", [("bs", 1000), ("ar", 1000)])
def test_agrees_with_sacrebleu_paired_tests(en_de, method, n):
    """Scores to 1e-9, p-values exactly, bootstrap mean and ± CI to 1e-4 (sacrebleu sums its bootstrap
    statistics in float32: see test_bootstrap_draw_is_sacrebleus_to_1e9 for the exact check)."""
    report, refs, hyps = en_de
    baseline = "Online-W"
    ours = significance(report, baseline, method, n)
    expected, _ = _sacrebleu_paired(refs, hyps, method, n)
    for metric, by_system in expected.items():
        for name, result in by_system.items():
            system = name.removeprefix("Baseline: ")
            row = ours.loc[(system, metric)]
            assert row["score"] == pytest.approx(result.score, abs=1e-9)
            assert row["mean"] == pytest.approx(float(result.mean), abs=1e-4)
            assert row["ci"] == pytest.approx(float(result.ci), abs=1e-4)
            if system == baseline:
                assert result.p_value is None and np.isnan(row["p"])
            else:
                assert row["p"] == result.p_value, (metric, system)
    ps = ours.xs("Facebook-AI", level="system")["p"]
    assert 0.05 < ps["bleu"] < 0.5  # a close call, not only the floor 1/(n+1)


def test_bootstrap_draw_is_sacrebleus_to_1e9(en_de):
    """The same indices (``default_rng(12345).choice``), the same resampled sums bit for bit, and sacrebleu's
    own score function on them gives our bootstrap scores to 1e-9: the residual of
    test_agrees_with_sacrebleu_paired_tests is sacrebleu's float32 arithmetic, not the resampling."""
    report, refs, hyps = en_de
    references = list(refs.values())
    n_seg = report.evalset.n_segments
    idx = np.random.default_rng(12345).choice(n_seg, size=(1000, n_seg), replace=True)
    np.testing.assert_array_equal(bootstrap_indices(n_seg, 1000, 12345), idx)
    counts = bootstrap_counts(n_seg, 1000, 12345)
    for metric, sb_metric in (("bleu", sacrebleu.BLEU()), ("chrf", sacrebleu.CHRF())):
        stats = report.result(metric, "Facebook-AI").stats
        sb_stats = np.array(sb_metric._extract_corpus_statistics(hyps["Facebook-AI"], references))
        np.testing.assert_array_equal(stats, sb_stats)
        sums = counts @ stats.astype(float)
        np.testing.assert_array_equal(sums, np.array(sb_stats, dtype="float32")[idx].sum(axis=1))
        ours = report.metric(metric).corpus_score(sums)
        theirs = np.array([sb_metric._compute_score_from_stats(s).score for s in sums])
        np.testing.assert_allclose(ours, theirs, atol=1e-9, rtol=0)


def test_identical_systems_differ_from_sacrebleu_only_in_the_tie_rule(en_de):
    """sacrebleu counts strictly greater statistics, so a system compared with itself gets p = 1/(n+1)
    ("significant"); mtdiag counts ties (Riezler & Maxwell 2005) and reports p = 1."""
    report, refs, hyps = en_de
    twin = {"Facebook-AI": hyps["Facebook-AI"], "copy": hyps["Facebook-AI"]}
    expected, _ = _sacrebleu_paired(refs, twin, "bs", 200)
    assert expected["bleu"]["copy"].p_value == pytest.approx(1 / 201)
    report2 = evaluate(evalset_from_lists(refs, twin), Options(metrics=("bleu", "chrf")))
    assert (significance(report2, "Facebook-AI", "bs", 200).xs("copy", level="system")["p"] == 1.0).all()


@pytest.mark.parametrize("method", ["bs", "ar"])
def test_ci_contains_point_estimate(en_de, hand_report, method):
    for report in (en_de[0], hand_report):
        frame = significance(report, report.evalset.systems[0], method, 1000)
        assert (frame["ci_lo"] <= frame["score"]).all() and (frame["score"] <= frame["ci_hi"]).all()
        slack = 1e-9 * np.maximum(frame["score"].abs(), 1)  # the mean of 1000 equal floats may be off by an ulp
        assert (frame["ci_lo"] - slack <= frame["mean"]).all() and (frame["mean"] <= frame["ci_hi"] + slack).all()
        np.testing.assert_allclose(frame["ci"], (frame["ci_hi"] - frame["ci_lo"]) / 2)


@pytest.mark.parametrize("method", ["bs", "ar"])
def test_deterministic_under_a_seed_and_different_seeds_differ(en_de, method):
    report = en_de[0]
    first = significance(report, "Online-W", method, 500, seed=12345)
    again = significance(report, "Online-W", method, 500, seed=12345)
    pd.testing.assert_frame_equal(first, again)
    other = significance(report, "Online-W", method, 500, seed=1)
    assert not np.allclose(first["mean"], other["mean"])
    pd.testing.assert_series_equal(first["score"], other["score"])


def test_every_metric_and_system_share_the_same_resamples(en_de):
    """Paired: a system compared with itself under another name has identical resampled scores, so p = 1."""
    report = en_de[0]
    metrics = {m: report.metric(m) for m in report.metrics}
    stats = {m: {"a": report.result(m, "Online-W").stats, "b": report.result(m, "Online-W").stats}
             for m in report.metrics}
    frame = compare_stats(metrics, stats, "a", "bs", 300)
    assert (frame.xs("b", level="system")["p"] == 1.0).all()
    pd.testing.assert_frame_equal(frame.xs("a", level="system"), frame.xs("b", level="system").assign(p=np.nan))


# ------------------------------------------------------------------------------------------ building blocks


def test_confidence_interval_is_sacrebleus_estimate_ci():
    scores = np.random.default_rng(0).normal(50, 3, size=(4, 1000))
    mean, lo, hi = confidence_interval(scores)
    for i in range(4):
        sb_mean, sb_ci = estimate_ci(scores[i])
        assert mean[i] == pytest.approx(sb_mean, abs=1e-12)
        assert (hi[i] - lo[i]) / 2 == pytest.approx(sb_ci, abs=1e-12)
        ordered = np.sort(scores[i])
        assert (lo[i], hi[i]) == (ordered[25], ordered[974])


def test_undefined_resamples_are_left_out():
    scores = np.array([[1.0, 2.0, np.nan, 3.0], [np.nan] * 4])
    mean, lo, hi = confidence_interval(scores)
    assert mean[0] == pytest.approx(2.0) and (lo[0], hi[0]) == (1.0, 3.0)
    assert np.isnan(mean[1]) and np.isnan(lo[1])
    assert p_value(np.array([0.5, np.nan, 2.0]), np.array(1.0)) == pytest.approx(2 / 3)
    assert np.isnan(p_value(np.array([0.5, 2.0]), np.array(np.nan)))


def test_randomization_draw_is_sacrebleus():
    rng = np.random.default_rng(12345)
    mask = rng.integers(2, size=(300, 40), dtype=bool)
    idx = rng.choice(40, size=(100, 40), replace=True)
    ours_mask, ours_counts = randomization_draws(40, 300, 12345, n_confidence=100)
    np.testing.assert_array_equal(ours_mask, mask)
    np.testing.assert_array_equal(ours_counts, np.stack([np.bincount(row, minlength=40) for row in idx]))


def test_compare_stats_from_arrays_and_a_metric_object():
    """The lower-level entry point: statistics arrays + a metric object, no Report."""
    bleu = create_metric("bleu")
    hyps_a = ["the cat sat on the mat", "a b c d e"] * 20
    hyps_b = ["the cat sat", "a b x d e"] * 20
    refs = [["the cat sat on the mat", "a b c d e"] * 20]
    stats = {"bleu": {name: np.array(sacrebleu.BLEU()._extract_corpus_statistics(h, refs))
                      for name, h in (("a", hyps_a), ("b", hyps_b))}}
    frame = compare_stats({"bleu": bleu}, stats, "b", "bs", 200, signatures={"bleu": Signature("bleu", (("nrefs", "1"), ("version", "x")))})
    assert frame.loc[("a", "bleu"), "score"] == pytest.approx(sacrebleu.corpus_bleu(hyps_a, refs).score, abs=1e-9)
    assert frame.loc[("a", "bleu"), "better"] == 1 and frame.loc[("a", "bleu"), "p"] < 0.01
    assert frame.attrs["signatures"]["bleu"] == f"bleu|nrefs:1|bs:200|seed:12345|version:x|mtdiag:{__version__}"


def test_errors_are_clear(hand_report):
    with pytest.raises(ValueError, match="baseline 'nope' is not a system; systems: good, twin, bad"):
        significance(hand_report, "nope")
    with pytest.raises(ValueError, match="unknown significance method"):
        significance(hand_report, "good", "xx")
    with pytest.raises(ValueError, match="at least 1"):
        significance(hand_report, "good", "bs", 0)
    with pytest.raises(ValueError, match="was not computed"):
        significance(hand_report, "good", metrics=["term_exact"])


def test_systems_and_metrics_can_be_restricted(hand_report):
    frame = paired_bootstrap(hand_report, "good", 100, systems=["bad"], metrics=["bleu", "waft"])
    assert list(frame.index) == [("good", "bleu"), ("good", "waft"), ("bad", "bleu"), ("bad", "waft")]


# ------------------------------------------------------------------------------------------ signatures


def test_signatures_carry_resampling_and_version(hand_report):
    bs = paired_bootstrap(hand_report, "good").attrs["signatures"]
    ar = paired_randomization(hand_report, "good", n_confidence=0).attrs["signatures"]
    ar_ci = paired_randomization(hand_report, "good", 500).attrs["signatures"]
    for metric in HAND_METRICS:
        assert "|nrefs:1|bs:1000|seed:12345|" in bs[metric]
        assert "|nrefs:1|ar:10000|seed:12345|" in ar[metric]
        assert "|nrefs:1|bs:1000|ar:500|seed:12345|" in ar_ci[metric]  # sacrebleu's order with CIs
        assert f"mtdiag-{__version__}" in bs[metric] or f"mtdiag:{__version__}" in bs[metric]
    assert bs["otem"].startswith("otem|nrefs:1|bs:1000|seed:12345|") and "order:2" in bs["otem"]
    assert "tok:13a" in bs["bleu"] and "case:mixed" in bs["bleu"]


def test_resampling_signature_placement():
    assert resampling_signature(Signature("x", (("version", "1"),)), "ar", 50, None).format() == \
        f"x|ar:50|seed:none|version:1|mtdiag:{__version__}"
    assert resampling_signature(Signature("a", (("version", f"mtdiag-{__version__}"),)), "bs", 10, 3).format() == \
        f"a|bs:10|seed:3|version:mtdiag-{__version__}"


# ------------------------------------------------------------------------------------------ exports


@pytest.fixture(scope="module")
def odd_names_frame():
    refs, hyps = hand_made()
    hyps = {"base_v1 & co": hyps["bad"], "50% {new}": hyps["good"]}
    report = evaluate(evalset_from_lists(refs, hyps), Options(metrics=("bleu", "otem", "waft")))
    return significance(report, "base_v1 & co", "bs", 200)


def test_export_csv_and_tsv_round_trip(odd_names_frame):
    for fmt, sep in (("csv", ","), ("tsv", "\t")):
        table = pd.read_csv(io.StringIO(export_comparison(odd_names_frame, fmt)), sep=sep)
        assert list(table.columns[:3]) == ["system", "metric", "label"]
        assert table["signature"].str.contains("bs:200|seed:12345", regex=False).all()
        np.testing.assert_allclose(table["score"], odd_names_frame["score"].to_numpy())
        assert table.loc[table["system"] == "base_v1 & co", "p"].isna().all()


def test_export_json(odd_names_frame):
    payload = json.loads(export_comparison(odd_names_frame, "json"))
    assert payload["baseline"] == "base_v1 & co" and payload["method"] == "bs" and payload["n"] == 200
    assert payload["seed"] == 12345 and set(payload["signatures"]) == {"bleu", "otem", "waft"}
    base = payload["significance"]["base_v1 & co"]["bleu"]
    assert base["p"] is None and base["significant"] is False and len(base["ci"]) == 2
    new = payload["significance"]["50% {new}"]["otem"]
    assert new["significant"] is True and new["better"] == 1 and new["p"] < 0.01


def test_export_latex_booktabs_arrows_marks_and_escaping(odd_names_frame):
    latex = export_comparison(odd_names_frame, "latex")
    lines = latex.splitlines()
    assert r"\toprule" in lines and r"\midrule" in lines and r"\bottomrule" in lines
    assert r"System & BLEU $\uparrow$ & OTEM $\downarrow$ & WAFT $\uparrow$ \\" in lines
    row = next(line for line in lines if line.startswith(r"50\% \{new\}"))
    assert row.count(r"$^{\dagger}$") == 3 and row.count(r"$\pm$") == 3
    assert any(line.startswith(r"base\_v1 \& co (baseline) & ") and r"\dagger" not in line for line in lines)
    assert "% bleu: bleu|nrefs:1|bs:200|seed:12345" in latex
    star = export_comparison(odd_names_frame, "latex", mark="star")
    assert r"$^{*}$" in star and r"\dagger" not in star
    with pytest.raises(ValueError, match="unknown export format"):
        export_comparison(odd_names_frame, "xlsx")


def test_latex_escape():
    assert latex_escape(r"a_b&c%d$e#f{g}h~i^j\k") == \
        r"a\_b\&c\%d\$e\#f\{g\}h\textasciitilde{}i\textasciicircum{}j\textbackslash{}k"




def test_bootstrap_sums_equal_the_count_matrix_product_with_repeated_columns():
    """bootstrap_sums makes the counts block by block and multiplies a repeated column once: the same sums."""
    from mtdiag.analysis.significance import bootstrap_sums, weighted_sums

    rng = np.random.default_rng(5)
    base = rng.integers(0, 50, size=(3_001, 4)).astype(float)
    stacked = {"a": np.stack([base, base + 1], axis=1), "b": base[:, [1, 1, 3]], "zeros": np.zeros((3_001, 2))}
    expected = weighted_sums(bootstrap_counts(3_001, 300, 7), stacked)
    got = bootstrap_sums(stacked, 300, 7)
    assert list(got) == list(expected)
    for key in stacked:
        assert got[key].shape == expected[key].shape
        np.testing.assert_array_equal(got[key], expected[key])
        np.testing.assert_array_equal(got[key], np.stack([counts @ stacked[key].reshape(3_001, -1)
                                                          for counts in bootstrap_counts(3_001, 300, 7)]
                                                         ).reshape(expected[key].shape))


@pytest.mark.parametrize("n_segments", [1, 2, 1_002, 100_000])
def test_bootstrap_indices_are_numpys_choice_stored_in_half_the_memory(n_segments):
    """sacrebleu draws ``default_rng(seed).choice(n, (B, n))``; the int32 draw is the same, also mid-stream."""
    expected = np.random.default_rng(12345).choice(n_segments, size=(4, n_segments), replace=True)
    drawn = bootstrap_indices(n_segments, 4, 12345)
    assert drawn.dtype == np.int32
    np.testing.assert_array_equal(drawn, expected)
    first, second = np.random.default_rng(9), np.random.default_rng(9)
    first.integers(2, size=(3, 5), dtype=bool)
    second.integers(2, size=(3, 5), dtype=bool)
    np.testing.assert_array_equal(bootstrap_indices(n_segments, 2, rng=first),
                                  second.choice(n_segments, (2, n_segments)))


def test_the_resampling_products_run_on_one_blas_thread_and_restore_it():
    """Issue 37: OpenBLAS's worker threads spin while they wait for each other, and on a busy machine the 100k
    bootstrap's products took 20-30x longer on two threads than on one. They run on one (the draw uses the other
    core); the process's setting is restored after."""
    from threadpoolctl import threadpool_info

    from mtdiag.analysis.significance import one_blas_thread

    def blas_threads() -> set[int]:
        return {lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"}

    before = blas_threads()
    with one_blas_thread():
        assert blas_threads() <= {1}
    assert blas_threads() == before

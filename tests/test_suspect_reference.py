"""Suspect references (``mtdiag.triage.checks.suspect_reference``, docs/triage.md "Suspect references"): references damaged
on purpose in dev TED zh-en — replaced by another segment's, doubled, cut to a third — are flagged, naming the
damaged reference, and the untouched ones are not; with one system the set's own unrelated references are the null;
where every reference of a segment is suspect the queue charges the outputs nothing for it (reference-free
evidence, the outputs' length, no reference-reading flags), and the flag explains itself."""

from __future__ import annotations

import importlib.util
from dataclasses import replace

import numpy as np
import pytest

from mtdiag.triage import checks, ranking
from mtdiag.scoring.evaluate import Options, evaluate
from mtdiag.triage.checks.base import modified_z_scores
from mtdiag.triage.checks.suspect_reference import (REASONS, every_reference_suspect, reference_at_fault, suspect_references, suspect_segments)
from mtdiag.io import load_folder
from tests.conftest import DEV, REPO, SAMPLE

TED = DEV / "ted" / "zh-en"
CHRF = Options(metrics=("chrf",))


@pytest.fixture(scope="module")
def ted():
    return load_folder(TED)


@pytest.fixture(scope="module")
def bench():
    """benchmarks/damaged_references.py: the damage and the measure the docs report."""
    spec = importlib.util.spec_from_file_location("damaged_references", REPO / "benchmarks" / "damaged_references.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("kind", ["replaced", "doubled", "cut"])
def test_damaged_references_are_flagged_and_named_untouched_ones_are_not(bench, ted, kind):
    """The benchmark's round on TED zh-en (5 % of the segments, 26, damaged in a random one of its two references;
    its seed): ≥ 90 % flagged naming the damaged reference, ≤ 2 % of the untouched segments flagged."""
    result = bench.detection(ted, kind, 0.05, 35)
    assert result["damaged"] == 26
    assert result["found"] >= 0.9 and result["untouched_flagged"] <= 0.02, result
    if kind == "doubled":
        assert result["reasons"]["repeats"] == 26


def damage(evalset, seed: int = 35, per_kind: int = 4):
    """``evalset`` with ``per_kind`` references of each kind damaged (by the benchmark's rule), and ``{seg:
    (reference, kind)}``."""
    spec = importlib.util.spec_from_file_location("damaged_references", REPO / "benchmarks" / "damaged_references.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    rng = np.random.default_rng(seed)
    broken, damaged = evalset, {}
    for kind in ("replaced", "doubled", "cut"):
        share = per_kind / evalset.n_segments
        broken, which = bench.damaged(broken, kind, share, rng, at_least=per_kind)
        damaged.update({seg: (ref, kind) for seg, ref in which.items()})
    return broken, damaged


def test_with_one_system_an_unrelated_reference_is_not_told_from_an_unrelated_output():
    """TICO-19 sample (one system): nothing to agree with — an output far from its reference may be the output's
    fault as well — so no reference is called unrelated; doubled references are still found (they repeat themselves
    and are longer than both the output and the source suggest)."""
    evalset = load_folder(SAMPLE / "tico19.en-fr")
    refs = evalset.refs.copy()
    name = evalset.ref_names[0]
    segs = np.random.default_rng(1).choice(evalset.n_segments, 20, replace=False)
    for seg in segs[:10]:
        refs.at[seg, name] = str(evalset.refs.at[(seg + 97) % evalset.n_segments, name])
    for seg in segs[10:]:
        refs.at[seg, name] = f"{refs.at[seg, name]} {refs.at[seg, name]}"
    rows = suspect_references(evaluate(replace(evalset, refs=refs), CHRF))
    assert not rows["unrelated"].any()
    assert set(segs[10:]) <= set(rows.loc[rows["repeats"], "seg"])
    assert len(set(rows["seg"]) - set(segs)) <= 0.02 * evalset.n_segments


@pytest.fixture(scope="module")
def single(ted):
    """TED with reference A only, three references replaced by other segments' (segments 10, 20, 30)."""
    evalset = replace(ted, refs=ted.refs[["A"]].copy())
    refs = evalset.refs
    for seg in (10, 20, 30):
        refs.at[seg, "A"] = str(ted.refs.at[seg + 200, "A"])
    return evaluate(replace(evalset, refs=refs))


def test_the_queue_does_not_charge_the_outputs_for_a_suspect_reference(single):
    at_fault = reference_at_fault(single)
    bad = [seg for seg in (10, 20, 30) if every_reference_suspect(single)[seg]]
    assert len(bad) == 3 and at_fault.groupby(level="seg").all()[bad].all()
    rate = ranking.error_rate(single)
    mine = at_fault[at_fault].index
    witnesses = ranking.witness_badness(single, rate, at_fault)  # the reference-free view only, witnesses weighed
    np.testing.assert_allclose(rate[mine], (witnesses + ranking.TIE * ranking.source_flags(single))[mine])
    lengths = ranking.segment_length(single)
    outputs = np.median([side.lengths for side in single.context.tokens.hyps.values()], axis=0)
    np.testing.assert_allclose(lengths[mine], np.maximum(outputs[[s for _, s in mine]], 1))
    flags = checks.flag_frame(single)
    for name in flags.columns:
        if checks.REGISTRY[name].reads_reference:
            assert not flags.loc[mine, name].any(), name
    assert flags.loc[mine, "suspect_reference"].all()  # on every system's row of those segments
    count = int(suspect_segments(single).sum())  # the three replaced and the real ones of reference A
    assert count >= 3 and f"{count} segments with a suspect reference" in ranking.signals(single)


def test_the_flag_explains_itself_and_names_the_reference(ted, single):
    finding = checks.REGISTRY["suspect_reference"]().explain(single, single.evalset.systems[0], 10)
    assert finding.sentences[0].startswith("The reference shares little with the outputs")
    assert "does not charge the outputs" in finding.sentences[-1]
    broken, damaged = damage(ted)
    report = evaluate(broken, CHRF)
    seg = next(s for s, (_, kind) in damaged.items() if kind == "doubled")
    evidence = checks.check_evidence(report, broken.systems[0], seg)
    text = " ".join(evidence.tables["checks"].frame["finding"])
    assert f"Reference {damaged[seg][0]} " in text and "repeats itself" in text
    assert "Another reference still vouches" in text or not every_reference_suspect(report)[seg]


@pytest.mark.parametrize("flood", ["loop", "letter"])
def test_two_outputs_with_the_same_flood_do_not_make_the_reference_unrelated(ted, flood):
    """Two systems write the same degenerate output (a three-word loop, or 3,000 × "a") on 5 % of the segments:
    they agree with each other perfectly and swamp the pooled outputs, yet the reference is not called unrelated
    there — the outputs' agreement is a median, and the sane outputs still agree with the reference (docs/triage.md,
    "Outputs that vouch for each other")."""
    evalset = ted.with_hyps(ted.hyps[ted.systems[:4]])
    hyps = evalset.hyps.copy()
    flooded = np.random.default_rng(7).choice(evalset.n_segments, 26, replace=False)
    for seg in flooded:
        words = str(hyps.iat[seg, 0]).split()[:3]
        text = " ".join((words * 200)[:300]) if flood == "loop" else "a" * 3000
        hyps.iat[seg, 0] = hyps.iat[seg, 1] = text
    rows = suspect_references(evaluate(evalset.with_hyps(hyps), CHRF))
    assert not rows[rows["seg"].isin(flooded)]["unrelated"].any()
    assert rows["seg"].nunique() <= 0.03 * evalset.n_segments  # not flagging everywhere instead


def test_a_clean_small_set_flags_nothing_and_no_reference_means_no_check():
    report = evaluate(load_folder(SAMPLE / "wmt21.en-de"), CHRF)
    assert suspect_segments(report).sum() <= 0.02 * report.evalset.n_segments
    free = evaluate(replace(report.evalset, refs=report.evalset.refs.iloc[:, :0], terms=None))
    assert "suspect_reference" not in checks.flag_frame(free).columns
    assert not reference_at_fault(free).any()


def test_modified_z_scores_fall_back_on_the_mean_deviation():
    np.testing.assert_allclose(modified_z_scores([1.0, 2.0, 3.0, 4.0, 100.0]),
                               (np.array([1.0, 2.0, 3.0, 4.0, 100.0]) - 3.0) / (1.0 * 1.4826))
    same = modified_z_scores([5.0, 5.0, 5.0, 7.0])  # MAD 0: the mean absolute deviation stands in
    assert same[3] == pytest.approx(2.0 / (0.5 * 1.253314))
    assert modified_z_scores([2.0, 2.0]).tolist() == [0.0, 0.0]
    assert np.isnan(modified_z_scores([np.nan, 1.0, 2.0, 3.0])[0])


def test_peer_agreement_is_the_consensus_counts(ted):
    """The outputs' agreement counts, characters (chrF consensus's statistics) and words (consensus's), are
    ``match``, ``hyp`` and ``ref`` of :mod:`mtdiag.metrics.consensus` counted pair by pair from the n-gram tables."""
    from mtdiag.triage.checks.suspect_reference import _peer_statistics

    report = evaluate(ted, CHRF)
    outputs = [("hyp", s) for s in ted.systems]
    k = len(outputs)
    for kind, order, index in (("char", 6, report.context.char_ngrams(6)), ("word", 2, report.context.word_ngrams(2))):
        stats = _peer_statistics(report, kind, order)
        assert stats.shape == (k, ted.n_segments, 3 * order)
        for n in range(1, order + 1):
            rows = index.rows(outputs, n).astype(np.int64)
            pairs = np.stack([sum(np.minimum(rows[s], rows[j]) for j in range(k) if j != s) for s in range(k)])
            totals = index.segment_totals(outputs, n)
            expected = (index.segment_sums(pairs, n), totals * (k - 1), totals.sum(axis=0) - totals)
            for stat, want in enumerate(expected):  # match, hyp, ref
                np.testing.assert_array_equal(stats[..., stat * order + n - 1], want)


def test_the_outputs_agreement_counts_clipped_matches_as_the_definition_does():
    """``Σ_{j≠s} min(c_s, c_j)`` per output and segment, counted by hand over every character n-gram of three
    outputs — one with a run of 40 ``a`` (an n-gram held 40 times) and one repeating a word — against the counts the
    check reads (chrF consensus's, from the n-gram table)."""
    from collections import Counter

    from mtdiag.core.evalset import evalset_from_lists
    from mtdiag.triage.checks.suspect_reference import _peer_statistics

    hyps = {"x": ["a" * 40 + "b", "the cat the cat"], "y": ["aaab", "the cat"], "z": ["b", "a dog the cat cat"]}
    report = evaluate(evalset_from_lists({"ref": ["ab", "the cat"]}, hyps), CHRF)
    stats = _peer_statistics(report, "char", 6)
    for n in range(1, 7):
        match = stats[..., n - 1]
        for seg in range(2):
            grams = {s: Counter("".join(hyps[s][seg].split())[i:i + n]
                                for i in range(max(len("".join(hyps[s][seg].split())) - n + 1, 0))) for s in hyps}
            for row, s in enumerate(hyps):
                expected = sum(min(count, grams[j][gram]) for gram, count in grams[s].items() for j in hyps if j != s)
                assert match[row, seg] == expected, (n, seg, s)


def test_the_word_check_poisson_tail_is_scipy_stats_without_importing_it():
    """The spun-reference check's Poisson tail P(X >= k) equals ``scipy.stats.poisson.sf(k - 1, mean)`` bit for bit
    (k from -2, means from 0), and running the check in a fresh process leaves scipy.stats unimported (its import
    was most of the check's time)."""
    import subprocess
    import sys

    from scipy.stats import poisson

    from mtdiag.triage.checks.reference_words import _at_least

    rng = np.random.default_rng(0)
    k = np.concatenate([np.arange(-2, 40), rng.integers(0, 200, 1000)]).astype(float)
    mean = np.concatenate([np.linspace(0, 30, 42), rng.uniform(0, 100, 1000)])
    assert np.array_equal(_at_least(k, mean), poisson.sf(k - 1, mean))
    code = ("import sys, numpy as np\n"
            "from mtdiag.triage.checks.reference_words import _at_least\n"
            "_at_least(np.array([3.0]), np.array([1.0]))\n"
            "print('scipy.stats' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO)
    assert out.stdout.strip() == "False"

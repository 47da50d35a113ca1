"""Spun and garbled references (``mtdiag.triage.checks.reference_words``, the ``spun``/``garbled`` reasons of
``suspect_reference``; docs/triage.md "Suspect references") and the queue's fallback that weighs the witnesses
(``mtdiag.triage.ranking.witness_badness``): planted runs on dev TED zh-en are flagged and named with the words that
gave them away, the rest of the set is not; the hand-made cases of the rules; no row whose only flag is
``suspect_reference`` on the first screen."""

from __future__ import annotations

import importlib.util
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

from mtdiag import views
from mtdiag.core.evalset import evalset_from_lists
from mtdiag.io import load_folder
from mtdiag.metrics.consensus import pairwise_agreement
from mtdiag.scoring.evaluate import Options, evaluate
from mtdiag.triage import checks, ranking
from mtdiag.triage.checks import reference_words
from mtdiag.triage.checks.suspect_reference import reference_at_fault, suspect_references
from tests.conftest import DEV, REPO

TED = DEV / "ted" / "zh-en"
CHRF = Options(metrics=("chrf",))


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("damaged_references", REPO / "benchmarks" / "damaged_references.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def ted():
    return load_folder(TED)


@pytest.mark.parametrize("kind", ["spun", "garbled"])
def test_a_planted_run_is_flagged_and_the_rest_of_the_set_is_not(bench, ted, kind):
    """A run of 30 consecutive segments of reference A spun (every listed common word swapped for its odd synonym,
    at least three a segment) or garbled (three words a segment with two letters swapped): ≥ 80 % of it flagged
    spun or garbled naming reference A, ≤ 2 % of the other segments flagged so."""
    result = bench.run_detection(ted, kind, 35)
    assert result["damaged"] >= 25
    assert result["found"] >= 0.8 and result["false"] <= 0.02, result


def test_the_explanation_quotes_the_words_that_gave_it_away(bench, ted):
    broken, damaged, reference = bench.planted_run(ted, "spun", np.random.default_rng([35, 0]))
    report = evaluate(broken, CHRF)
    rows = suspect_references(report)
    seg = int(rows.loc[rows["spun"] & rows["seg"].isin(damaged), "seg"].iloc[0])
    odd = reference_words.odd_words(report)
    mine = odd[(odd["seg"] == seg) & (odd["reference"] == reference)]
    planted = {new.lower() for table in [bench.ODD["en"]] for new in table.values()}
    assert len(mine) >= reference_words.OWN and set(mine["word"]) & planted
    finding = checks.REGISTRY["suspect_reference"]().explain(report, broken.systems[0], seg)
    text = " ".join(finding.sentences)
    assert f"Reference {reference} reads as spun" in text
    assert all(f"“{w}”" in text for w in mine.sort_values("pos")["word"].head(3))
    detail = views.segment_detail(report, broken.systems[0], seg)
    assert "reads as spun" in " ".join(detail.tables["reference"].frame["finding"])
    assert "spun or garbled runs" in views.REGISTRY["segments"].details["signals"](report)


def _set(refs: list[str], hyps: dict[str, list[str]], src: list[str] | None = None):
    return evaluate(evalset_from_lists({"A": refs}, hyps, src=src), CHRF)


def test_a_word_is_odd_only_when_nothing_supports_it_not_even_by_its_stem():
    """“quoth” (no output, no source, no system anywhere) is odd; “Reisepläne” is supported by an output's
    “Reiseplänen” (same stem, 7 of 10 letters); “Xinhua” by the source; “stated” by another segment's output (a
    system uses it)."""
    refs = ["he quoth that reisepläne were made", "the xinhua agency reported it", "she said so"]
    hyps = {s: ["he said that reiseplänen were made", "the agency reported it", "she stated so"]
            for s in ("a", "b", "c")}
    report = _set(refs, hyps, src=["x", "Xinhua 报道", "y"])
    odd = reference_words.odd_words(report)
    assert odd[["seg", "word"]].values.tolist() == [[0, "quoth"]]


def test_a_broken_word_is_told_from_another_word():
    refs = ["the comittee approved the new budget"]  # broken before its stem: not an inflection
    hyps = {s: ["the committee approved the new budget"] for s in ("a", "b", "c")}
    odd = reference_words.odd_words(_set(refs, hyps))
    assert odd["word"].tolist() == ["comittee"] and odd["near_miss"].tolist() == [True]


def test_pairwise_agreement_by_hand():
    """“a b c d” against “a b c e”: unigrams 3/4, bigrams 2/3 both ways → F1 = (3/4 + 2/3) / 2 = 70.83."""
    report = _set(["a b c d"], {"s1": ["a b c d"], "s2": ["a b c e"], "s3": ["q r s t"]})
    agreement = pairwise_agreement(report.context, np.array([0]))
    assert agreement.shape == (3, 3, 1)
    assert agreement[0, 1, 0] == pytest.approx(100 * (3 / 4 + 2 / 3) / 2) == agreement[1, 0, 0]
    assert agreement[0, 2, 0] == 0.0 and agreement[2, 2, 0] == 100.0


def test_the_witnesses_are_weighed_by_how_good_they_look_elsewhere():
    """Segments 0–8: the reference is trusted; ``good`` equals it, ``fair`` nearly, ``poor`` and ``bad`` far off.
    Segment 9: every reference suspect. There ``fair`` agrees with ``good`` only, ``poor`` with ``bad`` only: one
    vote each, both disagree with two of three witnesses alike; weighed, ``fair`` (backed by the better witness) is
    charged less than ``poor`` (backed by the worse). By hand: agreement = Σ_j exp((q_s − q_j)/0.1) F_sj / Σ_j
    exp((q_s − q_j)/0.1) from the systems' mean rates ``q`` on segments 0–8."""
    refs = [f"line {i} speaks of the river and the town {i}" for i in range(9)] + ["an unrelated other text"]
    good = refs[:9] + ["the mayor opened the new bridge on sunday"]
    fair = [r.replace("speaks", "talks") for r in refs[:9]] + ["the mayor opened the new bridge on monday"]
    poor = [f"row {i} water city" for i in range(9)] + ["a storm closed the old road at night"]
    bad = [f"nothing {i} here" for i in range(9)] + ["a storm closed the old road at noon"]
    report = evaluate(evalset_from_lists({"A": refs}, {"good": good, "fair": fair, "poor": poor, "bad": bad}))
    at_fault = pd.Series(False, index=report.segments.index)
    at_fault.loc[[(s, 9) for s in ("good", "fair", "poor", "bad")]] = True
    rate = ranking.error_rate(report)
    badness = ranking.witness_badness(report, rate, at_fault)
    assert badness[("fair", 9)] < badness[("poor", 9)]
    assert badness[~at_fault].isna().all()
    q = rate[~at_fault.to_numpy()].groupby(level="system").mean().reindex(report.evalset.systems).to_numpy()
    agreement = pairwise_agreement(report.context, np.array([9]))[:, :, 0]
    weights = np.exp((q[:, None] - q[None, :]) / ranking.WITNESS_SCALE) * ~np.eye(4, dtype=bool)
    mine = (weights * agreement).sum(axis=1) / weights.sum(axis=1)
    pooled = np.sort(ranking.view_scores(report, "consensus")[~at_fault.to_numpy()].to_numpy())
    expected = np.maximum(1 - np.searchsorted(pooled, mine) / len(pooled), 1 / len(pooled))
    np.testing.assert_allclose([badness[(s, 9)] for s in report.evalset.systems], expected)


def test_no_row_enters_the_first_screen_on_suspect_reference_alone():
    ranked = pd.DataFrame({"system": list("abcd"), "seg": [0, 1, 2, 3],
                           "flags": ["suspect_reference", "over_translation,suspect_reference", "", "suspect_reference"]})
    screen = ranking.first_screen(ranked, rows=2, per_source=1)
    assert screen["system"].tolist() == ["b", "c", "a", "d"]


def test_on_the_set_as_released_free_paraphrases_are_not_called_spun(ted):
    """TED zh-en's reference B is a second human translation (a free paraphrase of A's wording): at most 2 % of
    either reference's segments is flagged spun or garbled."""
    rows = suspect_references(evaluate(ted, CHRF))
    worded = rows[rows["spun"] | rows["garbled"]]
    for ref in ted.ref_names:
        assert (worded["reference"] == ref).sum() <= 0.02 * ted.n_segments


def test_with_one_system_no_reference_is_called_spun():
    """One output cannot vouch against its reference: spun and garbled need two or more systems."""
    refs = ["he quoth the twelvemonth was goodly", "thither went the younglings", "the abode was lofty"]
    report = _set(refs, {"only": ["he said the year was good", "there went the children", "the home was high"]})
    rows = suspect_references(report)
    assert not (rows["spun"] | rows["garbled"]).any()
    assert not reference_at_fault(report).any()


def test_a_set_without_documents_is_one_document(ted):
    flat = replace(ted, segments=ted.segments.drop(columns=[c for c in ("doc",) if c in ted.segments.columns]))
    assert reference_words._documents(flat).max() == 0

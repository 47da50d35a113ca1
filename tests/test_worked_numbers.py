"""Golden numbers: the paper examples of shared/spec/METRICS.md §1-2 and every case of worked-numbers.json."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from mtdiag.scoring.evaluate import Options, evaluate
from mtdiag.core.evalset import evalset_from_lists
from tests.conftest import WORKED_NUMBERS, read_lines, spec_path

TOL = 1e-9


def score_pair(candidate: str, reference: str, **options) -> dict[str, float]:
    evalset = evalset_from_lists({"ref": [reference]}, {"sys": [candidate]})
    report = evaluate(evalset, Options(metrics=("otem", "utem", "waft", "neva"), **options))
    return report.segments.loc[("sys", 0)].to_dict()


# Forsbom 2003 (WAFT/NEVA), the table in METRICS.md §2: 13a + lower-case
FORSBOM_EXAMPLES = [
    ("check valve", "Check the check valve.", "Check the non-return valve.", 0.8, 0.325),
    ("tensioners", "Alternator and belt tensioners", "Alternator and belt tensioner", 0.75, 0.47916666666666663),
    ("solenoid", "Solenoid valves for injection timing", "Injection timing solenoid valves", 0.0, 0.325),
    ("cable harness", "Cable harness for fuel pump", "Fuel pump cable harness", 0.0, 0.325),
    ("bottom cylinder", "Bottom cylinder", "Cylinder bottom", 0.0, 0.5),
    ("sealing ring", "Sealing ring", "Seal", 0.0, 0.0),
    ("number", "Number", "Number", 1.0, 1.0),
]


@pytest.mark.parametrize("label,candidate,reference,waft,neva", FORSBOM_EXAMPLES, ids=[e[0] for e in FORSBOM_EXAMPLES])
def test_waft_neva_reproduce_forsbom_examples(label, candidate, reference, waft, neva):
    scores = score_pair(candidate, reference)
    assert scores["waft"] == pytest.approx(waft, abs=TOL)
    assert scores["neva"] == pytest.approx(neva, abs=TOL)


@pytest.mark.parametrize("label", ["solenoid", "cable harness", "bottom cylinder"])
def test_word_order_examples_have_neva_above_waft(label):
    _, candidate, reference, _, _ = next(e for e in FORSBOM_EXAMPLES if e[0] == label)
    scores = score_pair(candidate, reference)
    assert scores["neva"] > scores["waft"]


def test_neva_check_valve_needs_13a_and_lowercase():
    """METRICS.md §0: whitespace split gives 0.2708 for the check-valve example; case-sensitive 0.100 for solenoid."""
    assert score_pair("Check the check valve.", "Check the non-return valve.", tokenize="none")["neva"] == pytest.approx(
        0.2708333333333333, abs=1e-4)
    assert score_pair("Solenoid valves for injection timing", "Injection timing solenoid valves",
                      lowercase=False)["neva"] == pytest.approx(0.1, abs=1e-3)


PEACE_REFS = {  # Yang et al. 2018, section 1 (tokenised and lower-cased as printed)
    "r1": "he urged that the united states maintain a clear notion of the peace in the middle east and play its due "
          "role in this so that the un resolutions can be actually implemented.",
    "r2": "he urged u.s. to adopt a clear position in the middle east peace process and play its role accordingly. "
          "this is necessary for a realistic execution of united nations 'resolutions.",
    "r3": "he called for us to make clear its views on mideast peace and play its role to ensure related us "
          "resolutions be enforced.",
    "r4": "he called on the us to have a clear cut opinion on the middle east peace, and play an important role on it "
          "and bring concrete implementation of relative un resolutions.",
}
PEACE_CANDIDATES = {
    "candidate1": "he called on the united states to have a clear view on peace in the middle east peace and play a role "
                  "in this regard so that the relevant un resolutions can be effectively implemented .",
    "candidate2": "he called on the united states to have a clear view on in the middle east and play a role in this "
                  "regard so that the relevant un resolutions can be effectively implemented .",
}


def test_otem_utem_reproduce_peace_example():
    """Yang et al. 2018 §1/§3: in Candidate 1 "peace" has Count_cand 2 and Count_ref 1 in every reference -> over 1;
    Candidate 2 omits it, Count_ref 1 -> under 1 against every reference."""
    evalset = evalset_from_lists({k: [v] for k, v in PEACE_REFS.items()}, {k: [v] for k, v in PEACE_CANDIDATES.items()})
    report = evaluate(evalset, Options(metrics=("otem", "utem")))
    over = report.evidence("otem", "candidate1").query("order == 1 and ngram == 'peace'")
    assert over[["hyp_count", "ref_count", "over"]].values.tolist() == [[2, 1, 1]]
    assert report.evidence("otem", "candidate2").query("ngram == 'peace'").empty
    under = report.evidence("utem", "candidate2").query("order == 1 and ngram == 'peace'")
    assert under[["ref", "ref_count", "hyp_count", "under"]].values.tolist() == [
        [ref, 1, 0, 1] for ref in PEACE_REFS]
    assert report.evidence("utem", "candidate1").query("ngram == 'peace'").empty
    # the repeat raises OTEM's unigram over-match ratio mp_1 (OTEM-2 itself is 0: no bigram is over-matched, so the
    # geometric mean collapses, as in the reference script); the omission raises UTEM
    otem = report.metric("otem")
    mp1 = {c: otem.mp_per_order(report.result("otem", c).stats[0])[0] for c in PEACE_CANDIDATES}
    assert mp1["candidate1"] > mp1["candidate2"]
    assert report.corpus.loc["candidate1", "otem"] == 0.0
    assert report.corpus.loc["candidate2", "utem"] > report.corpus.loc["candidate1", "utem"]



def test_one_segments_over_and_under_evidence_is_the_sets_rows_of_it_dtypes_included_also_when_empty():
    """The OTEM/UTEM evidence of one segment (what a segment's page and the report's worst segments show) is the set's
    evidence rows of that segment, column for column and dtype for dtype, and a segment with none keeps the columns'
    dtypes (the text columns pandas' string dtype: an empty order once made them ``object``)."""
    second = {"r1": "the cat sat on the mat .", "r2": "a cat sat on a mat .", "r3": "the cat is on the mat .",
              "r4": "there is a cat on the mat ."}
    evalset = evalset_from_lists({k: [v, second[k]] for k, v in PEACE_REFS.items()},
                                 {"candidate1": [PEACE_CANDIDATES["candidate1"], "the the cat sat on the mat ."],
                                  "candidate2": [PEACE_CANDIDATES["candidate2"], "the cat sat on the mat ."]})
    report = evaluate(evalset, Options(metrics=("otem", "utem")))
    for name in ("otem", "utem"):
        metric = report.metric(name)
        for system in PEACE_CANDIDATES:
            whole = report.evidence(name, system)
            for seg in (0, 1):
                one = metric.evidence(report.context, system, segments=[seg])
                pd.testing.assert_frame_equal(one, whole[whole["seg"] == seg].reset_index(drop=True))
            none = metric.evidence(report.context, system, segments=[])
            assert none.empty and none.dtypes.to_dict() == whole.dtypes.to_dict()
    assert not metric.evidence(report.context, "candidate2", segments=[1]).empty  # "a", "there is" missing


WORKED = json.loads(WORKED_NUMBERS.read_text(encoding="utf-8"))["cases"]


def _case_id(case: dict) -> str:
    return f"{case['hyp'].split('/')[-1]}-{case['tokenize']}-{'lc' if case['lowercase'] else 'cased'}"


@pytest.mark.parametrize("case", WORKED, ids=[_case_id(c) for c in WORKED])
def test_worked_numbers_through_api(case):
    refs = {f"r{i}": read_lines(spec_path(path)) for i, path in enumerate(case["refs"])}
    evalset = evalset_from_lists(refs, {"sys": read_lines(spec_path(case["hyp"]))})
    # the worked numbers were computed on the texts as written (the reference scripts don't normalise typography)
    report = evaluate(evalset, Options(tokenize=case["tokenize"], lowercase=case["lowercase"], typography=False,
                                       metrics=("otem", "utem", "waft", "neva")))
    for metric, expected in case["corpus"].items():
        assert report.corpus.loc["sys", metric] == pytest.approx(expected, abs=TOL), metric
    for metric, expected in case["segments_first5"].items():
        np.testing.assert_allclose(report.segments.loc["sys", metric].to_numpy()[:5], expected, atol=TOL, rtol=0)
    if "segments_otem_zero" in case:
        assert int((report.segments.loc["sys", "otem"] == 0).sum()) == case["segments_otem_zero"]

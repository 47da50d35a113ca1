"""Human scores from error rows (``mtdiag.io.error_weights``): the default scheme reproduces the ``mqm.seg.tsv`` of
Google's WMT MQM releases on every dev set that has both files; each rule of the scheme on worked rows (a Source
issue and a Creative Reinterpretation weigh nothing, as in the WMT23 releases; a WMT21 Source error weighs its
severity); another scheme and a user's weights file; every bad input is one line naming the file and the line."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from mtdiag.core.errors import InputError
from mtdiag.io import read_error_annotations, read_human_scores
from mtdiag.io.error_weights import ESA, SCHEMES, WMT, error_weights, read_error_weights, segment_scores

DEV = Path(__file__).parent / "data" / "dev"
BOTH = sorted(p.parent for p in DEV.glob("*/*/mqm.errors.tsv") if (p.parent / "mqm.seg.tsv").is_file())
HEADER = "system\tseg_id\trater\ttarget\tcategory\tseverity"


def _errors(*rows: str) -> tuple[str, bytes]:
    return "errors.tsv", ("\n".join([HEADER, *rows]) + "\n").encode()


def _scores(*rows: str, **kwargs) -> dict[tuple[str, int], float]:
    scores, _ = read_error_annotations(_errors(*rows), **kwargs)
    return {(r.system, r.seg + 1): r.score for r in scores.itertuples()}


def test_there_is_a_dev_set_with_error_rows_and_segment_scores():
    assert DEV / "ted" / "zh-en" in BOTH


@pytest.mark.parametrize("folder", BOTH, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_scores_from_error_rows_equal_the_releases_segment_scores(folder):
    n = sum(1 for _ in open(folder / "src.txt", encoding="utf-8"))
    derived = read_human_scores(folder / "mqm.errors.tsv", n_segments=n)
    official = read_human_scores(folder / "mqm.seg.tsv", n_segments=n)
    merged = official.merge(derived, on=["system", "seg"], how="outer", suffixes=("_official", "_derived"))
    assert merged["score_derived"].notna().all() and merged["score_official"].notna().all()  # the same outputs rated
    assert len(merged) == len(official) > 1000
    np.testing.assert_allclose(merged["score_derived"], merged["score_official"], rtol=0, atol=1e-6)


def test_wmt_rules_on_worked_rows():
    got = _scores(
        "A\t1\tr1\tx\tAccuracy/Mistranslation\tMajor",
        "A\t1\tr1\tx\tSource issue\tMajor",                      # WMT22+: the source's fault, 0
        "A\t1\tr2\tx\tAccuracy/Creative Reinterpretation\tMajor",  # intent kept, 0
        "A\t1\tr3\tx\tFluency/Punctuation\tMinor",               # 0.1
        "B\t1\tr1\tx\tNon-translation!\tMajor",                  # 25 ("!" as Google's template writes it)
        "B\t2\tr1\tx\tSource error\tMajor",                      # WMT21 name: weighed by its severity, as released
        "B\t2\tr1\tx\tFluency/Punctuation\tMajor",               # a major punctuation error is a major error
        "C\t1\tr1\tx\tFound\tHOTW-test",                         # a rater attention check, no error
        "C\t2\tr1\tx\tStyle/Awkward\tTrivial",                   # 0.1
        "C\t3\tr1\tx\tAccuracy/Omission\tNeutral",               # 0
        "C\t4\tr1\tx\tAccuracy/Omission\tCritical",              # 25
        "C\t5\tr1\tx\tNo-error\tNo-error",
    )
    assert got[("A", 1)] == pytest.approx(-(5 + 0 + 0.1) / 3)  # three raters, one clean by its weights
    assert got[("B", 1)] == -25.0 and got[("B", 2)] == -10.0
    assert [got[("C", k)] for k in range(1, 6)] == [0.0, pytest.approx(-0.1), 0.0, -25.0, 0.0]


def test_source_issue_and_reinterpretation_rows_make_the_difference_the_issue_reported():
    """Three raters: one marks a major and a minor Source issue — counted, the score is 6.67 more negative than
    the release's (issue 35's WMT23 zh-en outputs)."""
    rows = ["S\t1\tr1\tx\tSource issue\tMajor", "S\t1\tr1\tx\tSource issue\tMajor", "S\t1\tr1\tx\tSource issue\tMajor",
            "S\t1\tr1\tx\tSource issue\tMajor", "S\t1\tr2\tx\tNo-error\tNo-error", "S\t1\tr3\tx\tNo-error\tNo-error"]
    assert _scores(*rows)[("S", 1)] == 0.0
    assert _scores(*rows, error_weights=ESA)[("S", 1)] == pytest.approx(-20 / 3)


def test_only_weighed_rows_are_error_spans():
    _, spans = read_error_annotations(_errors("A\t1\tr1\t<v>x</v>\tSource issue\tMajor",
                                              "A\t1\tr1\t<v>x</v>\tStyle/Awkward\tMinor"))
    assert spans["category"].tolist() == ["Style/Awkward"]


def test_most_specific_rule_wins():
    assert WMT.weight("Fluency/Punctuation", "minor") == 0.1
    assert WMT.weight("fluency / punctuation / quotes", "MINOR") == 0.1  # a sub-category, any case and spacing
    assert WMT.weight("Fluency/Punctuation", "major") == 5.0
    assert WMT.weight("Non-translation", "minor") == 25.0  # the category rule beats the severity rule
    assert WMT.weight("Source issue/garbled", "minor") == 0.0
    assert ESA.weight("Fluency/Punctuation", "minor") == 1.0 and ESA.weight("Source issue", "major") == 5.0
    assert set(SCHEMES) == {"wmt", "esa"} and error_weights(None) is WMT and error_weights("esa") is ESA


def test_segment_scores_is_the_one_scoring_function():
    rows = pd.DataFrame({"system": ["A", "A", "A"], "seg": [0, 0, 0], "rater": ["r1", "r1", "r2"],
                         "category": ["Accuracy/Mistranslation", "Fluency/Punctuation", "No-error"],
                         "severity": ["Major", "Minor", "No-error"]})
    assert segment_scores(rows)["score"].tolist() == [pytest.approx(-2.55)]
    assert segment_scores(rows, ESA)["score"].tolist() == [-3.0]


def test_unknown_severity_names_the_file_and_line():
    with pytest.raises(InputError, match=r'errors.tsv: line 3: severity "Severe" \(category "Style/Awkward"\) has '
                                         r"no weight in the wmt weights; they weigh the severities"):
        read_error_annotations(_errors("A\t1\tr1\tx\tNo-error\tNo-error", "A\t2\tr1\tx\tStyle/Awkward\tSevere"))


def test_a_users_weights_file(tmp_path):
    weights = tmp_path / "weights.tsv"
    weights.write_text("severity\tcategory\tweight\nmajor\t*\t10\nminor\t\t2\n*\tStyle\t0.5\nno-error\t*\t0\n",
                       encoding="utf-8")
    scheme = read_error_weights(weights)
    assert scheme.name == str(weights)
    got = _scores("A\t1\tr1\tx\tAccuracy/Mistranslation\tMajor", "A\t1\tr1\tx\tStyle/Awkward\tMajor",
                  "A\t2\tr1\tx\tFluency/Grammar\tMinor", "A\t3\tr1\tx\tNo-error\tNo-error", error_weights=scheme)
    assert got == {("A", 1): -10.5, ("A", 2): -2.0, ("A", 3): 0.0}
    assert list(scheme.table().columns) == ["severity", "category", "weight", "source"]


@pytest.mark.parametrize("body, message", [
    ("severity\tweight\nmajor\t5\n", r"w.tsv: line 1: missing column category"),
    ("severity\tcategory\tweight\nmajor\t*\tfive\n", r'w.tsv: line 2: weight "five" is not a number'),
    ("severity\tcategory\tweight\nmajor\t*\t-1\n", r'w.tsv: line 2: weight "-1" must be a finite number of at least 0'),
    ("severity\tcategory\tweight\nmajor\t*\tinf\n", r'w.tsv: line 2: weight "inf" must be a finite number'),
    ("severity\tcategory\tweight\nMajor\tStyle\t5\nmajor\tstyle\t4\n",
     r'w.tsv: line 3: a second rule for severity "major" and category "style" \(the first is on line 2\)'),
    ("severity\tcategory\tweight\n", r"w.tsv: the file has a header \(severity, category, weight\) but no rows"),
])
def test_bad_weights_files_are_one_line_naming_file_and_line(body, message):
    with pytest.raises(InputError, match=message):
        read_error_weights(("w.tsv", body.encode()))


def test_cli_takes_a_scheme_or_a_weights_file(tmp_path, capsys):
    from mtdiag import cli

    folder = tmp_path / "set"
    folder.mkdir()
    (folder / "src.txt").write_text("a b\nc d\n", encoding="utf-8")
    (folder / "ref.A.txt").write_text("a b\nc d\n", encoding="utf-8")
    (folder / "sys1.txt").write_text("a b\nc e\n", encoding="utf-8")
    (folder / "sys2.txt").write_text("a x\nc d\n", encoding="utf-8")
    errors = tmp_path / "errors.tsv"
    errors.write_text("\n".join([HEADER, "sys1\t2\tr1\tx\tSource issue\tMajor", "sys1\t1\tr1\tx\tNo-error\tNo-error",
                                 "sys2\t1\tr1\tx\tStyle/Awkward\tMinor", "sys2\t2\tr1\tx\tNo-error\tNo-error"]) + "\n",
                      encoding="utf-8")
    means = {}
    for given in (None, "esa"):
        flags = ["--error-weights", given] if given else []
        assert cli.main(["triage", "--testset", str(folder), "--human", str(errors), "--format", "json",
                         "--metrics", "chrf", *flags]) == 0
        rows = __import__("json").loads(capsys.readouterr().out)
        means[given] = {(r["system"], r["seg_id"]): r["human"] for r in rows}
    assert means[None][("sys1", 2)] == 0.0 and means["esa"][("sys1", 2)] == -5.0
    assert cli.main(["triage", "--testset", str(folder), "--error-weights", "nonsense"]) != 0
    assert "--error-weights 'nonsense': neither a scheme (wmt, esa) nor a weights file" in capsys.readouterr().err


# ------------------------------------------------------------------------------- work, limits and finite weights


def test_a_weight_is_a_lookup_not_a_scan_of_the_rules(monkeypatch):
    """1,000 rules and 200 distinct categories: each row's category is normalised level by level once, never
    each rule again per row (a scan of every rule per call cost 5,000 rules x 2,000 categories 42.8 s of CPU)."""
    import importlib

    module = importlib.import_module("mtdiag.io.error_weights")

    rules = tuple(module.WeightRule("minor", f"Family{i}/Kind", 1.0 + i % 7) for i in range(1000))
    scheme = module.ErrorWeights("many", "a thousand rules", rules)
    calls = []
    real = module.normal_name
    monkeypatch.setattr(module, "normal_name", lambda text: calls.append(text) or real(text))
    categories = [f"Family{i * 5}/Kind/Detail" for i in range(200)]
    weights = scheme.weights(categories, ["Minor"] * 200)
    assert weights.tolist() == [1.0 + (i * 5) % 7 for i in range(200)]
    assert len(calls) <= 4 * len(categories)  # a few per row, none per rule and row


def test_weights_are_bounded_so_a_sum_of_them_stays_finite():
    """Weights near the largest float (1.7e308) summed to -inf human scores: a weight above the largest a scheme
    may give is one line naming the file and the line."""
    body = "severity\tcategory\tweight\nminor\t*\t1\nmajor\t*\t1.7e308\n"
    with pytest.raises(InputError, match=r'w.tsv: line 3: weight "1.7e308" must be a finite number of at least 0 '
                                         r"and at most 1,000,000"):
        read_error_weights(("w.tsv", body.encode()))
    assert read_error_weights(("w.tsv", body.replace("1.7e308", "1000000").encode())).weight("x", "major") == 1e6


def test_a_weights_file_over_the_rule_limit_is_refused_before_it_is_parsed():
    """1.5 million rules were refused only after 32.6 s and 1.38 GB: the rule count is a limit, counted on the
    bytes before anything is parsed."""
    import tracemalloc

    from mtdiag.io.error_weights import MAX_RULES

    rules = "".join(f"minor\tCategory{i}\t1\n" for i in range(1_500_000)).encode()
    body = b"severity\tcategory\tweight\n" + rules
    tracemalloc.start()
    try:
        with pytest.raises(InputError) as caught:
            read_error_weights(("w.tsv", body))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert caught.value.file == "w.tsv" and caught.value.line == MAX_RULES + 2
    assert f"at most {MAX_RULES:,} rules" in str(caught.value)
    assert peak < 8 * 2**20  # the bytes are the caller's: refused on their line count, nothing parsed
    just = b"severity\tcategory\tweight\n" + rules[:rules.index(b"Category%d\t" % MAX_RULES) - len(b"minor\t")]
    assert len(read_error_weights(("w.tsv", just)).rules) == MAX_RULES

"""Human error statistics (issue 21, part 5): counts per system × category and severity, per rater with the mean
MQM score, and a Holm-corrected exact paired permutation test per category — on a hand-made case with
known numbers, on the ted/zh-en dev set against a direct count of its file, and on the Human page (AppTest)."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

from mtdiag.analysis import errorstats
from mtdiag.core.evalset import evalset_from_lists
from mtdiag.io import load_folder, weighed, with_error_annotations

from tests.conftest import DEV
from tests.test_app import (  # noqa: F401  (the autouse fixtures of the dashboard tests apply here too)
    clear_caches, no_data_argument, start, table_with, visit)

TED = DEV / "ted" / "zh-en"
N = 10
HEADER = "system\tdoc\tdoc_id\tseg_id\trater\tsource\ttarget\tcategory\tseverity"


def _mqm() -> str:
    """A has a major Accuracy/Mistranslation error on each of 10 segments, B none; each has one minor
    Fluency/Grammar error on segment 1; r1 rates segments 1-5, r2 segments 6-10; the rest is No-error."""
    rows = [HEADER]
    for system in ("A", "B"):
        for seg in range(1, N + 1):
            rater = "r1" if seg <= 5 else "r2"
            errors = []
            if system == "A":
                errors.append("Accuracy/Mistranslation\tMajor")
            if seg == 1:
                errors.append("Fluency/Grammar\tMinor")
            for error in errors or ["No-error\tNo-error"]:
                rows.append(f"{system}\td\t1\t{seg}\t{rater}\ts\t<v>x</v> y\t{error}")
    return "\n".join(rows) + "\n"


@pytest.fixture(scope="module")
def evalset():
    base = evalset_from_lists({"ref": ["x y"] * N}, {"A": ["x y"] * N, "B": ["x y"] * N})
    return weighed(with_error_annotations(base, ("mqm.errors.tsv", _mqm().encode())))


def test_counts_per_system_category_and_severity(evalset):
    table = errorstats.category_counts(evalset)
    got = {(r.system, r.category): (r.errors, r.segments, r.per_100, r.major, r.minor) for r in table.itertuples()}
    assert got == {("A", "Accuracy/Mistranslation"): (10, 10, 100.0, 10, 0), ("A", "Fluency/Grammar"): (1, 10, 10.0, 0, 1),
                   ("B", "Fluency/Grammar"): (1, 10, 10.0, 0, 1)}
    top = errorstats.category_counts(evalset, "top")
    assert sorted(set(top["category"])) == ["Accuracy", "Fluency"]


def test_per_rater_counts_and_mean_mqm_score(evalset):
    table = errorstats.rater_table(evalset).set_index(["rater", "system"])
    # A/r1: 5 segments, 5 majors + 1 minor -> -(25 + 1) / 5; B/r1: one minor on 5 rated segments -> -1/5
    assert table.loc[("r1", "A"), ["segments", "errors"]].tolist() == [5, 6]
    assert table.loc[("r1", "A"), "mqm"] == pytest.approx(-5.2)
    assert table.loc[("r1", "B"), "mqm"] == pytest.approx(-0.2) and table.loc[("r1", "B"), "per_100"] == 20.0
    assert table.loc[("r2", "B"), ["segments", "errors", "mqm"]].tolist() == [5, 0, 0.0]


def test_significance_is_the_exact_permutation_test_corrected_with_holm(evalset):
    table = errorstats.category_significance(evalset, "full")
    rows = table.set_index("category")
    # Accuracy: A - B = 1 on every segment; the exact sign-flip p is 2 / 2^10 (only the two all-equal patterns)
    exact = sum(abs(sum(s)) >= N for s in itertools.product((-1, 1), repeat=N)) / 2 ** N
    assert exact == pytest.approx(2 / 1024)
    p = rows.loc["Accuracy/Mistranslation", "p"]
    assert p == pytest.approx(exact, rel=1e-12)
    assert rows.loc["Fluency/Grammar", "p"] == 1.0  # the same counts: every pattern is as extreme
    # Holm over the two tests: the smaller p doubled, the larger at least that
    assert rows.loc["Accuracy/Mistranslation", "p_holm"] == pytest.approx(2 * p)
    assert rows.loc["Fluency/Grammar", "p_holm"] == 1.0
    assert rows.loc["Accuracy/Mistranslation", "significant"] and not rows.loc["Fluency/Grammar", "significant"]
    assert rows.loc["Accuracy/Mistranslation", ["mean_a", "mean_b", "delta", "segments"]].tolist() == [1.0, 0.0, 1.0, N]
    assert table.attrs["tests"] == 2 and table.attrs["correction"] == "holm"


@pytest.mark.parametrize("seed", range(40))
def test_the_sign_flip_p_equals_counting_every_sign_pattern(seed):
    rng = np.random.default_rng(seed)
    diff = rng.integers(-3, 4, size=int(rng.integers(1, 13))) / rng.choice([1, 2, 3])  # counts over 1-3 raters
    observed = abs(diff.sum())
    patterns = np.array(list(itertools.product((-1, 1), repeat=len(diff))))
    exact = np.mean(np.abs(patterns @ diff) >= observed - 1e-9)
    assert errorstats.sign_flip_p(diff) == pytest.approx(exact, rel=1e-12, abs=1e-15)


def test_the_sign_flip_p_has_no_sampling_floor():
    assert errorstats.sign_flip_p(np.ones(40)) == pytest.approx(2 / 2 ** 40)  # far below 1/10,001
    assert errorstats.sign_flip_p(np.zeros(5)) == 1.0
    assert errorstats.sign_flip_p(np.array([0.5, 1 / 7, 1.0])) == pytest.approx(0.25)  # whole at scale 14: 2 of 8


def test_ted_zh_en_category_counts_equal_a_direct_count_of_the_file():
    evalset = weighed(load_folder(TED))
    direct = pd.read_csv(f"{TED}/mqm.errors.tsv", sep="\t", quoting=3, dtype=str, keep_default_na=False)
    errors = direct[(direct["category"] != "No-error") & ~direct["severity"].isin(["No-error", "Neutral"])]
    assert set(errors["system"]) - set(evalset.systems) == {"ref.A", "ref.B"}  # rated references: no loaded system
    errors = errors[errors["system"].isin(evalset.systems)]
    expected = errors.groupby(["system", "category"]).size()
    table = errorstats.category_counts(evalset).set_index(["system", "category"])
    assert table["errors"].sort_index().to_dict() == expected.sort_index().to_dict()
    by_severity = errors.assign(severity=errors["severity"].str.lower()).groupby(["system", "category", "severity"]).size()
    for (system, category, severity), count in by_severity.items():
        assert table.loc[(system, category), severity] == count
    assert int(table["errors"].sum()) == len(errors) == 4740


def test_the_human_page_shows_the_error_statistics(tmp_path, monkeypatch):
    folder = tmp_path / "small.en-de"
    folder.mkdir()
    files = {"ref.txt": ["x y"] * N, "test.en-de.A.txt": ["x y"] * N, "test.en-de.B.txt": ["x y"] * N}
    for name, lines in files.items():
        (folder / name).write_text("\n".join(lines) + "\n", encoding="utf-8")
    (folder / "mqm.errors.tsv").write_text(_mqm(), encoding="utf-8")
    monkeypatch.setenv("MTDIAG_DATA", str(folder))
    at = start()
    visit(at, "human").run()
    at.segmented_control(key="hl_section").set_value("errors").run()
    assert not at.exception, [e.value for e in at.exception]
    counts = table_with(at, "category", "errors", "per_100")  # top-level categories first (the view's default)
    assert counts[["system", "category", "errors"]].values.tolist() == [
        ["A", "Accuracy", 10], ["A", "Fluency", 1], ["B", "Fluency", 1]]
    assert table_with(at, "rater", "mqm")["errors"].tolist() == [6, 1, 5, 0]
    significance = table_with(at, "p_holm", "system_a")
    assert significance["significant"].tolist() == [True, False]
    assert {b.label for b in at.get("download_button")} >= {"CSV", "Excel"}


def _three_systems():
    """A has a major Accuracy/Mistranslation and a minor Terminology/Inconsistent error on each of 10 segments; A, B
    and C each a minor Fluency/Grammar error on segment 1; one rater."""
    rows = [HEADER]
    for system in ("A", "B", "C"):
        for seg in range(1, N + 1):
            errors = ["Accuracy/Mistranslation\tMajor", "Terminology/Inconsistent\tMinor"] if system == "A" else []
            errors += ["Fluency/Grammar\tMinor"] if seg == 1 else []
            for error in errors or ["No-error\tNo-error"]:
                rows.append(f"{system}\td\t1\t{seg}\tr1\ts\t<v>x</v> y\t{error}")
    base = evalset_from_lists({"ref": ["x y"] * N}, {s: ["x y"] * N for s in "ABC"})
    return with_error_annotations(base, ("mqm.errors.tsv", ("\n".join(rows) + "\n").encode()))


def test_the_page_and_the_report_count_tests_and_pairs_of_systems_alike():
    """3 systems are 3 pairs. At the top level: Accuracy and Terminology tested for A-B and A-C (B-C has no error of
    them: not tested), Fluency for all 3 pairs -> 7 tests; the four of A (p = 2/1024 each) survive Holm (x7 = 0.014):
    4 significant tests in 2 of the 3 pairs — the report said "4 pair(s) of systems differ" and the page, at another
    default level, "... of them"."""
    from mtdiag.core.highlight import escape
    from mtdiag.report.html_report import html_report
    from mtdiag.scoring.evaluate import Options, evaluate
    from mtdiag.views import REGISTRY, human

    report = evaluate(_three_systems(), Options(metrics=("chrf",)))
    view = REGISTRY["human"]
    chosen = view.resolve(report)
    assert chosen["level"] == "top"  # one default, the view's, for the page and the report
    table = view.table("error_significance")
    frame = table.make(report, chosen)
    sentence = ("Significant at p_holm < 0.05: 4 of the 7 tests (one per pair of systems and top-level category with "
                "an error), in 2 of the 3 pairs of systems.")
    assert human.significance_summary(frame) == sentence
    assert table.describe(report, chosen, frame).endswith(sentence)  # the page's caption
    page = html_report(report)
    assert f"<p>{escape(sentence)} Every pair and category below.</p>" in page
    assert "pair(s)" not in page and "of them" not in page

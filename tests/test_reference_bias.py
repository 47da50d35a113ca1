"""Reference bias (``mtdiag.analysis.reference_bias``, docs/triage.md "Reference bias"): a hand-computed Fisher test
and Holm correction; a reference planted from one system's output on dev TED zh-en names that system and no other,
the set as released names none; the Overview's table and warning, ``mtdiag view overview --table reference_bias``,
``mtdiag score``'s stderr, the HTML report, the Segments page's *Why*, the segment detail and the Compare note."""

from __future__ import annotations

import importlib.util
import json
import math
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

from mtdiag import views
from mtdiag.analysis import reference_bias
from mtdiag.cli import main
from mtdiag.core.evalset import evalset_from_lists
from mtdiag.io import load_folder
from mtdiag.scoring.evaluate import Options, evaluate
from tests.conftest import DEV, REPO

TED = DEV / "ted" / "zh-en"
SCORES = Options(metrics=("chrf", "ter"))


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("damaged_references", REPO / "benchmarks" / "damaged_references.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _tiny():
    """20 segments, four systems: ``copied`` equals the reference on segments 0–9, every other output differs."""
    n = 20
    ref = [f"the reference sentence number {i} says something about topic {i % 5}" for i in range(n)]
    other = [f"an output for line {i} that reads quite unlike it" for i in range(n)]
    hyps = {"copied": [ref[i] if i < 10 else other[i] for i in range(n)],
            "b": [f"another rendering {i} of its source, free" for i in range(n)],
            "c": [f"a third version {i} with other words" for i in range(n)],
            "d": [f"yet one more output {i} of that line" for i in range(n)]}
    return evalset_from_lists({"A": ref}, hyps)


def test_fisher_and_holm_by_hand():
    """copied: 10 of 20 near copies, the others 0 of 60. P(X ≥ 10), X hypergeometric (80 pairs, 10 near copies,
    the system's 20 drawn) = C(10,10) · C(70,10) / C(80,20); Holm over four tests: × 4."""
    table = reference_bias.reference_bias(evaluate(_tiny(), SCORES)).set_index("system")
    p = math.comb(70, 10) / math.comb(80, 20)
    assert table.at["copied", "near_copies"] == 10 and table.at["copied", "identical"] == 10
    assert table.at["copied", "p"] == pytest.approx(min(1.0, 4 * p), rel=1e-9)
    assert table.at["copied", "share"] == 0.5 and table.at["copied", "others_share"] == 0.0
    assert table.at["copied", "ratio"] == np.inf and bool(table.at["copied", "biased"])
    assert not table.drop("copied")["biased"].any() and (table.drop("copied")["p"] == 1.0).all()
    assert list(table.columns) == list(reference_bias.COLUMNS)[1:]


def test_the_effect_floor_keeps_a_significant_but_small_difference_unflagged():
    """200 segments: system a copies the reference on 40 (20 %), b, c and d on 20 each (10 %) — significant
    (Holm-corrected p < 0.05) but twice the others' share, under the floor of 2.5: not biased."""
    n = 200
    ref = [f"reference line {i} tells about matter {i % 7} at length" for i in range(n)]
    copies = {"a": set(range(40)), "b": set(range(40, 60)), "c": set(range(60, 80)), "d": set(range(80, 100))}
    hyps = {s: [ref[i] if i in mine else f"system {s} says line {i} its own way entirely" for i in range(n)]
            for s, mine in copies.items()}
    table = reference_bias.reference_bias(evaluate(evalset_from_lists({"A": ref}, hyps), SCORES)).set_index(
        "system")
    assert table.at["a", "near_copies"] == 40 and table.at["a", "ratio"] == pytest.approx(2.0)
    assert table.at["a", "p"] < reference_bias.ALPHA
    assert not table["biased"].any()


def test_a_reference_planted_from_one_system_names_that_system_and_no_other(bench):
    """Dev TED zh-en (13 systems, references A and B): reference A replaced on 25 % of its segments by one system's
    output with one word changed → that system alone is biased; the set as released names none."""
    evalset = load_folder(TED)
    released, system, planted = bench.bias_round(evalset, 35)
    assert released == [] and planted == [system]


@pytest.fixture(scope="module")
def planted(bench):
    broken, system = bench.favoured(load_folder(TED), np.random.default_rng([35, 43]))
    return evaluate(broken), system


def test_the_overview_warns_and_offers_the_rankings_without_those_segments(planted):
    report, system = planted
    view = views.REGISTRY["overview"]
    chosen = view.resolve(report)
    frames = view.frames(report, chosen)
    table = frames["reference_bias"].set_index("system")
    assert table["biased"].tolist().count(True) == 1 and bool(table.at[system, "biased"])
    assert table.at[system, "reference"] == "A"
    warning = view.details["bias_warning"](report)
    assert warning.startswith(f"The reference favours {system} (") and "reference A" in warning
    rankings = frames["bias_rankings"].set_index("system")
    assert {"as_computed", "without_near_copies", "by_B"} <= set(rankings.columns)
    kept = ~reference_bias.favoured_segments(report)
    metric = chosen["rank_by"]
    from mtdiag.slices.subset import slice_report
    assert rankings.at[system, "without_near_copies"] == pytest.approx(
        slice_report(report, kept).corpus.at[system, metric])
    assert rankings.at[system, "as_computed_rank"] < rankings.at[system, "without_near_copies_rank"]
    only_b = evaluate(replace(report.evalset, refs=report.evalset.refs[["B"]]), Options(metrics=(metric,)))
    assert rankings.at[system, "by_B"] == pytest.approx(only_b.corpus.at[system, metric])


def test_the_pages_name_the_favoured_system(planted):
    report, system = planted
    why = views.REGISTRY["segments"].details["signals"](report)
    assert f"the reference favours {system} (a near copy of reference A" in why
    seg = int(np.flatnonzero(reference_bias.near_copies(report)["A"][system].to_numpy())[0])
    detail = views.segment_detail(report, system, seg)
    findings = " ".join(detail.tables["reference"].frame["finding"])
    assert f"nearly {system}'s output here" in findings or f"exactly {system}'s output here" in findings
    other = next(s for s in report.evalset.systems if s != system)
    note = views.REGISTRY["compare"].details["bias_note"](report, other, system)
    assert note.startswith(f"Favoured by the reference: {system} (reference A:")
    assert views.REGISTRY["compare"].details["bias_note"](report, other, next(
        s for s in report.evalset.systems if s not in (system, other))) == ""


def _folder(tmp_path, evalset) -> str:
    folder = tmp_path / "set.zh-en"
    folder.mkdir()
    (folder / "src.txt").write_text("\n".join(evalset.src.astype(str)) + "\n", encoding="utf-8")
    for ref in evalset.ref_names:
        (folder / f"ref.{ref}.txt").write_text("\n".join(evalset.refs[ref].astype(str)) + "\n", encoding="utf-8")
    for system in evalset.systems:
        (folder / f"{system}.txt").write_text("\n".join(evalset.hyps[system].astype(str)) + "\n", encoding="utf-8")
    return str(folder)


def test_the_command_line_shows_the_table_and_score_warns_on_stderr(tmp_path, capsys, planted):
    report, system = planted
    folder = _folder(tmp_path, report.evalset)
    assert main(["view", "overview", "--testset", folder, "--table", "reference_bias", "--format", "json"]) == 0
    out = capsys.readouterr().out
    rows = pd.DataFrame(json.loads(out)["tables"]["reference_bias"])
    assert rows.loc[rows["biased"], "system"].tolist() == [system]
    assert main(["score", "--testset", folder, "--metrics", "chrf,ter"]) == 0
    err = capsys.readouterr().err
    assert f"mtdiag: The reference favours {system} (" in err and "--table bias_rankings" in err


def test_the_html_report_says_it_above_the_scores(planted):
    from mtdiag.report.html_report import html_report

    report, system = planted
    html = html_report(report, top=3)
    assert html.index('<p class="warning">The reference favours') < html.index("Corpus scores, ranked as people")
    assert "Reference bias: near copies of the reference per system" in html


def test_the_hypergeometric_tail_is_scipy_stats_without_importing_it():
    """Fisher's one-sided p (:func:`reference_bias.hypergeom_upper_tail`) agrees with ``scipy.stats.hypergeom.sf``
    to 1e-9 relative on 2,000 random tables of the sizes the test meets (up to 3,000 segments × 14 systems), k = 0
    and an impossible k included; and the Overview's bias warning leaves scipy.stats unimported (its import was
    0.5-1.5 s of the dashboard's first page)."""
    import subprocess
    import sys

    from scipy.stats import hypergeom

    rng = np.random.default_rng(1)
    cases = [(10, 80, 10, 20), (0, 80, 10, 20), (1, 80, 10, 20), (11, 80, 10, 20)]
    for _ in range(2000):
        n, systems = int(rng.integers(1, 3000)), int(rng.integers(2, 14))
        marked = int(rng.integers(0, n * systems // 3 + 1))
        cases.append((int(rng.integers(0, min(marked, n) + 1)), n * systems, marked, n))
    for k, total, marked, drawn in cases:
        expected = float(hypergeom.sf(k - 1, total, marked, drawn))
        assert reference_bias.hypergeom_upper_tail(k, total, marked, drawn) == pytest.approx(
            expected, rel=1e-9, abs=1e-300), (k, total, marked, drawn)
    code = ("import sys\n"
            "from tests.test_reference_bias import SCORES, _tiny\n"
            "from mtdiag.scoring.evaluate import evaluate\n"
            "from mtdiag.analysis import reference_bias\n"
            "reference_bias.reference_bias(evaluate(_tiny(), SCORES))\n"
            "print('scipy.stats' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=REPO)
    assert out.stdout.strip() == "False"

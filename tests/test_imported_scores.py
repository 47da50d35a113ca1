"""Metric scores computed elsewhere (COMET, MetricX, …) become registry metrics: read, scored as the mean of the
segment scores, direction respected, in significance, human correlation, buckets, the CLI and its signature."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

from mtdiag.analysis import segment_groups, significance
from mtdiag import cli
from mtdiag.scoring.evaluate import evaluate
from mtdiag.scoring.chunks import Execution
from mtdiag.core.errors import InputError
from mtdiag.analysis.human_agreement import human_agreement
from mtdiag.io import load_folder, read_metric_scores, with_metric_scores
from mtdiag.metrics.imported import system_score_mismatches
from tests.conftest import SAMPLE

DE = SAMPLE / "wmt21.en-de"


def scores_tsv(evalset, good: str, bad: str) -> str:
    """``comet`` (higher = better): 0.9 for ``good``, 0.1 for ``bad``, 0.5 for the rest on every segment;
    ``metricx`` (lower = better, said explicitly): the reverse; a system-level comet score for ``good``."""
    lines = ["system\tseg_id\tmetric\tscore\thigher_is_better"]
    for system in evalset.systems:
        value = 0.9 if system == good else 0.1 if system == bad else 0.5
        for seg in range(1, evalset.n_segments + 1):
            lines.append(f"{system}\t{seg}\tcomet\t{value}\t1")
            lines.append(f"{system}\t{seg}\tmetricx\t{25 * (1 - value)}\tno")
    lines.append(f"{good}\t\tcomet\t0.9\t1")
    return "\n".join(lines) + "\n"


@pytest.fixture(scope="module")
def report():
    evalset = load_folder(DE)
    evalset = with_metric_scores(evalset, ("scores.tsv", scores_tsv(evalset, "UEdin", "Online-W").encode()))
    return evaluate(evalset)


def test_imported_metrics_are_scored_as_means_with_their_direction(report):
    assert {"comet", "metricx"} <= set(report.metrics)
    assert report.corpus.at["UEdin", "comet"] == pytest.approx(0.9)
    assert report.corpus.at["Online-W", "metricx"] == pytest.approx(22.5)
    assert report.metric("metricx").info.higher_is_better is False
    assert report.result("comet", "UEdin").signature.startswith("comet|nrefs:3|source:scores.tsv|imported:yes|")
    assert system_score_mismatches(report) == []


def test_imported_metrics_in_significance_buckets_and_human_correlation(report):
    sig = significance.significance(report, "Online-W", "bs", 200, metrics=["comet", "metricx"])
    assert sig.loc[("UEdin", "comet"), "better"] == 1 and sig.loc[("UEdin", "metricx"), "better"] == 1
    assert sig.loc[("UEdin", "comet"), "significant"]
    table = segment_groups.bucket_scores(report, segment_groups.bucketing(report, "ref_length"), ["comet"])
    assert np.allclose(table.loc[table["system"] == "UEdin", "comet"], 0.9)
    agreement = human_agreement(report)
    assert {"comet", "metricx"} <= set(agreement.index)


def test_sliced_scoring_keeps_imported_scores(report):
    again = evaluate(report.evalset, execution=Execution(chunk=7, workers=2))
    np.testing.assert_array_equal(again.result("comet", "UEdin").stats, report.result("comet", "UEdin").stats)


def test_cli_scores_flag_and_folder_file(tmp_path, capsys):
    evalset = load_folder(DE)
    path = tmp_path / "scores.tsv"
    path.write_text(scores_tsv(evalset, "UEdin", "Online-W"), encoding="utf-8")
    args = ["score", "--ref", str(DE / "ref.A.txt"), "--hyp", f"UEdin={DE / 'newstest2021.en-de.UEdin.txt'}",
            "--metrics", "bleu,comet", "--scores", str(path)]
    assert cli.main(args) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["corpus"]["UEdin"]["comet"] == pytest.approx(0.9) and "source:" in out["signatures"]["comet"]
    folder = tmp_path / "set.en-de"
    shutil.copytree(DE, folder)
    shutil.copy(path, folder / "metric_scores.tsv")
    assert {"comet", "metricx"} <= set(evaluate(load_folder(folder)).metrics)


def test_wide_files_directions_and_errors():
    evalset = load_folder(DE)
    wide = "system\tseg_id\tCOMET-22\tMetricX-23\n" + "".join(
        f"{s}\t{i}\t0.5\t3\n" for s in evalset.systems for i in range(1, evalset.n_segments + 1))
    scores, infos, warnings = read_metric_scores(("w.tsv", wide.encode()), n_segments=evalset.n_segments,
                                                 systems=evalset.systems)
    assert [(i.name, i.higher_is_better) for i in infos] == [("comet_22", True), ("metricx_23", False)]
    assert len(warnings) == 2 and "lower is better" in warnings[1]
    with pytest.raises(InputError, match=r"w\.tsv: line 2: seg_id 999 is out of range"):
        read_metric_scores(("w.tsv", b"system\tseg_id\tcomet\nA\t999\t0.1\n"), n_segments=117)
    with pytest.raises(InputError, match="higher_is_better differs from line 2"):
        read_metric_scores(("w.tsv", b"system\tseg_id\tmetric\tscore\thigher_is_better\nA\t1\tc\t1\t1\nA\t2\tc\t1\t0\n"))
    with pytest.raises(ValueError, match="clash with the built-in metric"):
        evaluate(with_metric_scores(evalset, ("b.tsv", b"system\tseg_id\tbleu\nUEdin\t1\t3\n")))


def test_imported_metrics_join_the_triage_ranking_with_their_direction(report):
    from mtdiag.triage import ranking

    assert set(ranking.ranking_metrics(report)) == {"otem", "chrf", "ter", "comet", "metricx", "consensus"}
    queue = ranking.worst_first(report)
    assert {"comet", "metricx"} <= set(queue.columns)
    plain = ranking.worst_first(evaluate(load_folder(DE)))
    gap = lambda q: (q.loc[q["system"] == "Online-W", "problem"].mean()  # noqa: E731
                     - q.loc[q["system"] == "UEdin", "problem"].mean())
    # comet says UEdin is best and Online-W worst (metricx, lower = better, says the same): the gap widens
    assert gap(queue) > gap(plain) + 0.2


def test_cli_triage_takes_imported_scores(tmp_path, capsys):
    path = tmp_path / "scores.tsv"
    path.write_text(scores_tsv(load_folder(DE), "UEdin", "Online-W"), encoding="utf-8")
    code = cli.main(["triage", "--testset", str(DE), "--scores", str(path), "--format", "json", "--top", "3"])
    records = json.loads(capsys.readouterr().out)
    assert code == 0 and {"comet", "metricx"} <= set(records[0])


# ------------------------------------------------------------- imported metrics belong to their set (issue 22)


def test_imported_metrics_belong_to_their_set_never_to_the_registry():
    """Two sets import a metric of the same name with opposite directions, one after the other (on a server: two
    sessions). Each keeps its own direction everywhere it is used; a third set without scores sees neither; the
    process-wide registry never changes."""
    from mtdiag.report import export
    from mtdiag.triage import ranking
    from mtdiag.views import overview
    from mtdiag.metrics import REGISTRY, metric_classes, metric_info

    before = dict(REGISTRY)
    plain = load_folder(DE)

    def wide(direction: str) -> bytes:  # "qe": UEdin best if higher is better, worst if lower is
        rows = ["system\tseg_id\tmetric\tscore\thigher_is_better"]
        rows += [f"{s}\t{i}\tqe\t{0.9 if s == 'UEdin' else 0.1}\t{direction}" for s in plain.systems
                 for i in range(1, plain.n_segments + 1)]
        return ("\n".join(rows) + "\n").encode()

    up = evaluate(with_metric_scores(plain, ("up.tsv", wide("yes"))))
    down = evaluate(with_metric_scores(plain, ("down.tsv", wide("no"))))  # was: ValueError, the other direction
    none = evaluate(plain)
    assert dict(REGISTRY) == before and "qe" not in metric_classes()
    with pytest.raises(KeyError, match="unknown metric 'qe'"):
        metric_info("qe")
    assert metric_info("qe", up).higher_is_better is True and metric_info("qe", down.evalset).higher_is_better is False
    assert "qe" not in none.metrics and "qe" not in metric_classes(none)
    assert overview.best_systems(up.corpus, up).set_index("metric").at["qe", "best"] == "UEdin"
    assert "UEdin" not in overview.best_systems(down.corpus, down).set_index("metric").at["qe", "best"]
    assert "qe" in ranking.ranking_metrics(up) and "qe" in ranking.ranking_metrics(down)
    worst_up, worst_down = (ranking.worst_first(r).groupby("system")["problem"].mean() for r in (up, down))
    assert worst_up["UEdin"] < worst_up.drop("UEdin").min() and worst_down["UEdin"] > worst_down.drop("UEdin").max()
    assert r"qe $\uparrow$" in export.latex_table(up.corpus, within=up)
    assert r"qe $\downarrow$" in export.latex_table(down.corpus, within=down)
    sig = significance.significance(down, "Online-W", "bs", 100, metrics=["qe"])
    assert sig.loc[("UEdin", "qe"), "better"] == -1  # lower is better for this set


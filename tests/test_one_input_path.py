"""Every command reads its inputs one way (issue 38): the test set, its human scores (a folder's ``mqm.seg.tsv`` or
``--human``), its annotations, the options, the metrics the flags of a ``--where`` expression read, scoring, then
``--where`` — :func:`mtdiag.cli.load.report` over :mod:`mtdiag.pipeline.inputs`, the path the dashboard's loader takes too.
The four defects the review found, each a test: ``--where`` on human scores given with ``--human``, the human
column of a folder's own scores, a slice's segment ids, and the slice finder's own flag expressions."""

from __future__ import annotations

import json

import pytest

from tests.conftest import SAMPLE
from tests.test_cli import run_cli

DE = SAMPLE / "wmt21.en-de"
HUMAN = DE / "mqm.seg.tsv"
FILES = ["--ref", str(DE / "ref.A.txt"), "--src", str(DE / "src.txt"),
         "--hyp", f"Online-W={DE / 'newstest2021.en-de.Online-W.txt'}",
         "--hyp", f"UEdin={DE / 'newstest2021.en-de.UEdin.txt'}"]
RATED = "human[Online-W] < -5"


def _rated_below(limit: float, system: str = "Online-W") -> set[int]:
    """The segment ids where ``system``'s human score is below ``limit``, read from the file by hand."""
    ids = set()
    for line in HUMAN.read_text(encoding="utf-8").splitlines()[1:]:
        name, seg_id, _, score = line.split("\t")
        if name == system and score and float(score) < limit:
            ids.add(int(seg_id))
    return ids


@pytest.mark.parametrize("command", [["triage"], ["score"], ["view", "segments"], ["buckets"]])
def test_where_reads_the_human_scores_given_with_human(command, capsys):
    """Defect 1: ``--where 'human[S] < -5'`` with ``--human FILE`` was refused ("needs human scores") by triage,
    score and view segments — they checked ``--where`` before reading the human scores; buckets accepted it."""
    code, out, err = run_cli(capsys, *command, *FILES, "--metrics", "bleu,chrf", "--human", str(HUMAN),
                             "--where", RATED, "--format", "json")
    assert code == 0, err
    assert f"where: {len(_rated_below(-5)):,} of 117 segments" in err


def test_triage_shows_the_human_scores_of_a_folder(capsys):
    """Defect 2: ``triage --testset DIR`` showed no human score although DIR holds mqm.seg.tsv (view segments did)."""
    code, out, err = run_cli(capsys, "triage", "--testset", str(DE), "--metrics", "chrf", "--format", "json")
    assert code == 0, err
    rows = json.loads(out)
    assert "human" in rows[0] and any(row["human"] is not None for row in rows)
    first = next(row for row in rows if row["human"] is not None)
    scores = {(line.split("\t")[0], int(line.split("\t")[1])): line.split("\t")[3]
              for line in HUMAN.read_text(encoding="utf-8").splitlines()[1:]}
    assert first["human"] == pytest.approx(float(scores[(first["system"], first["seg_id"])]))


@pytest.mark.parametrize("command", [["triage"], ["view", "segments", "--table", "queue"]])
def test_a_slice_keeps_the_segment_ids_of_the_set(command, capsys):
    """Defect 3: ``view segments --where EXPR`` renumbered the slice's segments 1, 2, 3…; triage kept 20, 21, 27…"""
    code, out, err = run_cli(capsys, *command, "--testset", str(DE), "--metrics", "chrf", "--where",
                             "seg_id >= 100", "--format", "json")
    assert code == 0, err
    printed = json.loads(out)
    rows = printed if isinstance(printed, list) else printed["tables"]["queue"]
    assert sorted({row["seg_id"] for row in rows}) == list(range(100, 118))


def test_the_slice_finders_flag_expressions_work_in_score_where(capsys):
    """Defect 4: the finder's own expressions (``over_translation[A] or over_translation[B]``) were refused by
    ``score --where`` ("flag not computed") when the metric the flag reads (OTEM) was not among --metrics — yet the
    finder promises that ``--where`` reproduces its numbers. The flag's metric is computed for the expression and
    the output keeps the metrics asked for."""
    expression = "over_translation[Online-W] or over_translation[UEdin]"
    code, out, err = run_cli(capsys, "score", "--testset", str(DE), "--metrics", "chrf", "--where", expression,
                             "--format", "json")
    assert code == 0, err
    printed = json.loads(out)
    assert list(printed["corpus"]["UEdin"]) == ["chrf"]
    code, whole, _ = run_cli(capsys, "score", "--testset", str(DE), "--where", expression, "--format", "json")
    assert printed["slice"]["segments"] == json.loads(whole)["slice"]["segments"]
    assert printed["corpus"]["UEdin"]["chrf"] == pytest.approx(json.loads(whole)["corpus"]["UEdin"]["chrf"])


@pytest.mark.parametrize("where, scored", [("seg_id > 1000", False), ('src ~ "^$" and src_len > 0', False),
                                           ("chrf[Online-W] > 101", True), ("problem[UEdin] > 1", True)])
def test_an_expression_that_keeps_none_is_refused_before_scoring_when_it_reads_no_score(where, scored, capsys,
                                                                                          monkeypatch):
    """Refusing ``--where 'seg_id > 1000'`` on the sample set scored every metric first (276 MB, 2.7 s of CPU):
    an expression that reads no metric and no flag is tried on the set before scoring. One that reads a score
    is refused after scoring, as before, with the same line."""
    from mtdiag.pipeline import inputs

    asked = []
    real = inputs.evaluate
    monkeypatch.setattr(inputs, "evaluate", lambda evalset, options, **kw: asked.append(options.metrics)
                        or real(evalset, options, **kw))
    code, _, err = run_cli(capsys, "score", *FILES, "--metrics", "bleu,chrf", "--where", where)
    assert code == 1 and err.endswith("mtdiag: error: where: the expression keeps none of the 117 segments\n"), err
    assert any(metrics for metrics in asked) == scored, asked

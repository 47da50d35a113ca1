"""Triage without references (issue 20): the source and several outputs are enough for the command line and the
queue — consensus of the systems × the outputs' median length, critical checks first — and what needs a reference
says so in one sentence."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest

from mtdiag import triage
from mtdiag.api import evaluate
from mtdiag.evalset import evalset_from_lists
from mtdiag.io import load_folder
from tests.conftest import SAMPLE
from tests.test_cli import run_cli

SRC = ["The weather is fine today .", "She reads a long book about the history of the city .", "We go home now .",
       "He plays the piano every evening after dinner ."]
OUTPUTS = {"a": ["Das Wetter ist heute schön .", "Sie liest ein langes Buch über die Geschichte der Stadt .",
                 "Wir gehen jetzt nach Hause .", "Er spielt jeden Abend nach dem Essen Klavier ."],
           "b": ["Das Wetter ist heute gut .", "Sie liest ein dickes Buch über die Geschichte der Stadt .",
                 "Wir gehen jetzt heim .", "Er spielt jeden Abend nach dem Abendessen Klavier ."],
           "c": ["Das Wetter ist heute schön .", "Katzen fressen gerne Fisch und schlafen viel .",
                 "Wir gehen jetzt nach Hause .", "Er spielt jeden Abend Klavier ."],
           "d": ["Das Wetter ist heute schön .", "", "Wir gehen nach Hause .", "Er spielt abends Klavier ."]}


@pytest.fixture(scope="module")
def report():
    return evaluate(evalset_from_lists({}, OUTPUTS, src=SRC))


def test_the_queue_is_built_from_consensus_and_output_length(report):
    assert report.metrics == ("consensus",)
    assert triage.ranking_metrics(report) == ["consensus"]
    lengths = triage.segment_length(report).xs("a", level="system").to_numpy()
    np.testing.assert_allclose(lengths, [6, 9.5, 5.5, 7.5])  # median of the four outputs' token counts
    queue = triage.worst_first(report, strict=True)
    assert (queue.iloc[0]["system"], queue.iloc[0]["seg_id"]) == ("d", 2)  # empty: critical
    assert (queue.iloc[1]["system"], queue.iloc[1]["seg_id"]) == ("c", 2)  # disagrees with every other system
    assert "median output length (no reference)" in triage.signals(report)


def _write(tmp_path):
    (tmp_path / "src.txt").write_text("\n".join(SRC) + "\n", encoding="utf-8")
    for name, lines in OUTPUTS.items():
        (tmp_path / f"{name}.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")


def test_cli_triage_with_source_and_outputs_only(capsys, tmp_path):
    _write(tmp_path)
    args = ["triage", "--src", str(tmp_path / "src.txt"), "--format", "json"]
    for name in OUTPUTS:
        args += ["--hyp", f"{name}={tmp_path / f'{name}.txt'}"]
    code, out, err = run_cli(capsys, *args)
    assert code == 0, err
    rows = json.loads(out)
    assert len(rows) == 16 and list(rows[0])[:4] == ["system", "seg_id", "problem", "flags"]
    assert (rows[0]["system"], rows[0]["seg_id"]) == ("d", 2) and "empty" in rows[0]["flags"]
    assert "problem = percentile of error rate (Consensus) × median output length (no reference)" in err
    code, out, err = run_cli(capsys, "triage", "--testset", str(tmp_path), "--format", "json")  # a folder too
    assert code == 0 and len(json.loads(out)) == 16


def test_score_without_references_needs_three_systems_or_says_why(capsys, tmp_path):
    _write(tmp_path)
    base = ["score", "--src", str(tmp_path / "src.txt"), "--hyp", f"a={tmp_path / 'a.txt'}",
            "--hyp", f"b={tmp_path / 'b.txt'}"]
    code, _, err = run_cli(capsys, *base)
    assert code == 1 and "three or more system outputs" in err and "--ref" in err and len(err.splitlines()) == 1
    code, out, _ = run_cli(capsys, *base, "--hyp", f"c={tmp_path / 'c.txt'}")
    assert code == 0 and set(json.loads(out)["corpus"]["a"]) == {"consensus"}


def test_no_inputs_names_every_way_in(capsys):
    code, _, err = run_cli(capsys, "triage", "--hyp", "a=a.txt")
    assert code == 1 and "--ref and/or --src" in err


def test_with_references_nothing_changes():
    evalset = load_folder(SAMPLE / "wmt21.en-de")
    report = evaluate(evalset)
    assert "consensus" not in report.metrics  # on request only where references exist
    free = evaluate(replace(evalset, refs=evalset.refs.iloc[:, :0], terms=None))
    assert free.metrics == ("consensus",)

"""The ``mtdiag triage`` command: the worst-first queue's contract (columns, order, 1-based ids, formats)."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from mtdiag import checks, triage
from mtdiag.api import evaluate
from mtdiag.io import load_folder
from tests.conftest import SAMPLE
from tests.test_cli import run_cli

FOLDER = SAMPLE / "wmt21.en-de"
METRICS = list(evaluate(load_folder(FOLDER)).metrics)  # the default metrics the sample allows (terms included)


@pytest.fixture(scope="module")
def queue():
    return triage.worst_first(evaluate(load_folder(FOLDER)))


def test_tsv_columns_order_and_one_based_ids(capsys, queue):
    code, out, _ = run_cli(capsys, "triage", "--testset", str(FOLDER))
    assert code == 0
    lines = out.splitlines()
    assert lines[0].split("\t") == ["system", "seg_id", "problem", "flags", *METRICS]
    rows = [line.split("\t") for line in lines[1:]]
    assert len(rows) == 6 * 117
    assert {int(r[1]) for r in rows} == set(range(1, 118))  # 1-based, every segment
    assert len({int(r[1]) for r in rows[:triage.FIRST_SCREEN]}) == triage.FIRST_SCREEN  # one pair per source first
    assert [(r[0], int(r[1]), r[3]) for r in rows] == list(zip(queue["system"], queue["seg_id"], queue["flags"]))


def test_strict_order_is_critical_first_then_worst_first(capsys):
    code, out, _ = run_cli(capsys, "triage", "--testset", str(FOLDER), "--strict", "--format", "json")
    records = json.loads(out)
    critical = [any(checks.REGISTRY[f].critical for f in r["flags"].split(",") if f) for r in records]
    assert critical == sorted(critical, reverse=True)
    problems = [r["problem"] for r, c in zip(records, critical) if not c]
    assert problems == sorted(problems, reverse=True)
    assert any(r["flags"] == "" for r in records) and any("," in r["flags"] for r in records)  # comma-joined


def test_json_and_top(capsys, queue):
    code, out, _ = run_cli(capsys, "triage", "--testset", str(FOLDER), "--format", "json", "--top", "5")
    records = json.loads(out)
    assert code == 0 and len(records) == 5
    assert list(records[0]) == ["system", "seg_id", "problem", "flags", *METRICS]
    first = queue.iloc[0]
    assert (records[0]["system"], records[0]["seg_id"]) == (first["system"], int(first["seg_id"]))
    assert records[0]["problem"] == pytest.approx(first["problem"])
    assert records[0]["ter"] == pytest.approx(first["ter"])


def test_human_column_and_lift(capsys, tmp_path, queue):
    n = len(queue)  # a rater who agrees with the queue exactly: lowest (worst) score at the top
    rows = [{"system": s, "seg_id": int(g), "score": float(i - n)} for i, (s, g) in
            enumerate(zip(queue["system"], queue["seg_id"]))]
    human = tmp_path / "human.tsv"
    pd.DataFrame(rows).iloc[::-1].to_csv(human, sep="\t", index=False)
    code, out, err = run_cli(capsys, "triage", "--testset", str(FOLDER), "--human", str(human), "--top", "3")
    lines = out.splitlines()
    assert code == 0 and lines[0].split("\t")[-1] == "human"
    assert [float(line.split("\t")[-1]) for line in lines[1:]] == [-702.0, -701.0, -700.0]
    assert "lift at 10 % of this queue over 702 human-rated pairs: 9.98" in err  # 70.2 places: the 71st shared


def test_sources_view(capsys):
    code, out, _ = run_cli(capsys, "triage", "--testset", str(FOLDER), "--sources", "--format", "json")
    records = json.loads(out)
    assert code == 0 and len(records) == 117
    assert list(records[0]) == ["seg_id", "difficulty", "spread", "worst_system", "worst_problem"]
    assert [r["difficulty"] for r in records] == sorted((r["difficulty"] for r in records), reverse=True)


def test_bad_top_is_a_one_line_error(capsys):
    code, _, err = run_cli(capsys, "triage", "--testset", str(FOLDER), "--top", "0")
    assert code == 1 and err.strip() == "mtdiag: error: --top must be at least 1, got 0"

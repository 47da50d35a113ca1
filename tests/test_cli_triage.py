"""The ``mtdiag triage`` command: the worst-first queue's contract (columns, order, 1-based ids, formats)."""

from __future__ import annotations

import json
import re
import sys

import pandas as pd
import pytest

from mtdiag import views
from mtdiag.triage import checks, ranking
from mtdiag.scoring.evaluate import evaluate
from mtdiag.io import load_folder
from tests.conftest import SAMPLE
from tests.test_cli import run_cli

FOLDER = SAMPLE / "wmt21.en-de"
METRICS = list(evaluate(load_folder(FOLDER)).metrics)  # the default metrics the sample allows (terms included)


@pytest.fixture(scope="module")
def queue():
    """The ranking with its segments named as the command names them (the set's ids)."""
    report = evaluate(load_folder(FOLDER))
    return views.with_set_ids(report, ranking.worst_first(report))


def test_tsv_columns_order_and_one_based_ids(capsys, queue):
    code, out, _ = run_cli(capsys, "triage", "--testset", str(FOLDER))
    assert code == 0
    lines = out.splitlines()
    assert lines[0].split("\t") == ["system", "seg_id", "problem", "flags", *METRICS, "human"]  # the folder's MQM
    rows = [line.split("\t") for line in lines[1:]]
    assert len(rows) == 6 * 117
    assert {int(r[1]) for r in rows} == set(range(1, 118))  # 1-based, every segment
    assert len({int(r[1]) for r in rows[:ranking.FIRST_SCREEN]}) == ranking.FIRST_SCREEN  # one pair per source first
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
    assert list(records[0]) == ["system", "seg_id", "problem", "flags", *METRICS, "human"]
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


def unescape_tsv(cell: str) -> str:
    """The inverse of :func:`mtdiag.report.export.tsv_cell` (written independently: one pass, left to right)."""
    return re.sub(r"\\(.)", lambda m: {"t": "\t", "n": "\n", "r": "\r", "\\": "\\"}[m.group(1)], cell)


def test_with_text_adds_source_references_and_output_whole(capsys, queue):
    code, out, _ = run_cli(capsys, "triage", "--testset", str(FOLDER), "--with-text", "--top", "4")
    assert code == 0
    header, *rows = [line.split("\t") for line in out.splitlines()]
    assert header == ["system", "seg_id", "problem", "flags", *METRICS, "human", "src", "ref:A", "ref:C", "ref:D", "hyp"]
    assert len(rows) == 4 and all(len(r) == len(header) for r in rows)
    folder_lines = {name: (FOLDER / name).read_text(encoding="utf-8").split("\n") for name in
                    ("src.txt", "ref.A.txt", "ref.D.txt", f"newstest2021.en-de.{rows[0][0]}.txt")}
    seg = int(rows[0][1]) - 1
    assert unescape_tsv(rows[0][-5]) == folder_lines["src.txt"][seg]
    assert unescape_tsv(rows[0][-2]) == folder_lines["ref.D.txt"][seg]
    assert unescape_tsv(rows[0][-1]) == folder_lines[f"newstest2021.en-de.{rows[0][0]}.txt"][seg]
    code, out, _ = run_cli(capsys, "triage", "--testset", str(FOLDER), "--with-text", "--sources", "--top", "2")
    assert out.splitlines()[0].split("\t")[-4:] == ["src", "ref:A", "ref:C", "ref:D"]


def test_with_text_keeps_one_row_per_line_whatever_the_text(capsys, tmp_path):
    texts = ['a\ttab and a \\ backslash', 'say "quoted"', "=1+1 stays as written"]
    (tmp_path / "src.txt").write_text("\n".join(texts) + "\n", encoding="utf-8")
    (tmp_path / "ref.A.txt").write_text("\n".join(texts) + "\n", encoding="utf-8")
    (tmp_path / "mine.txt").write_text("one\\two\tthree\nsay \"quoted\"\n=1+1\n", encoding="utf-8")
    code, out, err = run_cli(capsys, "triage", "--testset", str(tmp_path), "--with-text")
    assert code == 0, err
    header, *rows = [line.split("\t") for line in out.splitlines()]
    assert len(rows) == 3 and all(len(r) == len(header) for r in rows)
    by_seg = {int(r[1]): {name: unescape_tsv(cell) for name, cell in zip(header, r)} for r in rows}
    assert by_seg[1]["src"] == texts[0] and by_seg[1]["hyp"] == "one\\two\tthree"
    assert by_seg[2]["ref:A"] == 'say "quoted"'  # a quote is a character, never TSV quoting


def test_tsv_cells_escape_newlines_tabs_and_backslashes():
    from mtdiag.report.export import to_tsv

    frame = pd.DataFrame({"seg_id": [1], "text": ["line one\nline two\r\tend \\n"]})
    lines = to_tsv(frame).splitlines()
    assert lines == ["seg_id\ttext", "1\t" + r"line one\nline two\r\tend \\n"]  # one line, one tab
    assert unescape_tsv(lines[1].split("\t", 1)[1]) == frame.at[0, "text"]


@pytest.mark.parametrize("terminal", [True, False])
def test_json_is_indented_on_a_terminal_and_one_line_otherwise(capsys, monkeypatch, terminal):
    monkeypatch.setattr(sys.stdout, "isatty", lambda: terminal)  # capsys's stdout, read by mtdiag.cli.main
    code, out, _ = run_cli(capsys, "triage", "--testset", str(FOLDER), "--format", "json", "--top", "2")
    assert code == 0
    lines = out.rstrip("\n").split("\n")
    if terminal:
        assert len(lines) > 10 and lines[1].startswith('  {') and lines[2].startswith('    "system": ')
    else:
        assert len(lines) == 1
    records = json.loads(out)
    assert len(records) == 2 and records[0]["seg_id"] >= 1

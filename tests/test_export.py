"""Exports are safe to open in a spreadsheet (OWASP CSV injection) and keep every text whole."""

from __future__ import annotations

import io

import openpyxl
import pandas as pd
import pytest

from mtdiag.report.export import flatten, to_csv, to_excel, to_json_records, to_tsv

DANGEROUS = ['=HYPERLINK("http://x","y")', "=1+1", "+1", "-1+2", "@SUM(A1)", "\t=1", "\r=1"]


@pytest.fixture
def frame():
    texts = DANGEROUS + ["plain text", "a, \"quoted\" <b>text</b>", "x" * 5000]
    return pd.DataFrame({"seg_id": range(1, len(texts) + 1), "hyp": texts, "score": [-1.5] * len(texts),
                         "segments": [[1, 2]] * len(texts)})


def test_csv_neutralises_formula_cells_and_keeps_numbers(frame):
    back = pd.read_csv(io.BytesIO(to_csv(frame)), keep_default_na=False)
    for original, written in zip(frame["hyp"], back["hyp"]):
        if original.startswith(("=", "+", "-", "@", "\t", "\r")):
            assert written == "'" + original
        else:
            assert written == original
    assert back["score"].dtype.kind == "f" and (back["score"] == -1.5).all()  # a negative number stays a number
    assert back["segments"].iloc[0] == "1 2" and len(back) == len(frame)
    assert len(back["hyp"].iloc[-1]) == 5000  # never cut


def test_excel_cells_from_user_text_are_never_formulas(frame):
    sheet = openpyxl.load_workbook(io.BytesIO(to_excel(frame))).active
    rows = list(sheet.iter_rows(min_row=2))
    for row, original in zip(rows, frame["hyp"]):
        cell = row[1]
        assert cell.data_type != "f" and cell.value == original  # the text kept exactly
        if original.startswith(("=", "+", "-", "@")):
            assert cell.quotePrefix
    assert rows[0][2].value == -1.5 and rows[0][2].data_type == "n"
    assert len(rows) == len(frame)


def test_tsv_and_json_for_scripts(frame):
    lines = to_tsv(frame.head(2)[["seg_id", "score"]]).splitlines()
    assert lines == ["seg_id\tscore", "1\t-1.5000", "2\t-1.5000"]  # 4 decimals for people, as the dashboard
    records = to_json_records(pd.DataFrame({"a": [1.0, float("nan")], "b": [[1], [2, 3]]}))
    assert records == [{"a": 1.0, "b": "1"}, {"a": None, "b": "2 3"}]


def test_named_index_is_kept():
    frame = pd.DataFrame({"bleu": [1.0]}, index=pd.Index(["=sys"], name="system"))
    assert list(flatten(frame).columns) == ["system", "bleu"]
    assert to_csv(frame).decode().splitlines() == ["system,bleu", "'=sys,1.0"]


def test_excel_says_where_it_cuts_a_text_longer_than_a_cell_holds():
    frame = pd.DataFrame({"hyp": ["word " * 10_000]})
    cell = openpyxl.load_workbook(io.BytesIO(to_excel(frame))).active["A2"]
    assert len(cell.value) <= 32_767 and cell.value.endswith("[cut: Excel's cell limit; see the CSV]")
    assert len(pd.read_csv(io.BytesIO(to_csv(frame)))["hyp"].iat[0]) == 50_000


def _significance_frame() -> pd.DataFrame:
    """A hand-made :func:`mtdiag.analysis.significance.significance` frame: ``up`` significantly better than ``base`` on BLEU,
    ``down`` significantly worse, ``same`` neither."""
    rows = [("base", 30.0, float("nan"), False, 0), ("up", 33.0, 0.8, True, 1), ("down", 27.0, 0.9, True, -1),
            ("same", 30.2, 1.1, False, 1)]
    frame = pd.DataFrame([{"system": s, "metric": "bleu", "score": v, "ci": ci, "significant": sig, "better": b}
                          for s, v, ci, sig, b in rows]).set_index(["system", "metric"])
    frame.attrs.update(baseline="base", method="bs", n=1000, alpha=0.05)
    return frame


@pytest.mark.parametrize("mark, better, worse", [("dagger", r"$^{\dagger}$", r"$^{\ddagger}$"),
                                                 ("star", r"$^{*}$", r"$^{\circ}$")])
def test_latex_marks_significantly_worse_systems_too(mark, better, worse):
    from mtdiag.report.export import latex_table

    sig = _significance_frame()
    corpus = sig["score"].unstack("metric")
    lines = latex_table(corpus, sig, mark=mark).splitlines()
    row = {line.split(" & ")[0]: line for line in lines if " & " in line}
    assert row["up"] == rf"up & 33.00 $\pm$ 0.80{better} \\"
    assert row["down"] == rf"down & 27.00 $\pm$ 0.90{worse} \\"
    assert better not in row["same"] and worse not in row["same"]
    assert row["base (baseline)"] == r"base (baseline) & 30.00 \\"
    note = next(line for line in lines if "footnotesize" in line)
    assert f"{better}/{worse}: significantly better/worse than base ($p < 0.05$" in note


def test_numbers_for_people_have_four_decimals_and_never_read_as_zero_when_they_are_not():
    from mtdiag.report.export import for_people

    assert [for_people(v) for v in (0.9965079365079365, 57.15984, 12, 0.0, -1.5, 0.00015625, 0.00004, 1.2e-07,
                                    None, float("nan"), float("inf"), True)] == \
        ["0.9965", "57.1598", "12", "0.0000", "-1.5000", "0.0002", "4e-05", "1.2e-07", "", "", "inf", "True"]

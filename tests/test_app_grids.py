"""Issue 23 in AppTest: the grids show their key columns first and are as tall as their rows; Compare ranks the
segments where two systems differ most by their problem scores and marks the output closer to the reference."""

from __future__ import annotations

import re

import numpy as np
import pytest
import streamlit as st

from mtdiag.triage import ranking
from mtdiag.scoring.evaluate import evaluate
from mtdiag.io import load_folder
from mtdiag.ui.widgets import fitted_height
from tests.test_app import (  # noqa: F401  (the autouse fixtures of the dashboard tests apply here too)
    DE, N_DE, SAMPLE, clear_caches, de_lines, html_bodies, no_data_argument, start, table_with, visit)

SEGMENTS_ROW = 68  # mtdiag/ui/layouts/segments.py ROW_HEIGHT: three wrapped lines


@pytest.fixture
def heights(monkeypatch) -> dict:
    """The ``height`` each ``st.dataframe`` was drawn with, by key (the browser's geometry; AppTest has no size)."""
    from streamlit.delta_generator import DeltaGenerator

    drawn: dict = {}
    original = DeltaGenerator.dataframe

    def recording(self, data=None, *args, **kwargs):
        drawn[kwargs.get("key")] = kwargs.get("height")
        return original(self, data, *args, **kwargs)

    monkeypatch.setattr(DeltaGenerator, "dataframe", recording)  # tables are drawn into a container of their own
    return drawn


def test_fitted_height_follows_streamlits_geometry():
    # rows x row height + the 35 px header + two 1 px borders, capped; an empty table keeps one empty row
    assert fitted_height(1, 620, 72) == 72 + 35 + 2
    assert fitted_height(6, 380) == 6 * 35 + 35 + 2
    assert fitted_height(0, 380) == 35 + 35 + 2
    assert fitted_height(1_000, 620, 72) == 620


def test_the_queue_shows_flags_and_problem_first():
    at = start()
    visit(at, "segments").run()
    order = list(at.dataframe(key="seg_table").proto.column_order)
    assert order[:5] == ["system", "seg_id", "critical", "flags", "problem"]
    assert order[5:7] == ["src", "hyp"] and order.index("chrf") < order.index("repetition")
    systems = next(list(f.proto.column_order) for f in at.dataframe  # read-only: no key in AppTest
                   if "problem" in f.value.columns and "seg_id" not in f.value.columns)
    assert systems[:3] == ["system", "flags", "problem"]
    at.radio(key="seg_view").set_value("sources").run()
    sources = list(at.dataframe(key="seg_src_table").proto.column_order)
    assert sources[:3] == ["seg_id", "difficulty", "spread"] and "src" in sources


def test_a_one_row_result_is_one_row_high_and_long_tables_stop_at_their_maximum(heights):
    at = start()
    visit(at, "segments").run()
    assert heights["seg_table"] == 10 * SEGMENTS_ROW + 35 + 2  # 702 pairs: ten rows, then the table scrolls
    line = max(de_lines("src.txt"), key=len)
    at.multiselect(key="seg_systems").set_value(["UEdin"])
    at.text_input(key="seg_text").set_value(re.escape(line[:40])).run()
    assert len(at.dataframe(key="seg_table").value) == 1
    assert heights["seg_table"] == SEGMENTS_ROW + 35 + 2  # not padded with blank rows
    visit(at, "overview").run()
    assert heights["ov_clusters"] == 6 * 35 + 35 + 2  # the ranked table: six systems
    visit(at, "buckets").run()
    rows = len(table_with(at, "bucket", "system", "segments"))
    assert heights["bk_table"] == min(360, rows * 35 + 37)


def test_compare_ranks_by_the_problem_score_difference_and_marks_the_closer_output():
    at = start()
    visit(at, "compare").run()
    assert not at.exception
    a, b = at.selectbox(key="cmp_a").value, at.selectbox(key="cmp_b").value
    segs = at.dataframe(key="cmp_segs").value
    assert len(segs) == N_DE
    report = evaluate(load_folder(DE))  # the page's numbers, recomputed outside the app
    problem = ranking.problem_scores(report)["problem"]
    expected = (problem.xs(a, level="system") - problem.xs(b, level="system")).loc[segs["seg_id"] - 1].to_numpy()
    assert np.allclose(segs["problem_difference"], expected)
    assert segs["problem_difference"].abs().is_monotonic_decreasing
    chrf = report.segments["chrf"]
    for _, row in segs.head(20).iterrows():
        va, vb = chrf.loc[(a, row["seg_id"] - 1)], chrf.loc[(b, row["seg_id"] - 1)]
        assert row["closer"] == (a if va > vb else b if vb > va else "tie")
    order = list(at.dataframe(key="cmp_segs").proto.column_order)
    assert order[:3] == ["seg_id", "closer", "problem_difference"]
    assert order[-3:] == ["ref", f"hyp {a}", f"hyp {b}"]  # the reference and both outputs side by side
    top = segs.iloc[0]
    if top["closer"] != "tie":
        assert f"{top['closer']} ✔ closer to the reference" in html_bodies(at)
    at.selectbox(key="cmp_metric").set_value("ter").run()  # closer by TER: lower is better
    segs = at.dataframe(key="cmp_segs").value
    ter = report.segments["ter"]
    row = segs.iloc[0]
    va, vb = ter.loc[(a, row["seg_id"] - 1)], ter.loc[(b, row["seg_id"] - 1)]
    assert row["closer"] == (a if va < vb else b if vb < va else "tie")

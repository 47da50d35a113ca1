"""The sidebar's slice box (mtdiag.ui.slicing) and the slice finder page under AppTest: every page follows the
slice, its numbers are the slice's (equal to mtdiag.slices.where on the same expression), a bad expression is one
line and keeps the data, and a slice the finder found opens in the box."""

from __future__ import annotations

from urllib.parse import quote_plus

import pytest

from mtdiag.scoring.evaluate import evaluate
from mtdiag.io.folders import load_folder
from mtdiag.slices import where
from tests.test_app import (  # noqa: F401  (the autouse fixtures of the dashboard tests apply here too)
    DE, N_DE, PAGES, clear_caches, no_data_argument, shown, start, table_with, visit)

EXPRESSION = "seg_id <= 40"


def sliced(expression: str = EXPRESSION):
    at = start()
    at.text_input(key="slice_where").set_value(expression).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_every_page_follows_the_slice():
    at = sliced()
    assert any("keeps **40** of 117 segments" in shown(c.value) for c in at.sidebar.caption)
    for page in PAGES:
        visit(at, page).run()
        assert not at.exception, f"{page}: {[e.value for e in at.exception]}"
        assert not at.error, f"{page}: {[e.value for e in at.error]}"
        assert any("40 of 117" in shown(i.value) for i in at.info), page


def test_the_overview_shows_the_slices_corpus_scores():
    at = sliced()
    table = table_with(at, "otem", "bleu")
    report = where(evaluate(load_folder(DE)), EXPRESSION)
    for system in report.evalset.systems:
        assert table.loc[system, "bleu"] == pytest.approx(report.corpus.loc[system, "bleu"])
        assert table.loc[system, "chrf"] == pytest.approx(report.corpus.loc[system, "chrf"])


def test_the_segments_page_lists_only_the_slices_segments_with_their_own_ids():
    at = sliced('seg_id >= 100')
    visit(at, "segments").run()
    at.toggle(key="seg_strict").set_value(True).run()
    ids = table_with(at, "seg_id", "system")["seg_id"]
    assert ids.min() >= 100 and ids.max() <= N_DE  # the slice keeps the set's own segment numbers
    heading = next(shown(m.value) for m in at.markdown if m.value.startswith("#### Segment"))
    assert int(heading.split()[2]) >= 100  # the detail names the segment as the whole set does


def test_chart_hovers_name_segments_as_the_whole_set_does():
    import numpy as np
    import pandas as pd

    from mtdiag.views import charts

    assert charts.segment_numbers(pd.Series([0, 2]), np.array([7, 9, 12])).tolist() == [7, 12]
    assert charts.segment_numbers(pd.Series([0, 2])).tolist() == [1, 3]


@pytest.mark.parametrize("expression, said", [
    ("chrf[Nobody] < 40", "Nobody"),
    ("__import__('os')", "cannot be used"),
    ("seg_id > 1000", "keeps none"),
    ("x" * 3000, "cannot be used"),
])
def test_a_bad_expression_is_one_line_and_keeps_every_segment(expression, said):
    at = start()
    at.text_input(key="slice_where").set_value(expression[:2000]).run()
    assert not at.exception
    assert any(said in shown(w.value) for w in at.warning), [w.value for w in at.warning]
    assert not at.info or all("of 117" not in shown(i.value) for i in at.info)
    assert len(table_with(at, "otem", "bleu")) == 6


def test_markup_in_an_expression_is_shown_as_text():
    at = sliced('src ~ "<b>x</b>" or seg_id <= 3')
    banner = next(i.value for i in at.info if "of 117" in shown(i.value))
    assert "<b>" not in banner and "\\<b\\>" in banner


def test_clearing_the_slice_shows_every_segment_again():
    at = sliced()
    at.button(key="slice_clear").click().run()
    assert at.text_input(key="slice_where").value == ""
    assert not any("of 117" in shown(i.value) for i in at.info)


def test_the_slice_finder_lists_slices_and_opens_one_in_the_box():
    at = start()
    visit(at, "slices").run()
    assert not at.exception, [e.value for e in at.exception]
    found = table_with(at, "expression", "size", "p_corrected")
    assert len(found) > 0 and (found["size"] < N_DE).all()
    expression = found["expression"].iloc[0]
    link = next(e for e in at.get("page_link") if e.proto.label == "Open this slice")
    assert link.proto.page == "segments" and f"where={quote_plus(expression)}" in link.proto.query_string
    at.query_params["where"] = expression  # following the link: the Segments page with the slice in the address
    visit(at, "segments").run()
    assert not at.exception, [e.value for e in at.exception]
    assert "where" not in at.query_params  # taken off the address once in the box
    assert at.text_input(key="slice_where").value == expression
    assert any(f"of {N_DE} segments" in shown(i.value) for i in at.info)
    queue = table_with(at, "seg_id", "system")
    assert queue["seg_id"].nunique() == found["size"].iloc[0]  # the Segments page shows exactly the slice


def test_the_slice_finder_shows_the_corrected_p_beside_the_expression():
    """At 1,600 px the finder's last columns were out of sight: the corrected p was cut off while the uncorrected p
    (0.0110, 0.0170 …) showed beside "0 significant". What decides comes right after the expression; the uncorrected
    p comes last and says it is uncorrected."""
    import json

    at = start()
    visit(at, "slices").run()
    grid = next(d for d in at.dataframe if "p_corrected" in d.value.columns)
    shown_order = list(grid.proto.column_order)
    assert shown_order[:3] == ["expression", "p_corrected", "significant"]
    assert shown_order.index("p_value") > shown_order.index("rest_difference")
    assert set(shown_order) >= set(grid.value.columns) - {"tags"}  # no column of the view is left out
    config = json.loads(grid.proto.columns)
    assert config["p_value"]["label"] == "p uncorrected" and config["p_corrected"]["label"] == "p corrected"

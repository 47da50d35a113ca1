"""A page is its view (issue 38): for every page of the dashboard, each table it shows is the frame its view declares
— ``View.frames`` on the same data with the same options, equal to the last cell — and every chart it draws is a
declared chart. A layout keeps presentation only: it draws tables and charts through :class:`mtdiag.ui.page.Page`,
never Streamlit's grid or chart, the cache or the computing core itself.

Segment ids are the set's in every frame (:func:`mtdiag.views.with_set_ids`): also in a slice."""

from __future__ import annotations

import ast

import numpy as np
import pandas as pd
import pytest

from mtdiag import views
from mtdiag.scoring.evaluate import evaluate
from mtdiag.io import load_folder
from mtdiag.slices import where
from mtdiag.ui.page import RECORD
from tests.test_app import REPO, SAMPLE, start, visit  # noqa: F401  (the dashboard tests' autouse fixtures too)

LAYOUTS = REPO / "mtdiag" / "ui" / "layouts"
DATA = {"terminology": "wmt21.en-ja"}  # a page shown on the sample set that has what it needs; the others: wmt21.en-de
ACTIONS = {  # what is clicked on a page besides its defaults, so that its filters and sections are exercised too
    "segments": [("multiselect", "seg_flags", ["over_translation"]), ("text_input", "seg_text", "Impf")],
    "human": [("segmented_control", "hl_section", section) for section in ("likeness", "queen", "human", "errors")],
    "ngrams": [("radio", "ng_mode", "system")],
    "terminology": [("toggle", "tm_missed", True)],
    "waft_neva": [("toggle", "wn_reverse", True)],
}


def _recorded(at, name: str) -> dict:
    return [entry for entry in at.session_state[RECORD] if entry["view"] == name][-1]


def _same(shown: pd.DataFrame, declared: pd.DataFrame, what: str) -> None:
    pd.testing.assert_frame_equal(shown.reset_index(drop=True), declared.reset_index(drop=True), obj=what)


@pytest.fixture(scope="module")
def reports():
    return {name: evaluate(load_folder(SAMPLE / name)) for name in ("wmt21.en-de", "wmt21.en-ja")}


@pytest.mark.parametrize("name", list(views.REGISTRY))
def test_every_table_a_page_shows_is_its_views_frame(name, reports):
    data = DATA.get(name, "wmt21.en-de")
    at = start()
    if data != "wmt21.en-de":
        at.selectbox(key="data_set").set_value(str(SAMPLE / data)).run()
    at.session_state[RECORD] = []
    view, report = views.REGISTRY[name], reports[data]
    steps = [None, *ACTIONS.get(name, [])]
    compared = set()
    for step in steps:
        if step is None:
            visit(at, name).run()
        else:
            kind, key, value = step
            getattr(at, kind)(key=key).set_value(value).run()
        assert not at.exception, [e.value for e in at.exception]
        record = _recorded(at, name)
        chosen = view.resolve(report, {k: v for k, v in record["chosen"].items() if v is not None})
        declared = view.frames(report, chosen)
        for table, frame in record["tables"].items():
            assert table in declared, f"{name}: the page shows {table}, which its view does not give"
            _same(frame, declared[table], f"{name}.{table} with {chosen}")
            compared.add(table)
        assert set(record["charts"]) <= {c.name for c in view.charts}
    assert compared, f"{name}: the page showed no table of its view"


def test_a_slices_tables_name_segments_by_their_ids_in_the_set(reports):
    report = reports["wmt21.en-de"]
    part = where(report, "seg_id >= 100")
    ids = list(range(100, 118))
    frames = views.REGISTRY["segments"].frames(part, views.REGISTRY["segments"].resolve(part))
    assert sorted(set(frames["queue"]["seg_id"])) == ids and sorted(frames["sources"]["seg_id"]) == ids
    compare = views.REGISTRY["compare"]
    assert sorted(compare.frames(part, compare.resolve(part))["segments"]["seg_id"]) == ids
    assert views.positions(part, [100, 117]).tolist() == [0, 17]
    with pytest.raises(ValueError, match="segment 5 is not in this data"):
        views.position(part, 5)


def test_with_set_ids_names_every_kind_of_segment_reference():
    class Part:  # a slice of segments 3, 5 and 9 of a set
        class evalset:
            seg_ids = np.array([3, 5, 9])

    frame = pd.DataFrame({"seg": [0, 2], "segments": [[0, 1], [2]], "missed_in": ["0, 2", ""]})
    shown = views.with_set_ids(Part, frame)
    assert list(shown.columns) == ["seg_id", "segments", "missed_in"] and shown["seg_id"].tolist() == [3, 9]
    assert shown["segments"].tolist() == [[3, 5], [9]] and shown["missed_in"].tolist() == ["3, 9", ""]
    for given in (pd.DataFrame({"seg_id": [1, 3]}), pd.DataFrame({"king": [0.5]}, index=pd.Index([3], name="seg_id"))):
        with pytest.raises(ValueError, match=r"^a table: a builder names segments by their 0-based position, as seg "):
            views.with_set_ids(Part, given)  # a seg_id is the set's id: only with_set_ids writes one
    indexed = views.with_set_ids(Part, pd.DataFrame({"king": [0.5, 1.0]}, index=pd.Index([0, 1], name="seg")))
    assert indexed.index.name == "seg_id" and list(indexed.index) == [3, 5]
    assert list(frame["seg"]) == [0, 2]  # the builder's frame is not changed


FORBIDDEN = {("st", "dataframe"), ("st", "plotly_chart"), ("st", "cache_data"), ("widgets", "table"),
             ("state", "view"), ("state", "memo")}


@pytest.mark.parametrize("path", sorted(p for p in LAYOUTS.glob("*.py") if p.stem != "__init__"), ids=lambda p: p.stem)
def test_a_layout_draws_tables_and_charts_through_its_page_only(path):
    """Presentation only: a layout gets every table and chart through :class:`mtdiag.ui.page.Page` (so the test
    above sees each), and imports nothing of mtdiag but the dashboard's own modules and the writers."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    calls = [(node.func.value.id, node.func.attr) for node in ast.walk(tree) if isinstance(node, ast.Call)
             and isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name)]
    assert not [c for c in calls if c in FORBIDDEN], path.name
    imported = {f"{node.module}.{alias.name}" if node.module == "mtdiag" else node.module
                for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) for alias in node.names}
    imported |= {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    faces = {"mtdiag.core", "mtdiag.report"}  # `from mtdiag.core import highlight` names the package, then the module
    core = {m for m in imported if m.startswith("mtdiag") and not m.startswith("mtdiag.ui") and m not in faces}
    assert core <= {"mtdiag.core.highlight", "mtdiag.core.needs", "mtdiag.report.export"}, (path.name, core)

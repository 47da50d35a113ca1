"""``widgets.table(page_size=...)``: a long table reaches the browser a page at a time; a selection is returned as
its position in the whole frame; the page number follows a filter that leaves fewer pages."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest


def _script():
    import pandas as pd
    import streamlit as st

    from mtdiag.ui import widgets

    n = st.session_state.get("n_rows", 25)
    frame = pd.DataFrame({"seg_id": range(1, n + 1), "text": [f"row {i}" for i in range(n)]})  # a view's: the set's ids
    picked = widgets.table(frame, key="paged", select=True, page_size=10)
    st.text(f"picked={picked}")


def _picked(at) -> str:
    return next(t.value for t in at.text if t.value.startswith("picked="))


def test_pages_show_a_slice_and_selections_map_back_to_the_whole_frame():
    at = AppTest.from_function(_script).run()
    assert not at.exception
    assert len(at.dataframe(key="paged").value) == 10
    assert "Rows 1–10 of 25; the downloads have them all." in [c.value for c in at.caption]
    at.number_input(key="paged_page").set_value(3).run()
    page = at.dataframe(key="paged_page3").value
    assert page["seg_id"].tolist() == [21, 22, 23, 24, 25]
    at.session_state["paged_page3"] = {"selection": {"rows": [1], "columns": [], "cells": []}}
    at.run()
    assert _picked(at) == "picked=21"  # position 21 of the whole frame: row "row 21"
    at.session_state["n_rows"] = 12  # filtered down to two pages: the page number follows
    at.run()
    assert not at.exception and at.number_input(key="paged_page").value == 2
    assert len(at.dataframe(key="paged_page2").value) == 2


def test_a_short_table_has_no_pages():
    at = AppTest.from_function(_script)
    at.session_state["n_rows"] = 10
    at.run()
    assert not at.exception and len(at.dataframe(key="paged").value) == 10
    assert not at.number_input

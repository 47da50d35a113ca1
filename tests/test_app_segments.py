"""The Segments page under Streamlit's AppTest: the queue as pairs or sources, one source with every system, the
regex search and its error, documents (filter and per-document scores), human scores and the full exports."""

from __future__ import annotations

import re

import pytest

from mtdiag.triage import checks, ranking

from tests.test_app import (  # noqa: F401  (the autouse fixtures of the dashboard tests apply here too)
    SAMPLE, SETS, clear_caches, html_bodies, no_data_argument, shown, start, table_with, visit)

DOC_SET = {"src.txt": ["die Katze sitzt", "der Hund läuft", "es regnet heute", "wir essen Brot", "das Haus ist alt"],
           "ref.txt": ["the cat sits", "the dog runs", "it rains today", "we eat bread", "the house is old"],
           "test.en-de.alpha.txt": ["the cat sits", "dog dog dog runs", "it rains today", "we eat bread",
                                    "the old house"],
           "test.en-de.beta.txt": ["a cat is sitting", "the dog runs", "rain", "we eat some bread",
                                   "the house is old"]}
DOCS = ["d1", "d1", "d2", "d2", "d3"]


def output_labels(at) -> list[str]:
    """The systems whose output the one-source view shows, in order (its 'Hypothesis (NAME)' labels)."""
    return re.findall(r'<span class="mtd-label">Hypothesis \(([^)]*)\)', html_bodies(at))


def headers(at) -> list[str]:
    return [shown(m.value) for m in at.markdown if m.value.startswith("#### Segment")]


@pytest.mark.parametrize("sample", SETS)
def test_pairs_sources_and_the_one_source_view_on_every_sample_set(sample):
    at = start()
    at.selectbox(key="data_set").set_value(str(SAMPLE / sample)).run()
    visit(at, "segments").run()
    assert not at.exception, [e.value for e in at.exception]
    systems = at.multiselect(key="seg_systems").value
    table = at.dataframe(key="seg_table").value
    assert list(table.columns[:4]) == ["system", "seg_id", "src", "hyp"]  # text first
    screen = min(ranking.FIRST_SCREEN, len(table) // len(systems))
    assert table["seg_id"].head(screen).is_unique and table["seg_id"].min() == 1  # one pair per source first
    first = table.iloc[0]
    assert headers(at) == [f"#### Segment {first['seg_id']} · {first['system']}"]
    labels = output_labels(at)
    assert sorted(labels) == sorted(systems) and labels[0] == first["system"]  # every system, selected first
    at.radio(key="seg_view").set_value("sources").run()
    assert not at.exception, [e.value for e in at.exception]
    sources = at.dataframe(key="seg_src_table").value
    n_segments = len(table) // len(systems)
    assert len(sources) == n_segments and sources["difficulty"].is_monotonic_decreasing
    at.radio(key="seg_src_sort").set_value("spread").run()
    sources = at.dataframe(key="seg_src_table").value
    assert sources["spread"].is_monotonic_decreasing
    top = sources.iloc[0]
    assert headers(at) == [f"#### Segment {top['seg_id']} · {top['worst_system']}"]
    assert sorted(output_labels(at)) == sorted(systems)
    at.radio(key="seg_view").set_value("pairs").run()
    assert len(at.dataframe(key="seg_table").value) == len(table)
    at.toggle(key="seg_strict").set_value(True).run()
    strict = at.dataframe(key="seg_table").value
    critical = checks.critical(strict[checks.flag_columns(strict)]).to_numpy()
    assert critical[: critical.sum()].all() and strict["problem"][~critical].is_monotonic_decreasing


def test_selecting_a_source_opens_it_sortable_by_any_score():
    at = start()
    visit(at, "segments").run()
    at.radio(key="seg_view").set_value("sources").run()
    sources = at.dataframe(key="seg_src_table").value
    at.session_state["seg_src_table"] = {"selection": {"rows": [4], "columns": [], "cells": []}}
    at.run()
    row = sources.iloc[4]
    assert headers(at) == [f"#### Segment {row['seg_id']} · {row['worst_system']}"]
    at.selectbox(key="seg_detail_sort").set_value("chrf").run()
    assert not at.exception
    labels = output_labels(at)
    body = html_bodies(at)
    chrf = [float(re.search(r"Hypothesis \(" + re.escape(s) + r"\)[^<]*?chrF \S+ ([\d.]+)", body).group(1))
            for s in labels]
    assert labels[0] == row["worst_system"] and chrf[1:] == sorted(chrf[1:])  # selected first, then worst chrF first


def test_invalid_regex_shows_an_error_and_the_page_keeps_working():
    at = start()
    visit(at, "segments").run()
    n = len(at.dataframe(key="seg_table").value)
    at.text_input(key="seg_text").set_value("(Hund[").run()
    assert not at.exception
    errors = [shown(e.value) for e in at.error]
    assert len(errors) == 1 and "the search '(Hund[' is not a valid regular expression" in errors[0]
    assert len(at.dataframe(key="seg_table").value) == n and headers(at)
    at.text_input(key="seg_text").set_value("(?R)?x").run()  # recursion: refused before any text is read
    assert not at.exception and [shown(e.value) for e in at.error] == [
        "the search '(?R)?x': not supported: recursion ((?R), (?1), (?&name))"]
    assert len(at.dataframe(key="seg_table").value) == n
    at.text_input(key="seg_text").set_value(r"Hund\w*").run()
    table = at.dataframe(key="seg_table").value
    assert not at.error and 0 < len(table) < n


def test_human_scores_are_a_column_when_loaded():
    at = start()  # wmt21.en-de has MQM scores
    visit(at, "segments").run()
    table = at.dataframe(key="seg_table").value
    assert "human" in table.columns and table["human"].notna().any()


def test_documents_filter_and_per_document_scores(tmp_path, monkeypatch):
    """A small folder whose segments carry documents (as a WMT XML set's do: the folder loader itself reads no
    document ids, so the test adds them where the dashboard loads the folder)."""
    import mtdiag.io as mio

    folder = tmp_path / "docs.en-de"
    folder.mkdir()
    for name, lines in DOC_SET.items():
        (folder / name).write_text("\n".join(lines) + "\n", encoding="utf-8")
    load_folder = mio.load_folder

    def with_documents(path, *args, **kwargs):
        evalset = load_folder(path, *args, **kwargs)
        if str(path).endswith("docs.en-de"):
            evalset.segments["doc"] = DOCS
        return evalset

    monkeypatch.setattr(mio, "load_folder", with_documents)
    monkeypatch.setenv("MTDIAG_DATA", str(folder))
    at = start()
    visit(at, "segments").run()
    assert not at.exception, [e.value for e in at.exception]
    assert len(at.dataframe(key="seg_table").value) == 10
    assert "seg_docs" not in [d.key for d in at.dataframe]  # the panel is closed: nothing computed or drawn
    at.session_state["seg_documents"] = True  # the panel opened: its table is computed and drawn only then
    at.run()
    docs = table_with(at, "doc", "system", "segments", "bleu")
    assert docs[["doc", "system"]].values.tolist() == [[d, s] for d in ("d1", "d2", "d3") for s in ("alpha", "beta")]
    assert docs["segments"].tolist() == [2, 2, 2, 2, 1, 1]
    at.selectbox(key="seg_doc").set_value("d2").run()
    table = at.dataframe(key="seg_table").value
    assert sorted(set(table["seg_id"])) == [3, 4] and set(table["doc"]) == {"d2"} and len(table) == 4
    at.radio(key="seg_view").set_value("sources").run()
    assert sorted(at.dataframe(key="seg_src_table").value["seg_id"]) == [3, 4]
    assert {b.label for b in at.get("download_button")} >= {"CSV", "Excel", "JSON"}


def test_the_systems_filter_says_how_many_systems_it_keeps():
    """Issue 37: in its column the Systems filter shows the chips of a few systems on one scrolling line, and nothing
    said that the others were chosen too (2 of 10 shown, no "+8"). Its label counts them; choosing fewer keeps the
    filter (the label is not its identity)."""
    at = start()
    visit(at, "segments").run()
    systems = at.multiselect(key="seg_systems")
    assert systems.label == f"Systems ({len(systems.options)} of {len(systems.options)})"
    systems.set_value(systems.options[:2]).run()
    assert at.multiselect(key="seg_systems").label == f"Systems (2 of {len(systems.options)})"
    assert at.multiselect(key="seg_systems").value == systems.options[:2]
    assert set(at.dataframe(key="seg_table").value["system"]) == set(systems.options[:2])
    assert at.multiselect(key="seg_flags").label == "Flags (any of)"  # nothing chosen: nothing to count

"""AppTest of the analysis views of issue 13 on every sample set: the Buckets page (each dimension the data allow,
two systems per bucket) and the Overview's ranked significance (clusters and the p-value matrix)."""

from __future__ import annotations

import pytest

from tests.test_app import (  # noqa: F401  (the autouse fixtures of the dashboard tests apply here too)
    SAMPLE, SETS, clear_caches, html_bodies, no_data_argument, start, table_with, visit)


REFERENCE_FREE = {"ui-strings.en-de"}  # sample sets without a reference: consensus instead of BLEU/chrF


def _corpus_columns(sample: str) -> tuple[str, ...]:
    return ("consensus",) if sample in REFERENCE_FREE else ("bleu", "chrf")


def _open(sample: str):
    at = start()
    at.selectbox(key="data_set").set_value(str(SAMPLE / sample)).run()
    assert not at.exception
    return at


@pytest.mark.parametrize("name", SETS)
def test_buckets_page_on_every_sample(name):
    at = _open(name)
    visit(at, "buckets").run()
    assert not at.exception and not at.error
    dimensions = at.selectbox(key="bk_by").options
    assert ("reference length (tokens)" in dimensions) == (name not in REFERENCE_FREE)
    for i, dimension in enumerate(dimensions):
        at.selectbox(key="bk_by").select_index(i).run()
        assert not at.exception and not at.error, dimension
        table = table_with(at, "bucket", "system", "segments")
        assert {"bucket", "system", "segments"} <= set(table.columns) and len(table) > 0
        per_system = table.groupby("system")["segments"].sum()
        assert (per_system > 0).all()
        if "human" not in dimension and "error" not in dimension:  # every segment in exactly one bucket
            assert per_system.nunique() == 1
    if any(box.key == "bk_a" for box in at.selectbox):  # two systems or more
        significance = table_with(at, "bucket", "delta", "p")
        assert {"bucket", "delta", "p", "better"} <= set(significance.columns) and len(significance) > 0
    assert at.get("plotly_chart")


@pytest.mark.parametrize("name", SETS)
def test_overview_ranks_systems_with_clusters(name):
    at = _open(name)
    corpus = table_with(at, *_corpus_columns(name))
    metric = at.selectbox(key="ov_rank").value
    scores = list(corpus[metric])
    assert scores == sorted(scores, reverse=True) or scores == sorted(scores)  # ranked by the chosen metric
    if len(corpus) < 2:
        return
    clusters = table_with(at, "rank", "cluster")
    assert list(clusters["rank"]) == list(range(1, len(corpus) + 1))
    assert clusters["cluster"].iloc[0] == 1 and clusters["cluster"].is_monotonic_increasing
    metric = _corpus_columns(name)[0]
    at.selectbox(key="ov_rank").set_value(metric).run()
    assert not at.exception
    assert list(table_with(at, "rank", "cluster")["system"]) == list(table_with(at, *_corpus_columns(name)).index)


@pytest.mark.parametrize("name", SETS)
def test_distributions_page_box_violin_and_scatter(name):
    at = _open(name)
    visit(at, "distributions").run()
    assert not at.exception and not at.error
    charts = at.get("plotly_chart")
    assert len(charts) == 2
    box = charts[0].proto.spec
    assert '"type":"box"' in box
    at.segmented_control(key="dist_kind").set_value("violin").run()
    assert '"type":"violin"' in at.get("plotly_chart")[0].proto.spec
    assert '"type":"scattergl"' in at.get("plotly_chart")[1].proto.spec
    assert any(c.value.startswith("Showing ") for c in at.caption)


def test_ngrams_between_two_systems():
    at = _open("wmt21.en-de")
    visit(at, "ngrams").run()
    at.radio(key="ng_mode").set_value("system").run()
    assert not at.exception and not at.error
    system, other = at.selectbox(key="ng_system").value, at.selectbox(key="ng_other").value
    assert system != other
    rows = at.dataframe(key="ng_sys_only_a").value
    assert len(rows) > 0 and (rows["b_count"] == 0).all() and (rows["a_count"] >= 2).all()
    at.session_state["ng_sys_only_a"] = {"selection": {"rows": [0], "columns": [], "cells": []}}
    at.run()
    assert not at.exception
    assert "mtd-k-ngram" in "".join(h.proto.body for h in at.get("html"))
    at.segmented_control(key="ng_side").set_value("only_b").run()
    other_rows = at.dataframe(key="ng_sys_only_b").value
    assert (other_rows["a_count"] == 0).all() and (other_rows["b_count"] >= 2).all()


def test_overview_offers_latex_with_significance_marks():
    at = _open("wmt21.en-de")
    labels = [str(b.proto.label) for b in at.get("download_button")]
    assert {"CSV", "Excel", "JSON", "LaTeX"} <= set(labels)


def _formats(at, *columns: str) -> dict:
    """The number format of every column of the first table on the page that has ``columns``."""
    import json

    for element in at.dataframe:
        if set(columns) <= set(element.value.columns):
            config = json.loads(element.proto.columns)
            return {name: c.get("type_config", {}).get("format") for name, c in config.items() if name in
                    element.value.columns}
    raise AssertionError(f"no table with columns {columns}")


def test_one_number_format_per_column_and_one_for_every_human_score():
    """Issue 37: a column showed "-18", "-9.66667", "-19.7333" (Streamlit trims each number by itself) and human scores
    were "55.71" on one page and "62.8302" on another. Every number column has one format: a metric's places,
    human scores two decimals everywhere (tables, the outputs' labels), any other number four (as the command line)."""
    import re

    from mtdiag.analysis.human_agreement import SCORE_PLACES

    at = start()
    visit(at, "human").run()
    at.segmented_control(key="hl_section").set_value("likeness").run()
    assert set(_formats(at, "orange", "king", "tie_share").values()) == {"%.4f"}
    at.segmented_control(key="hl_section").set_value("human").run()
    assert _formats(at, "human", "n_rated", "rank")["human"] == f"%.{SCORE_PLACES}f"
    assert _formats(at, "seg_pearson", "sys_kendall")["seg_pearson"] == "%.4f"
    visit(at, "segments").run()
    assert _formats(at, "system", "seg_id", "problem")["human"] == f"%.{SCORE_PLACES}f"
    at.session_state["seg_detail_sort"] = "human"
    at.run()
    labels = re.findall(r"human (-?[0-9.]+)", html_bodies(at))
    assert labels and all(re.fullmatch(rf"-?\d+\.\d{{{SCORE_PLACES}}}", value) for value in labels), labels

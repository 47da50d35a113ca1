"""AppTest of a WMT release in the sidebar — a folder on the server and a .zip upload of the invented release
``tests/data/wmt99`` — and of the Metrics-vs-humans page drawn from it (the frames equal the view's: the numbers
themselves are tested in ``tests/test_meta_evaluation.py``)."""

from __future__ import annotations

import pytest

from tests.test_app import clear_caches, html_bodies, no_data_argument, start, table_with, visit  # noqa: F401
from tests.test_mtme_layout import WMT99, packed


@pytest.fixture
def release_folder(monkeypatch):
    monkeypatch.setenv("MTDIAG_DATA", str(WMT99))


def test_a_release_folder_opens_on_its_pair_and_the_page_shows_every_metric(release_folder):
    at = start()
    assert at.selectbox(key="data_set").value == str(WMT99)
    assert at.selectbox(key="mtme_folder_lp").options == ["de-en", "en-de"]
    at.selectbox(key="mtme_folder_lp").set_value("en-de").run()
    human = at.selectbox(key="mtme_folder_human")
    assert human.options == ["mqm", "da-sqm"]  # MQM first
    visit(at, "overview").run()
    assert not at.exception, [e.value for e in at.exception]
    corpus = table_with(at, "MetA-refA", "MetB-src")
    corpus = corpus.set_index("system") if "system" in corpus.columns else corpus
    assert corpus.at["sysA", "MetA-refA"] == 0.95  # the published .sys.score, not the mean 0.89225
    visit(at, "meta_evaluation").run()
    assert not at.exception and not at.error, [e.value for e in at.exception]
    metrics = table_with(at, "metric", "segment_pearson", "system_accuracy")
    assert {"MetA-refA", "MetB-src", "MetC-refB", "MetD-refA", "predicted_mqm"} <= set(metrics["metric"])
    assert table_with(at, "group", "segments")["group"].unique().tolist() == ["news", "social"]
    disagreements = table_with(at, "gap", "human_errors")
    assert len(disagreements) == 31 - 1  # every item MetA-refA and the humans both score, worst first
    assert at.selectbox(key="me_metric").value == "MetA-refA"
    worst = disagreements.iloc[0]
    drawn = html_bodies(at)  # the worst disagreement's output, drawn with its human error spans
    assert f"{worst['system']} · human {worst['human']:.2f}" in drawn and "human-marked" in drawn


def test_the_human_type_and_an_included_output_change_the_data(release_folder):
    at = start()
    at.selectbox(key="mtme_folder_lp").set_value("en-de").run()
    at.selectbox(key="mtme_folder_human").set_value("da-sqm").run()
    at.multiselect(key="mtme_folder_include_en-de").set_value(["refB"]).run()
    visit(at, "meta_evaluation").run()
    assert not at.exception, [e.value for e in at.exception]
    systems = table_with(at, "published", "mean", "in_set").set_index("system")
    assert systems.at["sysA", "published"] == 0.41 and systems.at["refB", "in_set"]
    assert "MetC-refB" not in set(table_with(at, "metric", "segment_pearson")["metric"])  # used refB, now an output


def test_a_zip_upload_of_a_release(monkeypatch):
    at = start()
    at.radio(key="data_mode").set_value("Upload files").run()
    name, data = packed("zip")
    at.file_uploader(key="up_testset").set_value((name, data, "application/zip")).run()
    assert not at.exception, [e.value for e in at.exception]
    at.selectbox(key="mtme_upload_lp").set_value("de-en").run()
    visit(at, "meta_evaluation").run()
    assert not at.exception and not at.error, [e.value for e in at.exception]
    assert {"MetA-refA"} <= set(table_with(at, "metric", "segment_pearson")["metric"])

"""Pearmut in the dashboard (AppTest): the Segments page offers the queue as filtered as a Pearmut campaign, with its
options; a Pearmut annotation log uploaded as human error spans gives the human scores (the annotators' means), the
per-rater statistics and the human spans of the segment detail."""

from __future__ import annotations

import json

import numpy as np
import pytest

from mtdiag.io.pearmut_log import IDS_KEY
from mtdiag.ui import campaign_download as ui_pearmut

from tests.test_app import (  # noqa: F401  (the autouse fixtures of the dashboard tests apply here too)
    SAMPLE, clear_caches, no_data_argument, shown, sidebar_text, start, table_with, visit)
from tests.test_app_uploads import upload

SET = "wmt21.en-ja"  # no human scores of its own: the log's are the set's


@pytest.fixture
def made(monkeypatch):
    """Every campaign the page makes (the download's content), in order."""
    campaigns = []

    def recording(*args, **kwargs):
        campaign = make(*args, **kwargs)
        campaigns.append((args, kwargs, campaign))
        return campaign

    make = ui_pearmut.pearmut_campaign
    monkeypatch.setattr(ui_pearmut, "pearmut_campaign", recording)
    return campaigns


def on_segments():
    at = start()
    at.selectbox(key="data_set").set_value(str(SAMPLE / SET)).run()
    visit(at, "segments").run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def make(at):
    """Click "Make the campaign" (the page makes none before)."""
    at.button(key="seg_pearmut_make").click().run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_the_segments_page_offers_the_filtered_queue_as_a_campaign(made):
    at = on_segments()
    assert "Pearmut campaign" not in [b.proto.label for b in at.get("download_button")] and not made
    make(at)
    assert "Pearmut campaign" in [b.proto.label for b in at.get("download_button")]
    table = at.dataframe(key="seg_table").value
    _, kwargs, campaign = made[-1]
    assert campaign.segments == list(dict.fromkeys(table["seg_id"].head(50)))  # the first 50 pairs' segments
    assert campaign.data["info"]["protocol"] == "ESA" and len(campaign.data["data"]) == 1
    assert any("pre-filled" in shown(c.value) for c in at.caption)
    system = at.multiselect(key="seg_systems").value[1]
    at.multiselect(key="seg_systems").set_value([system]).run()
    assert "Pearmut campaign" not in [b.proto.label for b in at.get("download_button")]  # other rows: not made yet
    at.number_input(key="seg_pearmut_top").set_value(5).run()
    at.number_input(key="seg_pearmut_users").set_value(3).run()
    at.radio(key="seg_pearmut_protocol").set_value("mqm").run()
    make(at)
    rows = at.dataframe(key="seg_table").value
    assert set(rows["system"]) == {system}
    _, kwargs, campaign = made[-1]
    assert campaign.segments == rows["seg_id"].head(5).tolist()  # the filtered queue: one system, five pairs
    assert campaign.data["info"]["protocol"] == "MQM" and len(campaign.data["data"]) == 3
    assert kwargs["threshold"] == at.slider(key="seg_span_threshold").value
    assert at.number_input(key="seg_pearmut_top").max == len(rows)  # Pairs: at most the rows of the queue
    assert at.number_input(key="seg_pearmut_users").max == 100  # Annotators: at most MAX_USERS
    at.number_input(key="seg_pearmut_top").set_value(len(rows)).run()  # every row the filter leaves
    make(at)
    assert made[-1][2].segments == rows["seg_id"].tolist()


def test_a_made_campaign_is_kept_and_reruns_make_nothing(made):
    """A rerun serialised the campaign every time (Pairs 100000 x Annotators 100 on the sample set: 3.2-3.5 s of
    CPU a rerun, 0.47 s without); now it is made once, when asked, and a rerun only draws the button."""
    at = make(on_segments())
    assert len(made) == 1
    for _ in range(3):
        at.run()
        at.slider(key="seg_span_threshold")  # another rerun, as any click on the page
    at.radio(key="seg_view").set_value("sources").run()
    at.radio(key="seg_view").set_value("pairs").run()
    assert not at.exception and len(made) == 1
    assert "Pearmut campaign" in [b.proto.label for b in at.get("download_button")]


def test_a_campaign_past_the_limit_is_refused_in_one_line(made, monkeypatch):
    monkeypatch.setattr(ui_pearmut, "limit_mb", lambda: 0.001)
    at = make(on_segments())
    refusal = [c.value for c in at.caption if "the campaign would be" in c.value]
    assert len(refusal) == 1 and "at most 0.001 MB" in shown(refusal[0])
    assert "Pearmut campaign" not in [b.proto.label for b in at.get("download_button")]


def annotation_log(campaign) -> tuple[bytes, dict]:
    """Two annotators' answers to every page of ``campaign`` as Pearmut logs them; the scores they gave per system."""
    lines, given = [], {}
    for u, user in enumerate(("ample-finch-101", "brisk-lynx-202")):
        for item_i, page in enumerate(campaign.data["data"][u % len(campaign.data["data"])]):
            item = page[0]
            answers = {}
            for k, (key, text) in enumerate(item["tgt"].items()):
                score = (17 * item_i + 29 * k + 41 * u) % 101
                spans = item["error_spans"][key][:1]  # keeps the first pre-filled span
                answers[key] = {"score": score, "error_spans": spans}
                given.setdefault(item[IDS_KEY]["systems"][key], []).append(score)
            lines.append({"annotation": [answers], "item": [item], "actions": [], "user_id": user, "item_i": item_i})
    return "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines).encode(), given


def test_an_uploaded_log_gives_human_scores_raters_and_spans(made):
    at = make(on_segments())
    campaign = made[-1][2]
    data, given = annotation_log(campaign)
    upload(at, "up_annotations", "mtdiag-wmt21.en-ja-esa.jsonl", data)
    assert not at.error, [e.value for e in at.error]
    assert f"{SET} + mtdiag-wmt21.en-ja-esa.jsonl" in sidebar_text(at)

    visit(at, "human").run()
    at.segmented_control(key="hl_section").set_value("human").run()
    assert not at.exception, [e.value for e in at.exception]
    ranking = table_with(at, "system", "human", "n_rated").set_index("system")  # the mean human score
    assert ranking["human"].to_dict() == pytest.approx({s: np.mean(v) for s, v in given.items()})
    assert set(ranking["n_rated"]) == {len(campaign.segments)}
    # the set's human scores are ESA now: predicted ESA is derived on the judged report (no scoring again)
    assert "predicted_esa" in set(table_with(at, "metric", "seg_accuracy")["metric"])
    at.segmented_control(key="hl_section").set_value("errors").run()
    # the set's protocol is now ESA, whose spans' default threshold is higher: measure at the campaign's threshold
    at.slider(key="hl_agreement_threshold").set_value(made[-1][1]["threshold"]).run()
    raters = table_with(at, "rater", "system", "segments", "errors")
    assert set(raters["rater"]) == {"ample-finch-101", "brisk-lynx-202"}
    agreement = table_with(at, "system", "outputs", "human_spans", "precision").set_index("system")
    assert agreement.loc["all", "outputs"] == len(campaign.segments) * len(given)  # the rated outputs
    whole = agreement.loc["all"]  # the annotators kept each output's first pre-filled span, and marked nothing else
    assert whole["char_r"] == 1.0 and whole["major_recall"] == 1.0 and 0 < whole["precision"] < 1

    visit(at, "segments").run()
    table = at.dataframe(key="seg_table").value
    spans = campaign.spans
    system, seg_id = spans["system"].iat[0], int(spans["seg_id"].iat[0])
    row = int(((table["system"] == system) & (table["seg_id"] == seg_id)).to_numpy().nonzero()[0][0])
    at.session_state["seg_table"] = {"selection": {"rows": [row], "columns": [], "cells": []}}
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert "Human errors" in [t.label for t in at.tabs]
    errors = table_with(at, "rater", "severity", "category", "text")
    assert set(errors["rater"]) == {"ample-finch-101", "brisk-lynx-202"}
    assert "human_major" in "\n".join(h.value for h in at.get("html"))  # drawn as human spans in the output


def test_a_log_of_another_set_is_one_error_and_the_data_stays(made):
    at = make(on_segments())
    data, _ = annotation_log(made[-1][2])
    first = json.loads(data.splitlines()[0])
    first["item"][0]["tgt"][next(iter(first["item"][0]["tgt"]))] = "another text"  # not this set's output
    upload(at, "up_annotations", "other.jsonl", json.dumps(first).encode() + b"\n")
    errors = [shown(e.value) for e in at.error]
    assert any("other.jsonl: line 1:" in e and "a log of another test set?" in e and "data loaded before stays" in e
               for e in errors), errors
    assert SET in sidebar_text(at) and "other.jsonl" not in sidebar_text(at)


def test_the_campaigns_size_is_said_in_what_it_counts(made):
    """The number counts rows of the queue and the campaign holds their sources with every system's output: "Pairs
    of the queue: 50" exported 50 segments × 10 systems (500 outputs) on WMT23. The label says it counts the queue's
    rows and gives sources; the caption says sources × systems = outputs."""
    at = on_segments()
    box = at.number_input(key="seg_pearmut_top")
    assert box.label == "Sources of the queue's first N rows" and box.value == 50
    at.button(key="seg_pearmut_make").click().run()
    _, _, campaign = made[-1]
    systems = len(at.multiselect(key="seg_systems").options)
    sources = len(campaign.segments)
    assert sources == 50 and systems > 1
    said = (f"{sources} sources × {systems} systems = {sources * systems} outputs to annotate, "
            f"{len(campaign.spans):,} spans")
    assert any(shown(c.value).startswith(said) for c in at.caption), [shown(c.value) for c in at.caption]

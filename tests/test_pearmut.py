"""Pearmut campaigns of the queue (:mod:`mtdiag.report.campaign`) and Pearmut's annotation log read back
(:mod:`mtdiag.io.pearmut_log`), without Pearmut itself (``tests/test_pearmut_real.py`` runs the real one): Pearmut's
offsets (UTF-16 code units, end inclusive) against mtdiag's (code points, end exclusive), the campaign's items,
spans and ids, and the log's answers, resets, revisions, scores and errors."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

from mtdiag.scoring.evaluate import Options, evaluate
from mtdiag.report.campaign import (MQM_SEVERITIES, campaign_id_for, campaign_text, merged_spans, model_keys,
                                    pearmut_campaign)
from mtdiag.core.errors import InputError
from mtdiag.io import read_human_scores, weighed, with_error_annotations
from mtdiag.io.pearmut_log import IDS_KEY, from_pearmut, to_pearmut, utf16_boundaries
from mtdiag.spans.judge import judged
from mtdiag.spans import predict_spans
from mtdiag.triage.ranking import worst_first
from tests.conftest import REPO
from tests.pearmut_env import small_set


def annotated(evalset, log):
    """``evalset`` with a log's annotations, weighed under the default scheme (as a report's set is)."""
    return weighed(with_error_annotations(evalset, log))


@pytest.fixture(scope="module")
def report():
    return evaluate(small_set(), Options())


# ------------------------------------------------------------------------------------------------ offsets


def utf16_units(text: str, i: int) -> int:
    """Independent of mtdiag: the UTF-16 offset of character ``i``."""
    return len(text[:i].encode("utf-16-le")) // 2


@pytest.mark.parametrize("text", ["plain ASCII text", "Größe und Maß", "😀😀 The dog", "like green 𠀋 pears",
                                  "日本語のテキスト", "e\u0301 combining", "👩‍👩‍👧 family", ""])
def test_utf16_boundaries_count_code_units(text):
    assert utf16_boundaries(text).tolist() == [utf16_units(text, i) for i in range(len(text) + 1)]


def test_end_is_inclusive_and_emoji_are_two_units():
    text = "😀😀 The dog"
    start_i, end_i = to_pearmut(text, 3, 6)  # "The"
    assert (int(start_i), int(end_i)) == (5, 7)  # two emoji of two units each, then a space; 'e' is unit 7
    assert text.encode("utf-16-le")[2 * 5:2 * 8].decode("utf-16-le") == "The"
    start_i, end_i = to_pearmut(text, 1, 2)  # the second emoji: both of its units, inclusive
    assert (int(start_i), int(end_i)) == (2, 3)
    assert from_pearmut(text, 5, 7) == (3, 6)
    assert from_pearmut(text, 3, 3) == (1, 2)  # half an emoji is the whole character
    assert from_pearmut("abc", 1, 1) == (1, 2)  # one character: start_i == end_i


def test_offsets_round_trip_every_span_of_a_text():
    text = "a😀b𠀋c d"
    for start in range(len(text)):
        for end in range(start + 1, len(text) + 1):
            start_i, end_i = to_pearmut(text, start, end)
            assert end_i >= start_i
            assert from_pearmut(text, int(start_i), int(end_i)) == (start, end)


def test_missing_is_the_zero_width_span_at_the_end():
    """Pearmut's [missing] token (drawn after the text, data-i = its length in units) is an omission: the
    zero-width span at the output's end, where WMT23 and mtdiag's predictions put one; and the reverse."""
    text = "😀 ok"
    end = utf16_units(text, len(text))
    assert from_pearmut(text, end, end) == (len(text), len(text))  # [missing]
    start_i, end_i = to_pearmut(text, len(text), len(text))
    assert (int(start_i), int(end_i)) == (end, end)
    assert from_pearmut(text, 0, end) == (0, len(text))  # a span running from the text onto [missing]: to its end
    with pytest.raises(ValueError):
        from_pearmut(text, 3, 2)
    for start_i, end_i in ((0, end + 1), (end + 1, end + 1), (10**400, 10**400)):  # past [missing]: no such element
        with pytest.raises(ValueError, match=f"lie past the output's end \\(it has {end} UTF-16 units; Pearmut's "
                                             f"\\[missing\\] token is {end}\\)"):
            from_pearmut(text, start_i, end_i)


# ------------------------------------------------------------------------------------------------ campaign


def test_items_are_the_queues_segments_each_once_in_queue_order(report):
    queue = worst_first(report)
    campaign = pearmut_campaign(report, top=8)
    expected = list(dict.fromkeys(report.evalset.seg_ids[queue["seg"].head(8)].tolist()))  # the set's ids
    assert campaign.segments == expected
    task = campaign.data["data"][0]
    assert [page[0][IDS_KEY]["seg_id"] for page in task] == expected
    assert all(len(page) == 1 for page in task)  # one page per segment
    assert [page[0]["item_id"] for page in task] == [str(s) for s in expected]


def test_every_system_output_and_the_source_in_each_item(report):
    evalset = report.evalset
    keys = model_keys(evalset.systems)
    for page in pearmut_campaign(report, top=24).data["data"][0]:
        item = page[0]
        seg = item[IDS_KEY]["seg_id"] - 1
        assert item["src"] == evalset.src.iat[seg]
        assert "ref" not in item  # ESA and MQM are source-based
        assert item["tgt"] == {keys[s]: evalset.hyps[s].iat[seg] for s in evalset.systems}
        assert {item[IDS_KEY]["systems"][k] for k in item["tgt"]} == set(evalset.systems)
    with_ref = pearmut_campaign(report, top=2, with_reference=True).data["data"][0][0][0]
    assert with_ref["ref"] == evalset.refs["A"].iat[with_ref[IDS_KEY]["seg_id"] - 1]


def test_no_source_shows_the_reference(report):
    evalset = replace(report.evalset, segments=report.evalset.segments.assign(src=""))
    item = pearmut_campaign(evaluate(evalset, Options()), top=1).data["data"][0][0][0]
    assert "src" not in item and item["ref"] == evalset.refs["A"].iat[item[IDS_KEY]["seg_id"] - 1]


def test_prefilled_spans_are_mtdiags_spans_with_inclusive_utf16_ends(report):
    """Every pre-filled span is a span `mtdiag spans` predicts (same characters), in Pearmut's offsets; only spans
    of one output that overlap are pre-filled as their union."""
    campaign = pearmut_campaign(report, top=24, threshold=0.1)
    predicted = predict_spans(report, 0.1)
    keys = model_keys(report.evalset.systems)
    checked = 0
    for page in campaign.data["data"][0]:
        item = page[0]
        seg = item[IDS_KEY]["seg_id"] - 1
        for system in report.evalset.systems:
            text = item["tgt"][keys[system]]
            mine = predicted[(predicted["system"] == system) & (predicted["seg"] == seg)]
            expected = merged_spans(mine)
            given = item["error_spans"][keys[system]]
            assert len(given) == len(expected)
            for span, row in zip(given, expected.itertuples()):
                last = row.end if row.end > row.start else row.start + 1  # zero width: the unit at its start
                assert (span["start_i"], span["end_i"]) == (utf16_units(text, row.start), utf16_units(text, last) - 1)
                assert text.encode("utf-16-le")[2 * span["start_i"]:2 * (span["end_i"] + 1)].decode(
                    "utf-16-le") == text[row.start:row.end]
                assert span["severity"] == ("major" if row.severity == "critical" else row.severity)  # ESA
                assert span["category"] is None
                checked += 1
            overlapping = len(mine) > 1 and (mine["start"].to_numpy()[1:] < np.maximum.accumulate(
                mine["end"].to_numpy())[:-1]).any()
            if not overlapping:
                assert expected[["start", "end"]].values.tolist() == mine[["start", "end"]].values.tolist()
    assert checked == len(campaign.spans) > 10


def test_overlapping_spans_are_merged_into_their_union():
    spans = pd.DataFrame({"start": [0, 0, 40, 42], "end": [34, 34, 42, 50], "severity": ["major", "critical",
                          "minor", "minor"], "confidence": [0.5, 0.3, 0.2, 0.4], "kind": ["unsupported", "repetition",
                          "word_order", "word_order"]})
    merged = merged_spans(spans)
    assert merged[["start", "end", "severity"]].values.tolist() == [[0, 34, "critical"], [40, 42, "minor"],
                                                                   [42, 50, "minor"]]  # touching spans stay apart
    assert merged["kind"].iat[0] == "repetition+unsupported" and merged["confidence"].iat[0] == 0.5


def test_one_combination_of_span_kinds_has_one_name():
    """Two outputs with an unsupported phrase overlapping a number mismatch, one starting first in each: the
    WMT23 export named the one combination both ways (unsupported+number_mismatch x17, number_mismatch+unsupported
    x10)."""
    spans = pd.DataFrame({"system": ["A", "A", "B", "B"], "seg": [0, 0, 0, 0], "start": [0, 5, 0, 3],
                          "end": [10, 12, 8, 9], "severity": ["major", "minor", "minor", "major"],
                          "confidence": [0.4, 0.3, 0.3, 0.4],
                          "kind": ["unsupported", "number_mismatch", "number_mismatch", "unsupported"]})
    merged = merged_spans(spans)
    assert merged[["system", "start", "end"]].values.tolist() == [["A", 0, 12], ["B", 0, 9]]
    assert merged["kind"].tolist() == ["number_mismatch+unsupported"] * 2


def test_mqm_campaign_keeps_critical_and_asks_no_score(report):
    campaign = pearmut_campaign(report, top=24, protocol="mqm")
    info = campaign.data["info"]
    assert info["protocol"] == "MQM" and info["sliders"] == [] and info["mqm_severities"] == MQM_SEVERITIES
    severities = {s["severity"] for page in campaign.data["data"][0] for spans in page[0]["error_spans"].values()
                  for s in spans}
    assert "critical" in severities  # the repetition loop of system 12
    esa = pearmut_campaign(report, top=24).data
    assert esa["info"]["protocol"] == "ESA" and "sliders" not in esa["info"]
    assert "critical" not in {s["severity"] for page in esa["data"][0] for spans in page[0]["error_spans"].values()
                              for s in spans}


def test_model_keys_pearmut_accepts():
    keys = model_keys(["A", "12", 'x"y', "<b>", "system-2"])
    assert keys == {"A": "A", "12": "system-2'", 'x"y': "system-3", "<b>": "system-4", "system-2": "system-2"}


def test_users_each_annotate_every_page(report):
    data = pearmut_campaign(report, top=3, users=3).data
    assert data["info"]["assignment"] == "task-based" and len(data["data"]) == 3
    assert data["data"][0] == data["data"][1] == data["data"][2]


def test_media_tags_are_left_out_with_a_note(report):
    hyps = report.evalset.hyps.copy()
    seg = int(worst_first(report)["seg"].iat[0])
    hyps.loc[seg, "B"] = '<img src=x onerror="alert(1)">'
    hostile = evaluate(report.evalset.with_hyps(hyps), Options())
    campaign = pearmut_campaign(hostile, top=24)
    assert seg + 1 not in campaign.segments
    assert any(f"segment {seg + 1} left out" in note and "B" in note for note in campaign.notes)


def test_campaign_ids_and_bad_options(report):
    assert campaign_id_for("wmt21 en/de", "esa") == "mtdiag-wmt21_en_de-esa"
    for bad in ({"protocol": "da"}, {"users": 0}, {"top": 0}, {"campaign_id": "a/b"}, {"campaign_id": ".."}):
        with pytest.raises(ValueError):
            pearmut_campaign(report, **bad)


@pytest.mark.parametrize(("campaign_id", "message"), [  # each was accepted before
    ("esa\x07bell", "no control or format character (U+0007)"),
    ("esa\nline", "no control or format character (U+000A)"),
    ("txt.\u202egpj", "no control or format character (U+202E)"),
    ("zero\u200bwidth", "no control or format character (U+200B)"),
    ("x" * 10_000, "10,000 bytes of UTF-8; at most 200"),
    ("語" * 67, "201 bytes of UTF-8; at most 200"),
])
def test_campaign_ids_pearmut_could_not_store_or_show_are_refused(report, campaign_id, message):
    with pytest.raises(ValueError) as caught:
        pearmut_campaign(report, campaign_id=campaign_id)
    assert str(caught.value).startswith("campaign id ") and message in str(caught.value)
    assert "\n" not in str(caught.value) and len(str(caught.value)) < 200
    assert pearmut_campaign(report, campaign_id="語" * 66).data["campaign_id"] == "語" * 66  # 198 bytes: kept


def test_a_slice_keeps_the_whole_sets_ids(report):
    from mtdiag.slices import where

    part = where(report, "seg_id >= 4")
    campaign = pearmut_campaign(part, top=10)
    assert set(campaign.segments) <= {4, 5, 6} and campaign.segments
    evalset = report.evalset
    for page in campaign.data["data"][0]:
        item = page[0]
        assert item["src"] == evalset.src.iat[item[IDS_KEY]["seg_id"] - 1]


# ------------------------------------------------------------------------------------------------ the log


def campaign_items(report, protocol="esa", top=24):
    return [page[0] for page in pearmut_campaign(report, top=top, protocol=protocol).data["data"][0]]


def log_line(user, item_i, item, answers, **extra):
    """One line as Pearmut's server writes it: the page's payload and the user and page ids."""
    return {"annotation": [answers], "actions": [{"time": 1.0, "action": "load"}], "item": [item], **extra,
            "user_id": user, "item_i": item_i}


def answers_for(item, score=50, spans=None):
    return {key: {"score": score, "error_spans": spans(key, text) if spans else []}
            for key, text in item["tgt"].items()}


def write_log(tmp_path, lines, name="campaign.jsonl"):
    path = tmp_path / name
    path.write_text("".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines), encoding="utf-8")
    return path


def test_esa_scores_are_the_annotators_means_and_raters_kept_apart(report, tmp_path):
    items = campaign_items(report)
    lines, given = [], {}
    for user, base in (("brave-otter-001", 40), ("calm-heron-002", 70)):
        for item_i, item in enumerate(items):
            answers = answers_for(item)
            for k, key in enumerate(answers):
                answers[key]["score"] = base + item_i + k
                system = item[IDS_KEY]["systems"][key]
                given.setdefault(system, []).append(base + item_i + k)
            lines.append(log_line(user, item_i, item, answers))
    evalset = annotated(report.evalset, write_log(tmp_path, lines))
    means = evalset.human.groupby("system")["score"].mean()
    for system, scores in given.items():
        assert means[system] == pytest.approx(np.mean(scores))
    assert sorted(evalset.rated["rater"].unique()) == ["brave-otter-001", "calm-heron-002"]
    assert len(evalset.rated) == 2 * len(items) * len(report.evalset.systems)


def test_spans_come_back_as_the_characters_the_annotator_marked(report, tmp_path):
    items = campaign_items(report)
    item = next(i for i in items if "😀" in "".join(i["tgt"].values()))
    key = next(k for k, t in item["tgt"].items() if "😀" in t)
    text = item["tgt"][key]
    word = text.index("dog")
    marked = [{"start_i": utf16_units(text, word), "end_i": utf16_units(text, word + 3) - 1, "severity": "major",
               "category": None},
              {"start_i": 0, "end_i": 1, "severity": "minor", "category": None},  # the first emoji (two units)
              {"start_i": utf16_units(text, len(text)), "end_i": utf16_units(text, len(text)), "severity": "major",
               "category": None}]  # [missing]
    answers = answers_for(item)
    answers[key]["error_spans"] = marked
    evalset = annotated(report.evalset, write_log(tmp_path, [log_line("u", 0, item, answers)]))
    system = item[IDS_KEY]["systems"][key]
    rows = evalset.annotations[evalset.annotations["system"] == system]
    assert [text[r.start:r.end] for r in rows.itertuples()] == ["😀", "dog", ""]  # in order of their start
    assert (rows["side"] == "target").all() and rows["start"].iat[2] == rows["end"].iat[2] == len(text)  # omission
    assert rows["severity"].tolist() == ["minor", "major", "major"] and (rows["rater"] == "u").all()


def test_mqm_scores_are_the_weighted_errors(report, tmp_path):
    items = campaign_items(report, "mqm")
    item = items[0]

    def spans(key, text):
        return [{"start_i": 0, "end_i": 0, "severity": "major", "category": "Accuracy/Mistranslation"},
                {"start_i": 1, "end_i": 1, "severity": "minor", "category": "Fluency/Grammar"},
                {"start_i": 2, "end_i": 2, "severity": "minor", "category": "Fluency/Punctuation"}]

    answers = answers_for(item, score=None, spans=spans)
    answers[next(iter(answers))]["error_spans"] = []  # a clean output: MQM 0
    evalset = annotated(report.evalset, write_log(tmp_path, [log_line("u", 0, item, answers)]))
    scores = evalset.human.set_index("system")["score"]
    first = item[IDS_KEY]["systems"][next(iter(answers))]
    assert scores[first] == 0.0
    assert set(scores.drop(first)) == {-(5 + 1 + 0.1)}  # Freitag et al. 2021: major 5, minor 1, punctuation 0.1
    assert set(evalset.annotations["category"]) == {"Accuracy/Mistranslation", "Fluency/Grammar",
                                                    "Fluency/Punctuation"}


def test_overlapping_spans_of_one_annotator_are_merged_into_the_heaviest(report, tmp_path):
    """Pearmut's page cannot draw two spans on one character: a log whose spans overlap (edited, or pre-filled by
    another tool) had each counted — a duplicated major error charged twice."""
    item = campaign_items(report, "mqm")[0]

    def spans(key, text):
        return [{"start_i": 0, "end_i": 3, "severity": "minor", "category": "Fluency/Grammar"},
                {"start_i": 0, "end_i": 3, "severity": "minor", "category": "Fluency/Grammar"},  # a duplicate
                {"start_i": 2, "end_i": 5, "severity": "major", "category": "Accuracy/Mistranslation"},  # overlaps
                {"start_i": 6, "end_i": 6, "severity": "minor", "category": "Fluency/Spelling"},  # touches: apart
                *[{"start_i": utf16_units(text, len(text)), "end_i": utf16_units(text, len(text)),
                   "severity": "major", "category": "Accuracy/Omission"}] * 2]  # [missing] twice

    answers = answers_for(item, score=None, spans=spans)
    evalset = annotated(report.evalset, write_log(tmp_path, [log_line("u", 0, item, answers)]))
    assert set(evalset.human["score"]) == {-(5 + 1 + 5)}  # union major, the minor apart, one omission
    key = next(iter(answers))
    rows = evalset.annotations[evalset.annotations["system"] == item[IDS_KEY]["systems"][key]]
    text = item["tgt"][key]
    assert rows[["start", "end", "severity", "category"]].values.tolist() == [
        [0, 6, "major", "Accuracy/Mistranslation"], [6, 7, "minor", "Fluency/Spelling"],
        [len(text), len(text), "major", "Accuracy/Omission"]]


def test_last_answer_counts_and_resets_void_earlier_lines(report, tmp_path):
    items = campaign_items(report)
    lines = [log_line("a", 0, items[0], answers_for(items[0], 10)),
             log_line("a", 0, items[0], answers_for(items[0], 90)),  # went back and answered again
             log_line("b", 0, items[0], answers_for(items[0], 30)),
             {"user_id": "b", "annotation": "__RESET__"},
             log_line("b", 1, items[1], answers_for(items[1], 60)),
             log_line("a", "welcome_0", items[0], answers_for(items[0], 0)),  # a tutorial page: not the campaign's
             log_line("a", 1, items[1], None)]  # a skipped item: no annotation
    evalset = annotated(report.evalset, write_log(tmp_path, lines))
    human = evalset.human.set_index(["seg", "system"])["score"]
    seg0, seg1 = (items[i][IDS_KEY]["seg_id"] - 1 for i in (0, 1))
    assert set(human.xs(seg0, level="seg")) == {90.0}  # b's answer was reset; a's last answer
    assert set(human.xs(seg1, level="seg")) == {60.0}
    assert set(evalset.rated["rater"]) == {"a", "b"} and len(evalset.rated) == 2 * len(report.evalset.systems)


def test_the_dashboards_download_is_read_too(report, tmp_path):
    items = campaign_items(report)
    lines = [log_line("a", 0, items[0], answers_for(items[0], 77))]
    path = tmp_path / "annotations.json"
    path.write_text(json.dumps({"mtdiag-small-esa": lines}), encoding="utf-8")
    evalset = annotated(report.evalset, path)
    assert set(evalset.human["score"]) == {77.0}
    assert set(read_human_scores(write_log(tmp_path, lines))["score"]) == {77.0}  # --human reads it as well


@pytest.mark.parametrize("change, message", [
    (lambda line: line["item"][0].pop(IDS_KEY), "without mtdiag's ids"),
    (lambda line: line["item"][0][IDS_KEY].update(seg_id=99), "seg_id 99 is not a segment"),
    (lambda line: line["item"][0]["tgt"].update({next(iter(line["item"][0]["tgt"])): "other text"}),
     "a log of another test set?"),
    (lambda line: line["annotation"][0][next(iter(line["annotation"][0]))].update(
        error_spans=[{"start_i": 4, "end_i": 2, "severity": "major"}]), "not a span"),
    (lambda line: line["annotation"][0][next(iter(line["annotation"][0]))].update(
        error_spans=[{"start_i": 1, "end_i": 2, "severity": None}]), "has no severity"),
    (lambda line: line["annotation"][0][next(iter(line["annotation"][0]))].update(score=170), "from 0 to 100"),
    (lambda line: line.update(annotation=[]), "the same length"),
    (lambda line: line["annotation"][0][next(iter(line["annotation"][0]))].update(error_spans=5), "must be a list"),
    (lambda line: line["annotation"][0][next(iter(line["annotation"][0]))].update(score=float("nan")),
     "from 0 to 100"),
    (lambda line: line["annotation"][0][next(iter(line["annotation"][0]))].update(
        error_spans=[{"start_i": 10**30, "end_i": 10**31, "severity": "major"}], score=1),
     "(32 digits) lie past the output's end"),
    (lambda line: line["annotation"][0][next(iter(line["annotation"][0]))].update(
        error_spans=[{"start_i": 10**400, "end_i": 10**400, "severity": "major"}], score=1),
     "lie past the output's end"),  # read as an omission at the end before
])
def test_bad_lines_are_one_error_naming_the_file_and_line(report, tmp_path, change, message):
    items = campaign_items(report)
    good = log_line("a", 0, items[0], answers_for(items[0]))
    bad = log_line("a", 1, items[1], answers_for(items[1]))
    change(bad)
    path = write_log(tmp_path, [good, bad])
    with pytest.raises(InputError) as caught:
        annotated(report.evalset, path)
    assert caught.value.line == 2 and message in str(caught.value) and "campaign.jsonl" in str(caught.value)


def test_other_jsonl_is_still_read_as_esa(report, tmp_path):
    path = tmp_path / "esa.jsonl"
    path.write_text(json.dumps({"system": "A", "seg_id": 1, "score": 80, "error_spans": []}) + "\n")
    assert annotated(report.evalset, path).human["score"].tolist() == [80.0]


# ------------------------------------------------------------------------------------------------ command line


def test_cli_export_then_read_back(tmp_path, capsys):
    from mtdiag.cli import main

    folder = tmp_path / "small.fr-en"
    folder.mkdir()
    evalset = small_set()
    (folder / "src.txt").write_text("\n".join(evalset.src) + "\n", encoding="utf-8")
    (folder / "ref.A.txt").write_text("\n".join(evalset.refs["A"]) + "\n", encoding="utf-8")
    for system, given in (("sysA", "A"), ("sysB", "B"), ("sysC", "12")):
        (folder / f"{system}.txt").write_text("\n".join(evalset.hyps[given]) + "\n", encoding="utf-8")
    out = tmp_path / "campaign.json"
    assert main(["pearmut", "export", "--testset", str(folder), "--top", "4", "--users", "2", "-o", str(out)]) == 0
    err = capsys.readouterr().err
    assert "wrote" in err and "pearmut add" in err
    campaign = json.loads(out.read_text(encoding="utf-8"))
    assert campaign["campaign_id"] == "mtdiag-small.fr-en-esa" and len(campaign["data"]) == 2
    items = [page[0] for page in campaign["data"][0]]
    log = write_log(tmp_path, [log_line("a", i, item, answers_for(item, 10 * i)) for i, item in enumerate(items)])
    assert main(["triage", "--testset", str(folder), "--annotations", str(log), "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    rated = {(r["system"], r["seg_id"]): r["human"] for r in rows if r["human"] is not None}
    assert rated == {(s, item[IDS_KEY]["seg_id"]): 10.0 * i for i, item in enumerate(items)
                     for s in ("sysA", "sysB", "sysC")}
    assert main(["pearmut", "export", "--testset", str(folder), "--top", "0"]) == 1
    assert "--top must be at least 1" in capsys.readouterr().err


def test_users_are_bounded_and_refused_before_anything_is_built(tmp_path):
    """``--users 1000000 --top 1`` grew ~40 MB/s and wrote nothing (1.05 GB after 40 s); now one line naming the
    option and its limit, before the set is read."""
    import resource
    import subprocess
    import sys

    def small_memory():
        resource.setrlimit(resource.RLIMIT_AS, (2 * 2**30, 2 * 2**30))

    out = tmp_path / "campaign.json"
    done = subprocess.run([sys.executable, "-m", "mtdiag", "pearmut", "export", "--testset",
                           "sample_data/wmt21.en-de", "--top", "1", "--users", "1000000", "-o", str(out)],
                          capture_output=True, text=True, timeout=120, preexec_fn=small_memory, cwd=REPO)
    assert done.returncode == 1 and done.stderr == "mtdiag: error: --users 1,000,000: from 1 to 100 annotators\n"
    assert not out.exists()


def test_the_campaign_file_is_the_task_once_per_annotator_and_its_size_exact(report):
    campaign = pearmut_campaign(report, top=6, users=3)
    assert campaign.data["data"][0] is campaign.data["data"][2]  # held once
    text = "".join(campaign_text(campaign))
    assert json.loads(text) == campaign.data
    size = len(text.encode())
    assert "".join(campaign_text(campaign, limit_mb=size / 2**20)) == text
    with pytest.raises(ValueError) as caught:
        campaign_text(campaign, limit_mb=(size - 1) / 2**20)
    assert str(caught.value).startswith(f"the campaign would be {size / 2**20:,.1f} MB (3 annotators × ")
    with pytest.raises(ValueError, match="annotators \\(users\\): 101 — from 1 to 100"):
        pearmut_campaign(report, users=101)


def test_a_file_is_written_whole_or_not_at_all(tmp_path):
    from mtdiag.cli.base import write_file

    target = tmp_path / "campaign.json"
    target.write_text("the campaign before", encoding="utf-8")

    def pieces():
        yield "half of a campaign"
        raise KeyboardInterrupt  # a run stopped while writing

    with pytest.raises(KeyboardInterrupt):
        write_file(target, pieces())
    assert target.read_text(encoding="utf-8") == "the campaign before" and list(tmp_path.iterdir()) == [target]
    assert write_file(target, ["new ", "campaign"]) == 12 and target.read_text(encoding="utf-8") == "new campaign"


# ------------------------------------------------------------------------------------------------ closing the loop


def test_span_agreement_measures_the_campaigns_spans_against_what_annotators_kept(report, tmp_path):
    """After a campaign: annotators who keep every pre-filled span and mark nothing else agree with mtdiag
    completely (precision, character and severity F1 of 1 — ESA's major for a critical span is the same major);
    annotators who remove every span agree nowhere; only the rated outputs count. The campaign pre-fills every span
    from the confidence the measure reads them at (a threshold given: not the protocol's operating point)."""
    from mtdiag.views.human import span_agreement

    threshold = 0.1
    items = [page[0] for page in pearmut_campaign(report, top=3, protocol="esa", threshold=threshold).data["data"][0]]
    # some segments only: the others are not rated
    kept = [log_line("a", i, item, {k: {"score": 50, "error_spans": item["error_spans"][k]} for k in item["tgt"]})
            for i, item in enumerate(items)]
    annotated = evaluate(with_error_annotations(report.evalset, write_log(tmp_path, kept)), Options())
    table = span_agreement(annotated, threshold)
    whole = table.set_index("system").loc["all"]
    rated = {item[IDS_KEY]["seg_id"] - 1 for item in items}
    predicted = predict_spans(report, threshold)
    assert whole["outputs"] == len(rated) * len(report.evalset.systems)
    assert whole["spans"] == predicted["seg"].isin(rated).sum() > 0
    assert (whole[["precision", "major_recall", "char_p", "char_r", "char_f1", "sev_p", "sev_r", "sev_f1"]]
            == 1.0).all()
    assert list(table["system"]) == [*report.evalset.systems, "all"]
    per_system = table.set_index("system")  # predicted MQM over the rated outputs: the predicted_mqm metric's
    segments = annotated.segments["predicted_mqm"]
    for system in report.evalset.systems:
        expected = segments.loc[[(system, seg) for seg in sorted(rated)]].mean()
        assert per_system.loc[system, "predicted_mqm"] == pytest.approx(expected)
    assert (per_system["human"] == 50.0).all()  # the annotators' score
    removed = [log_line("a", i, item, answers_for(item)) for i, item in enumerate(items)]
    table = span_agreement(evaluate(with_error_annotations(report.evalset, write_log(tmp_path, removed, "r.jsonl")),
                                    Options()))
    whole = table.set_index("system").loc["all"]
    assert whole["precision"] == whole["char_f1"] == whole["sev_f1"] == 0.0 and whole["human_spans"] == 0
    assert 0 < whole["marked"] < 1


def test_span_agreement_by_hand(monkeypatch):
    """One rated output, "the red dog barks": mtdiag marks "red dog" (major), the human "dog barks" (minor) —
    precision 1 (they overlap), character P = 3/6 ("dog" of "reddog"), R = 3/8 ("dog" of "dogbarks"), F1 = 3/7;
    severity: the 3 shared characters earn ½ (major for minor), P = 1.5/7 (characters predicted, space included:
    WMT23 counts every character), R = 1.5/9; predicted MQM the judge's score of the output."""
    from mtdiag.core.evalset import evalset_from_lists
    from mtdiag.views import human as human_view
    from mtdiag.views.human import span_agreement

    evalset = evalset_from_lists({"A": ["a red dog barks"]}, {"S": ["the red dog barks"]}, src=["x"])
    annotations = pd.DataFrame({"seg": [0], "system": ["S"], "rater": ["r"], "side": ["target"], "start": [8],
                                "end": [17], "severity": ["minor"], "category": [""], "weight": [1.0]})
    rated = pd.DataFrame({"seg": [0], "system": ["S"], "rater": ["r"]})
    report = evaluate(replace(evalset, annotations=annotations, rated=rated), Options())
    predicted = pd.DataFrame({"system": ["S"], "seg": [0], "start": [4], "end": [11], "text": ["red dog"],
                              "severity": ["major"], "confidence": [0.5], "kind": ["unsupported"]})
    monkeypatch.setattr(human_view, "predict_spans", lambda report, threshold: predicted)
    row = span_agreement(report, 0.1).set_index("system").loc["all"]
    assert (row["precision"], row["char_p"], row["char_r"]) == (1.0, 0.5, 3 / 8)
    assert row["char_f1"] == pytest.approx(3 / 7)
    assert (row["sev_p"], row["sev_r"]) == (pytest.approx(1.5 / 7), pytest.approx(1.5 / 9))
    assert row["predicted_mqm"] == pytest.approx(judged(report).loc[("S", 0), "mqm"])
    assert np.isnan(row["human"])  # no human score given


def test_the_report_measures_the_spans_against_an_imported_log(report, tmp_path):
    from mtdiag.report.html_report import Writing, sections

    items = campaign_items(report, top=3)
    kept = [log_line("a", i, item, {k: {"score": 50, "error_spans": item["error_spans"][k]} for k in item["tgt"]})
            for i, item in enumerate(items)]
    annotated = evaluate(with_error_annotations(report.evalset, write_log(tmp_path, kept)), Options())
    found = {s.anchor: s for s in sections(annotated, Writing(top=3, method="bs", n=10, seed=1, say=lambda _: None))}
    assert "span-agreement" in found and "<td>all</td>" in found["span-agreement"].html
    assert "span-agreement" not in {s.anchor for s in sections(report, Writing(3, "bs", 10, 1, lambda _: None))}


def test_an_empty_outputs_omission_is_prefilled_on_missing_and_comes_back(report, tmp_path):
    """mtdiag predicts a zero-width critical span at the end of an empty or truncated output (what is missing):
    pre-filled on Pearmut's [missing] token (data-i = the text's length in units), read back as that span."""
    hyps = report.evalset.hyps.copy()
    hyps.loc[2, "A"] = ""
    hyps.loc[3, "B"] = "The bus leaves at"
    broken = evaluate(report.evalset.with_hyps(hyps), Options())
    predicted = predict_spans(broken)
    omissions = predicted[predicted["start"] == predicted["end"]]
    assert {(s, g) for s, g in zip(omissions["system"], omissions["seg"])} >= {("A", 2)}
    items = [page[0] for page in pearmut_campaign(broken, top=24).data["data"][0]]
    lines = []
    for i, item in enumerate(items):
        keys = {item[IDS_KEY]["systems"][k]: k for k in item["tgt"]}
        if item[IDS_KEY]["seg_id"] == 3:
            assert item["error_spans"][keys["A"]][-1]["start_i"] == item["error_spans"][keys["A"]][-1]["end_i"] == 0
        lines.append(log_line("a", i, item, {k: {"score": 10, "error_spans": item["error_spans"][k]}
                                             for k in item["tgt"]}))
    evalset = annotated(broken.evalset, write_log(tmp_path, lines))
    rows = evalset.annotations
    back = rows[(rows["system"] == "A") & (rows["seg"] == 2)]
    assert back[["side", "start", "end"]].values.tolist() == [["target", 0, 0]]  # the omission, as predicted


def test_a_log_weighs_each_distinct_error_once(report, tmp_path, monkeypatch):
    """Every span was weighed by a scan of the scheme's rules, uncached (1,000 rules x 5,000 spans: 15.4 s): each
    distinct (category, severity) is looked up once, however many spans carry it."""
    from mtdiag.io.error_weights import ErrorWeights

    items = campaign_items(report, "mqm")
    # 40 marks on three characters: the duplicates of one place merge (without_overlaps), its weight looked up once
    marks = [{"start_i": k % 3, "end_i": k % 3, "severity": ("major", "minor")[k % 3 % 2],
              "category": ("Accuracy/Mistranslation", "Fluency/Grammar")[k % 3 % 2]} for k in range(40)]
    lines = [log_line("u", i, item, answers_for(item, score=None, spans=lambda key, text: marks))
             for i, item in enumerate(items)]
    log = with_error_annotations(report.evalset, write_log(tmp_path, lines))  # read: nothing weighed yet
    looked_up = []
    real = ErrorWeights.weight
    monkeypatch.setattr(ErrorWeights, "weight", lambda self, c, s: looked_up.append((c, s)) or real(self, c, s))
    evalset = weighed(log)
    # at most three places per output (two UTF-16 units of one emoji are one place)
    outputs = sum(len(item["tgt"]) for item in items)
    assert 2 * outputs < len(evalset.annotations) <= 3 * outputs
    assert sorted(looked_up) == [("Accuracy/Mistranslation", "major"), ("Fluency/Grammar", "minor")]

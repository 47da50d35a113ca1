"""The real Pearmut (``tests/pearmut_env.py``: a Python >= 3.12 with ``pearmut`` of ``requirements-dev.txt``):
``mtdiag pearmut export`` on a dev set accepted by ``pearmut add`` in a temporary ``PEARMUT_ROOT``, its items the
queue's segments and every pre-filled span one that ``mtdiag spans`` predicts; and a campaign annotated through
Pearmut's own server code (``tests/pearmut_annotators.py``), whose log Pearmut wrote, read back: per-system human
scores equal to the means of the annotators' scores (and to Pearmut's own results with one annotator), each span the
characters the annotator marked, each annotator a rater."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pandas as pd
import pytest

from mtdiag.scoring.evaluate import Options, evaluate
from mtdiag.report.campaign import merged_spans, model_keys, pearmut_campaign
from mtdiag.analysis.errorstats import rater_table
from mtdiag.analysis.human_agreement import human_ranking
from mtdiag.io import load_testset, weighed, with_error_annotations
from mtdiag.io.pearmut_log import IDS_KEY, from_pearmut, pearmut_log_path
from mtdiag.spans import span_records
from mtdiag.spans.protocol import protocol_spans
from mtdiag.triage.ranking import worst_first
from tests.conftest import DEV
from tests.pearmut_env import pearmut, pearmut_python, small_set

ANNOTATORS = Path(__file__).with_name("pearmut_annotators.py")
TED = DEV / "ted" / "zh-en"


@pytest.fixture(scope="module")
def python():
    return pearmut_python()


def added(root: Path, python: str, *files: Path) -> None:
    done = pearmut(root, "add", *map(str, files), python=python)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Error" not in done.stdout, done.stdout


def test_export_of_a_dev_set_is_accepted_by_pearmut_add(python, tmp_path, capsys):
    """The must-show: ``mtdiag pearmut export`` on TED zh-en (13 systems), ESA for 2 annotators and MQM, loaded by
    ``pearmut add``; the items are the queue's segments; every pre-filled span is one ``mtdiag spans --protocol esa`` predicts for
    that output — the same characters, the end inclusive in UTF-16 units — except that spans of one output that
    overlap are pre-filled as their union."""
    from mtdiag.cli import main

    esa = tmp_path / "esa.json"
    assert main(["pearmut", "export", "--testset", str(TED), "--top", "20", "--users", "2", "-o", str(esa)]) == 0
    report = evaluate(load_testset(TED), Options())
    mqm = tmp_path / "mqm.json"
    mqm.write_text(json.dumps(pearmut_campaign(report, top=20, protocol="mqm").data, ensure_ascii=False))
    root = tmp_path / "pearmut"
    root.mkdir()
    added(root, python, esa, mqm)

    campaign = json.loads(esa.read_text(encoding="utf-8"))
    stored = json.loads((root / "data" / "campaigns" / f"{campaign['campaign_id']}.json").read_text())
    progress = json.loads((root / "data" / "progress" / f"{campaign['campaign_id']}.json").read_text())
    assert len(progress) == 2 and all(len(user["progress"]) == 20 for user in progress.values())
    assert stored["info"]["assignment"] == "task-based" and stored["info"]["protocol"] == "ESA"
    assert (root / "data" / "campaigns" / "mtdiag-zh-en-mqm.json").exists()

    queue = worst_first(report)
    pages = campaign["data"][0]
    assert [page[0][IDS_KEY]["seg_id"] for page in pages] == list(dict.fromkeys(
        report.evalset.seg_ids[queue["seg"].head(20)].tolist()))
    for task in stored["data"].values():  # Pearmut keeps the items as they are (it shuffles the outputs' order)
        assert [page[0] for page in task] == [page[0] for page in pages]

    esa_spans = prefilled_as_predicted(report, pages, protocol_spans(report, "esa"))
    mqm_pages = json.loads(mqm.read_text(encoding="utf-8"))["data"][0]
    mqm_spans = prefilled_as_predicted(report, mqm_pages, protocol_spans(report, "mqm"))
    # ESA pre-fills only the spans of the protocol's operating point (few: the worst outputs, confident spans);
    # MQM every span: on these 20 segments, 260 outputs, overlapping spans in at most two
    assert 0 < esa_spans[0] < mqm_spans[0] and mqm_spans[0] > 100 and mqm_spans[1] <= 2


def prefilled_as_predicted(report, pages, predicted_spans) -> tuple[int, int]:
    """Asserts each output's pre-filled spans are ``predicted_spans`` of that output (overlapping ones as their
    union, the end inclusive in UTF-16 units); returns (spans pre-filled as predicted, outputs whose spans merged)."""
    records = {(r["system"], r["seg_id"]): r for r in span_records(report, predicted_spans)}
    equal = merged = 0
    for page in pages:
        item = page[0]
        for key, text in item["tgt"].items():
            system = item[IDS_KEY]["systems"][key]
            record = records[(system, item[IDS_KEY]["seg_id"])]
            assert record["mt"] == text
            given = [from_pearmut(text, s["start_i"], s["end_i"]) for s in item["error_spans"][key]]
            predicted = [(s["start"], s["end"]) for s in record["error_spans"]]
            frame = pd.DataFrame(record["error_spans"], columns=["start", "end", "severity", "confidence", "kind"])
            assert given == [tuple(r) for r in merged_spans(frame)[["start", "end"]].to_numpy().tolist()]
            if given == predicted:
                equal += len(given)
            else:
                merged += 1
            for span, (start, end) in zip(item["error_spans"][key], given):
                assert text.encode("utf-16-le")[2 * span["start_i"]:2 * (span["end_i"] + 1)].decode(
                    "utf-16-le") == text[start:end]
    return equal, merged


@pytest.fixture(scope="module")
def annotated(python, tmp_path_factory):
    """Three campaigns of the small set (emoji, names Pearmut refuses) annotated through Pearmut's own server code:
    ESA by two annotators, ESA by one, MQM by one. Returns (report, root, {campaign: what the annotators gave})."""
    tmp = tmp_path_factory.mktemp("pearmut-round-trip")
    report = evaluate(small_set(), Options())
    files = []
    for campaign_id, protocol, users in (("esa2", "esa", 2), ("esa1", "esa", 1), ("mqm1", "mqm", 1)):
        path = tmp / f"{campaign_id}.json"
        path.write_text(json.dumps(pearmut_campaign(report, top=24, protocol=protocol, users=users,
                                                    campaign_id=campaign_id).data, ensure_ascii=False))
        files.append(path)
    root = tmp / "root"
    root.mkdir()
    added(root, python, *files)
    done = subprocess.run([python, str(ANNOTATORS), "esa2", "esa1", "mqm1"], capture_output=True, text=True,
                          timeout=300, cwd=root, env=dict(os.environ, PEARMUT_ROOT=str(root)))
    assert done.returncode == 0, done.stderr
    return report, root, json.loads(done.stdout)


def read_back(report, root: Path, campaign_id: str):
    return weighed(with_error_annotations(report.evalset, pearmut_log_path(root, campaign_id)))


def test_human_scores_are_the_means_of_the_annotators_scores(annotated):
    report, root, given = annotated
    evalset = read_back(report, root, "esa2")
    truth = pd.DataFrame(given["esa2"]["truth"])
    assert set(truth["user"]) == set(given["esa2"]["users"]) and len(given["esa2"]["users"]) == 2
    expected = truth.groupby("system")["score"].mean()
    ranking = human_ranking(evaluate(evalset, Options()))
    assert ranking["human"].to_dict() == pytest.approx(expected.to_dict())  # the mean human score
    assert (ranking["n_rated"] == 6).all()  # every segment, both annotators averaged per segment
    table = rater_table(evalset)
    assert set(table["rater"]) == set(given["esa2"]["users"])
    assert (table["segments"] == 6).all()


def test_one_annotator_gives_pearmuts_own_results(annotated):
    report, root, given = annotated
    evalset = read_back(report, root, "esa1")
    keys = model_keys(report.evalset.systems)
    theirs = {row["model"]: row["score"] for row in given["esa1"]["pearmut_results"]}
    ours = evalset.human.groupby("system")["score"].mean()
    assert {keys[s]: v for s, v in ours.items()} == pytest.approx(theirs)


@pytest.mark.parametrize("campaign_id", ["esa2", "mqm1"])
def test_spans_are_the_characters_the_annotators_marked(annotated, campaign_id):
    report, root, given = annotated
    evalset = read_back(report, root, campaign_id)
    rows = evalset.annotations
    weights = {"major": 5.0, "minor": 1.0, "critical": 25.0}  # as an MQM error file is weighed (io.annotations)
    kept = added_spans = missing = 0
    for answer in given[campaign_id]["truth"]:
        seg = answer["seg_id"] - 1
        mine = rows[(rows["system"] == answer["system"]) & (rows["seg"] == seg) & (rows["rater"] == answer["user"])]
        text = report.evalset.hyps.at[seg, answer["system"]]
        # [missing] (no characters): the zero-width span at the output's end
        expected = [tuple(s["chars"]) if s["chars"] else (len(text), len(text)) for s in answer["spans"]]
        assert list(zip(mine["start"], mine["end"])) == expected and (mine["side"] == "target").all()
        assert mine["severity"].tolist() == [s["severity"] for s in answer["spans"]]
        assert [text[a:b] for a, b in expected] == [text[r.start:r.end] for r in mine.itertuples()]
        kept += sum(s["prefilled"] for s in answer["spans"])
        missing += sum(s["chars"] is None for s in answer["spans"])
        added_spans += sum(not s["prefilled"] and s["chars"] is not None for s in answer["spans"])
        if campaign_id == "mqm1":
            score = evalset.human.set_index(["system", "seg"])["score"][(answer["system"], seg)]
            assert score == -sum(weights[s["severity"]] for s in answer["spans"])
            assert set(mine["category"]) <= {"Accuracy/Mistranslation", "Fluency/Grammar"}
    assert kept and added_spans and missing  # kept pre-filled spans, the annotators' own, [missing]
    assert any("😀" in report.evalset.hyps.at[a["seg_id"] - 1, a["system"]] and a["spans"]
               for a in given[campaign_id]["truth"])


def test_the_last_answer_of_a_page_counts(annotated):
    report, root, given = annotated
    log = [json.loads(line) for line in pearmut_log_path(root, "esa2").read_text().splitlines()]
    first_user = given["esa2"]["users"][0]
    assert sum(entry["user_id"] == first_user and entry["item_i"] == 0 for entry in log) == 2  # answered twice
    first, second = (entry for entry in log if entry["user_id"] == first_user and entry["item_i"] == 0)
    seg_id = first["item"][0][IDS_KEY]["seg_id"]
    scores = [{key: answer["score"] for key, answer in entry["annotation"][0].items()} for entry in (first, second)]
    assert scores[0] != scores[1]
    truth = pd.DataFrame(given["esa2"]["truth"])
    mine = truth[(truth["user"] == first_user) & (truth["seg_id"] == seg_id)]
    keys = model_keys(report.evalset.systems)
    assert {keys[s]: v for s, v in zip(mine["system"], mine["score"])} == scores[1]  # the annotators' last answer
    evalset = read_back(report, root, "esa2")
    expected = truth[truth["seg_id"] == seg_id].groupby("system")["score"].mean()
    human = evalset.human[evalset.human["seg"] == seg_id - 1].set_index("system")["score"]
    assert human.to_dict() == pytest.approx(expected.to_dict())

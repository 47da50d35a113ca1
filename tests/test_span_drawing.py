"""Error spans drawn as users expect (issue 21, part 5): human spans by severity and metric spans in their own
kinds, each titled with its category (metric, confidence), in the segment detail, the HTML report and the
dashboard (AppTest, CJK text with emoji)."""

from __future__ import annotations

import json
import re

from mtdiag.api import Options, evaluate
from mtdiag.evalset import evalset_from_lists
from mtdiag.io import with_error_annotations, with_metric_spans
from mtdiag.report import html_report
from mtdiag.views.detail import segment_detail

from tests.test_app import (  # noqa: F401  (the autouse fixtures of the dashboard tests apply here too)
    clear_caches, html_bodies, no_data_argument, start, table_with, visit)
from tests.test_metric_spans import MQM, OUTPUT, OUTPUTS

SRC = ["We like cats", "Cats are cute."]
REF = ["我们喜欢猫", "猫很可爱。"]
XCOMET = [{"system": "A", "seg_id": 1, "error_spans": [
              {"start": 4, "end": 6, "severity": "major", "text": "喜欢", "confidence": 0.91},
              {"start": 6, "end": 7, "severity": "minor", "text": "猫", "confidence": 0.3}]},
          {"system": "B", "seg_id": 1, "error_spans": [{"start": 4, "end": 5, "severity": "critical", "text": "狗"}]}]
XCOMET_BYTES = "\n".join(json.dumps(r, ensure_ascii=False) for r in XCOMET).encode("utf-8")
HUMAN_TITLE = "Major Accuracy/Mistranslation (rater1)"


def _report():
    evalset = evalset_from_lists({"ref": REF}, OUTPUTS, src=SRC, lang_pair="en-zh")
    evalset = with_error_annotations(evalset, ("mqm.errors.tsv", MQM.encode()))
    evalset = with_metric_spans(evalset, ("xcomet.jsonl", XCOMET_BYTES))
    return evaluate(evalset, Options(metrics=("bleu", "chrf")))


def test_detail_marks_human_and_metric_spans_by_severity_with_titles():
    report = _report()
    detail = segment_detail(report, "A", 0)
    shown = detail.hyp.shown
    marked = {(s.kind, "".join(shown[s.start:s.end]), s.title) for s in detail.hyp_spans
              if s.kind.startswith(("human", "metric"))}
    assert ("human_major", "喜欢", HUMAN_TITLE) in marked
    assert ("metric_major", "喜欢", "xcomet: major, confidence 0.91") in marked
    assert ("metric_minor", "猫", "xcomet: minor, confidence 0.30") in marked
    assert {"human_critical", "human_major", "human_minor", "metric_major", "metric_minor"} <= set(detail.legend)
    metric_table = detail.table("metric_errors")
    assert metric_table[["severity", "start", "end", "text"]].values.tolist() == \
        [["major", 4, 6, "喜欢"], ["minor", 6, 7, "猫"]]
    assert detail.table("human_errors")["text"].tolist() == ["喜欢"]
    b = segment_detail(report, "B", 0)
    kinds = {(s.kind, "".join(b.hyp.shown[s.start:s.end])) for s in b.hyp_spans}
    assert ("human_critical", "狗") in kinds and ("metric_critical", "狗") in kinds


def test_the_report_draws_both_kinds_of_span_with_their_titles():
    page = html_report(_report(), top=4, n=50)
    both = re.search(r'<span class="mtd-k-human_major mtd-k-metric_major" title="([^"]*)">喜欢</span>', page)
    assert both is not None and both.group(1) == f"{HUMAN_TITLE}; xcomet: major, confidence 0.91"
    assert '<span class="mtd-k-human_critical mtd-k-metric_critical" title="Critical Accuracy/Mistranslation ' \
           '(rater1); xcomet: critical">狗</span>' in page
    assert '<h2 id="errors">Human errors per category and rater</h2>' in page  # the statistics section
    for kind in ("human_critical", "metric_major", "metric_minor"):
        assert f'<span class="mtd-sw mtd-k-{kind}">' in page  # in the legend


def test_the_dashboard_draws_the_spans_of_a_folder_and_an_uploaded_xcomet_file(tmp_path, monkeypatch):
    folder = tmp_path / "cats.en-zh"
    folder.mkdir()
    files = {"src.txt": SRC, "ref.txt": REF, "test.en-zh.A.txt": OUTPUTS["A"], "test.en-zh.B.txt": OUTPUTS["B"]}
    for name, lines in files.items():
        (folder / name).write_text("\n".join(lines) + "\n", encoding="utf-8")
    (folder / "mqm.errors.tsv").write_text(MQM, encoding="utf-8")
    monkeypatch.setenv("MTDIAG_DATA", str(folder))
    at = start()
    at.file_uploader(key="up_metric_spans").set_value(("xcomet.jsonl", XCOMET_BYTES, "application/json")).run()
    assert not at.exception and not at.error, [e.value for e in (*at.exception, *at.error)]
    visit(at, "segments").run()
    table = at.dataframe(key="seg_table").value
    row = int(((table["system"] == "A") & (table["seg_id"] == 1)).to_numpy().nonzero()[0][0])
    at.session_state["seg_table"] = {"selection": {"rows": [row], "columns": [], "cells": []}}
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    page = html_bodies(at)
    assert (f'<span class="mtd-k-human_major mtd-k-metric_major" title="{HUMAN_TITLE}; xcomet: major, '
            'confidence 0.91">喜欢</span>') in page
    assert "Metric errors" in [t.label for t in at.tabs] and "Human errors" in [t.label for t in at.tabs]
    listed = table_with(at, "metric", "severity", "confidence")
    assert listed["text"].tolist() == ["喜欢", "猫"]

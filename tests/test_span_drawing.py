"""Error spans drawn as users expect (issue 21, part 5): human spans by severity and metric spans in their own
kinds, each titled with its category (metric, confidence), in the segment detail, the HTML report and the
dashboard (AppTest, CJK text with emoji)."""

from __future__ import annotations

import json
import random
import re

import pytest

from mtdiag.scoring.evaluate import Options, evaluate
from mtdiag.core.evalset import evalset_from_lists
from mtdiag.core.highlight import (MAX_SPANS, MAX_TITLES, Span, char_span_tokens, escape, render_marked_text, render_tokens, token_offsets)
from mtdiag.io import with_error_annotations, with_metric_spans
from mtdiag.report.html_report import html_report
from mtdiag.spans import DEFAULT_THRESHOLD, severity_counts
from mtdiag.views.detail import SPAN_THRESHOLD, segment_detail

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
    # B's 狗 is in no reference: the three kinds of span agree on it, each titled
    assert PREDICTED_DOG in page
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


# ------------------------------------------------------------------ many spans on one output: drawn in linear time


def _drawn_by_every_span_visiting_its_tokens(text, tokens, spans):
    """What :func:`render_marked_text` draws, computed the plain way: every span visits each token it covers
    (the drawing before it was made linear), as the oracle of the linear drawing."""
    offsets = token_offsets(text, tokens)
    marks = [(set(), []) for _ in tokens]
    gaps = [(set(), []) for _ in tokens]
    for span in spans:
        first, last = max(span.start, 0), min(span.end, len(tokens)) - 1
        for i in range(first, last + 1):
            for kinds, titles in [marks[i]] + ([gaps[i]] if i < last else []):
                kinds.add(span.kind)
                if span.title and span.title not in titles:
                    titles.append(span.title)
    pieces, pos = [], 0
    for i, (start, stop) in enumerate(offsets):
        if start > pos:
            pieces.append((text[pos:start], *(gaps[i - 1] if i else (set(), []))))
        pieces.append((text[start:stop], *marks[i]))
        pos = stop
    pieces.append((text[pos:], set(), []))
    merged = []
    for piece, kinds, titles in pieces:
        if merged and (merged[-1][1], merged[-1][2]) == (kinds, titles):
            merged[-1][0] += piece
        else:
            merged.append([piece, kinds, titles])
    body = "".join(f'<span class="{" ".join(f"mtd-k-{k}" for k in sorted(kinds))}"'
                   + (f' title="{escape("; ".join(titles))}"' if titles else "") + f">{escape(piece)}</span>"
                   if kinds else escape(piece) for piece, kinds, titles in merged)
    return f'<div class="mtd-text">{body}</div>'


def test_the_linear_drawing_draws_what_every_span_visiting_its_tokens_draws():
    rng = random.Random(5)
    words = ["cat", "猫", "don't", "<b>", "a&b", "x,"]
    for _ in range(500):
        tokens = [rng.choice(words) for _ in range(rng.randrange(1, 25))]
        text = "".join(rng.choice([" ", "", "  "]) + t for t in tokens).strip() + rng.choice(["", " ."])
        tokens += ["."] if text.endswith(".") else []
        spans = [Span(rng.randrange(-1, len(tokens) + 1), rng.randrange(0, len(tokens) + 2),
                      rng.choice(["human_major", "metric_minor", "over", "predicted_major"]),
                      rng.choice(["", "one", "two", "<three>"])) for _ in range(rng.randrange(0, 15))]
        drawn = render_marked_text(text, tokens, spans, max_tokens=None, max_chars=None)
        assert drawn == _drawn_by_every_span_visiting_its_tokens(text, tokens, spans), (text, spans)


def test_a_character_span_finds_the_tokens_it_overlaps_by_binary_search():
    text = "the  cat,sat 猫猫 on"
    tokens = ["the", "cat", ",", "sat", "猫猫", "on"]
    offsets = token_offsets(text, tokens)
    for start in range(len(text) + 1):
        for end in range(start, len(text) + 2):
            hit = [i for i, (a, b) in enumerate(offsets) if (a < end and b > start) or (start == end and a <= start < b)]
            assert char_span_tokens(offsets, start, end) == ((hit[0], hit[-1] + 1) if hit else None), (start, end)


def test_sixteen_thousand_spans_on_one_output_are_drawn_up_to_the_limit_with_a_note():
    tokens = [f"w{i}" for i in range(16_000)]
    text = " ".join(tokens)
    offsets = token_offsets(text, tokens)
    spans = []
    for i in range(16_000):  # spans of one to three words piled on the first fifty, every title different
        start = offsets[(i * 7) % 50 + (i // 1_000) * 1_000][0]
        located = char_span_tokens(offsets, start, start + 1 + i % 12)
        spans.append(Span(*located, "metric_major", f"xcomet: major, confidence {i / 16_000:.6f}"))
    drawn = render_marked_text(text, tokens, spans, max_tokens=None, max_chars=None)
    assert drawn.endswith(f'<span class="mtd-note">… shortened for display: drawing the first {MAX_SPANS:,} of '
                          '16,000 marks</span></div>')
    marked = set()
    for span in spans[:MAX_SPANS]:
        marked.update(range(span.start, span.end))
    stretches = re.findall(r'<span class="mtd-k-metric_major" title="([^"]*)">([^<]*)</span>', drawn)
    assert sum(len(piece.split()) for _, piece in stretches) == len(marked)  # the first marks, every word of them
    titles = [title.split("; ") for title, _ in stretches]
    assert max(map(len, titles)) == MAX_TITLES + 1 and all(len(t) <= MAX_TITLES or t[-1].startswith("… and ")
                                                            for t in titles)
    shown = render_marked_text(text, tokens, spans)  # as the dashboard shows it: the first 400 tokens
    assert shown.endswith("… shortened for display: showing 400 of 16,000 tokens, drawing the first "
                          f"{MAX_SPANS:,} of 16,000 marks</span></div>")
    assert "mtd-note" in render_tokens(tokens, spans)  # the fallback without offsets keeps the limit too
    assert f"drawing the first {MAX_SPANS:,} of 16,000 marks" in render_tokens(tokens, spans)


def _dashboard_on_cats(tmp_path, monkeypatch):
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
    return at


# a phrase of one word: minor (docs/spans.md, "Severity")
PREDICTED_DOG = ('<span class="mtd-k-human_critical mtd-k-metric_critical mtd-k-predicted_minor" title="Critical '
                 'Accuracy/Mistranslation (rater1); xcomet: critical; mtdiag: no_reference, minor, confidence 0.15">'
                 '狗</span>')


def test_the_segments_page_draws_predicted_spans_at_the_confidence_its_slider_sets(tmp_path, monkeypatch):
    at = _dashboard_on_cats(tmp_path, monkeypatch)
    visit(at, "segments").run()
    table = at.dataframe(key="seg_table").value
    row = int(((table["system"] == "B") & (table["seg_id"] == 1)).to_numpy().nonzero()[0][0])
    at.session_state["seg_table"] = {"selection": {"rows": [row], "columns": [], "cells": []}}
    at.run()
    slider = at.slider(key="seg_span_threshold")
    assert slider.value == DEFAULT_THRESHOLD and (slider.min, slider.max) == (0.0, 1.0)
    assert slider.label == SPAN_THRESHOLD.label
    assert PREDICTED_DOG in html_bodies(at)  # confidence 0.15 >= 0.10
    assert table_with(at, "kind", "severity", "confidence")["text"].tolist() == ["狗"]  # the "Predicted errors" tab
    slider.set_value(0.2).run()
    assert not at.exception, [e.value for e in at.exception]
    page = html_bodies(at)
    assert PREDICTED_DOG not in page and "mtdiag: no_reference" not in page
    assert ('<span class="mtd-k-human_critical mtd-k-metric_critical" title="Critical Accuracy/Mistranslation '
            '(rater1); xcomet: critical">狗</span>') in page  # the human and the metric span stay


def test_the_human_page_counts_predicted_and_imported_spans_per_system_and_severity(tmp_path, monkeypatch):
    at = _dashboard_on_cats(tmp_path, monkeypatch)
    visit(at, "human").run()
    at.segmented_control(key="hl_section").set_value("errors").run()
    assert not at.exception, [e.value for e in at.exception]
    counts = table_with(at, "metric", "outputs", "critical", "minor")
    rows = counts[["metric", "system", "outputs", "critical", "major", "minor", "spans"]].values.tolist()
    predicted = severity_counts(_report(), DEFAULT_THRESHOLD)
    assert rows[:2] == predicted[predicted["metric"] == "mtdiag"].drop(columns="mqm").values.tolist()
    assert counts["mqm"].tolist()[:2] == pytest.approx(predicted["mqm"].tolist()[:2])  # predicted MQM beside
    assert [r[0] for r in rows[2:4]] == ["human", "human"]  # the raters' errors, with the human MQM score
    assert rows[4:] == [["xcomet", "A", 2, 0, 1, 1, 2], ["xcomet", "B", 2, 1, 0, 0, 1]]  # XCOMET above
    at.slider(key="hl_span_threshold").set_value(1.0).run()
    counts = table_with(at, "metric", "outputs", "critical", "minor")
    assert counts[counts["metric"] == "mtdiag"]["spans"].tolist() == [0, 0]  # no prediction is that sure
    assert counts[counts["metric"] == "xcomet"]["spans"].tolist() == [2, 1]  # imported spans are not thresholded


def test_an_output_with_an_en_dash_is_drawn_as_written_with_its_spans():
    text = "a 6-kilometer ball – that is, a black hole"
    tokens = ["a", "6-kilometer", "ball", "–", "that", "is", ",", "a", "black", "hole"]  # shown tokens, as written
    offsets = token_offsets(text, tokens)
    assert offsets is not None and text[slice(*offsets[3])] == "–"
    drawn = render_marked_text(text, tokens, [Span(3, 6, "predicted_major", "mtdiag: unsupported")])
    assert drawn == ('<div class="mtd-text">a 6-kilometer ball <span class="mtd-k-predicted_major" title="mtdiag: '
                     'unsupported">– that is</span>, a black hole</div>')

"""Predicted error spans (mtdiag.spans): word support by the references and the other systems, phrases of
unsupported words, the spans' characters in the output as written (CJK, emoji, HTML-ish text, typography), their
confidence, severity and kind, and the xCOMET-style records that ``score --metric-spans`` reads back."""

from __future__ import annotations

import io
import json
import math

import numpy as np
import pandas as pd
import pytest

from mtdiag.scoring.evaluate import Options, evaluate
from mtdiag.core.evalset import evalset_from_lists
from mtdiag.io import read_metric_spans, with_metric_spans
from mtdiag.spans.judge import judged
from mtdiag.spans.predict import locator
from mtdiag.spans import (COUNT_COLUMNS, DEFAULT_THRESHOLD, SPAN_COLUMNS, predict_spans, severity_counts, span_records,
                          write_span_records)
from mtdiag.spans.confidence import (CHECK_EVIDENCE, CRITICAL_EVIDENCE, LEXICAL_MODELS, check_confidence,
                                     lexical_confidence, phrase_severity)
from mtdiag.core.offsets import outputs_token_offsets, span_characters, token_offsets
from mtdiag.spans.phrases import phrases
from mtdiag.spans.support import WordSupport, word_support
from mtdiag.core.tokenize import TokenizeOptions, tokenize_text
from tests.conftest import SAMPLE

REF = ["the cat sat on the mat near the door"]
OUTPUTS = {"A": ["the cat sat on the mat near the door"],
           "B": ["the cat sat on the mat by the door"],
           "C": ["the cat jumped on the mat by the door"]}


def _confidence(kind: str, unshared: float, words: int) -> float:
    b0, b1, b2 = LEXICAL_MODELS[kind]
    return 1 / (1 + math.exp(-(b0 + b1 * unshared + b2 * math.log(1 + words))))


def _report(refs, hyps, src=None, **options):
    return evaluate(evalset_from_lists(refs, hyps, src=src), Options(**options))


def test_support_counts_references_and_the_other_systems():
    support = word_support(_report({"ref": REF}, OUTPUTS, metrics=("chrf",)))
    c = support.system == support.systems.index("C")
    assert support.rho[c].tolist() == [1, 1, 0, 1, 1, 1, 0, 1, 1]  # 'jumped' and 'by' are in no reference
    assert support.sigma[c].tolist() == [1, 1, 0, 1, 1, 1, 0.5, 1, 1]  # 'by': B has it, A does not
    assert support.pos[c].tolist() == list(range(9)) and support.word[c].all()


def test_an_unsupported_word_is_a_span_a_half_supported_one_is_not():
    spans = predict_spans(_report({"ref": REF}, OUTPUTS, metrics=("chrf",)))
    assert list(spans.columns) == SPAN_COLUMNS
    # 'jumped': no reference, no other system; 'by' (B has it) is a candidate but holds no unsupported word; a
    # phrase of one word is minor (docs/spans.md, "Severity")
    assert spans.drop(columns="confidence").values.tolist() == [["C", 0, 8, 14, "jumped", "minor", "unsupported"]]
    assert spans["confidence"].iat[0] == pytest.approx(_confidence("unsupported", 1.0, 1))


def test_a_phrase_bridges_up_to_two_tokens_and_stops_at_the_segment():
    # 'quickly' and 'bounced' are unsupported; 'and' and ',' between them (two tokens) join them into one phrase
    refs = {"ref": ["the cat jumped and sat .", "a dog ran ."]}
    hyps = {"A": ["the cat jumped and sat .", "a dog ran ."], "B": ["the cat jumped and sat .", "a dog ran ."],
            "C": ["the cat quickly and , bounced .", "a dog ran away ."]}
    spans = predict_spans(_report(refs, hyps, metrics=("chrf",)))
    assert spans[["system", "seg", "start", "end", "text"]].values.tolist() == [
        ["C", 0, 8, 29, "quickly and , bounced"], ["C", 1, 10, 14, "away"]]
    assert spans["confidence"].tolist() == pytest.approx([_confidence("unsupported", 1.0, 2),
                                                          _confidence("unsupported", 1.0, 1)])


def test_a_moved_word_extends_a_phrase_through_the_alignment():
    refs = {"ref": ["the cat sat on mat"]}
    hyps = {"A": ["the cat sits on mat"], "B": ["the cat sits on mat"], "C": ["the cat quickly on mat sat"]}
    report = _report(refs, hyps, metrics=("chrf",))
    support = word_support(report)
    c = support.system == support.systems.index("C")
    assert support.rho[c].tolist() == [1, 1, 0, 1, 1, 1]  # 'sat' is in the reference ...
    assert support.aligned[c].tolist() == [1, 1, 0, 1, 1, 0]  # ... but not where C has it
    spans = predict_spans(report)
    # 'quickly' (in no reference, no other system) is the anchor; 'sat', moved and used by no other system, two
    # tokens further joins it. The others' 'sits' is half-shared (1 of 2 others): no span.
    assert spans[["system", "start", "end", "text", "kind"]].values.tolist() == [
        ["C", 8, 26, "quickly on mat sat", "unsupported"]]
    assert spans["confidence"].iat[0] == pytest.approx(_confidence("unsupported", 1.0, 2))


def test_phrases_on_hand_made_support():
    # one system's tokens in two segments (token 4: punctuation). Support = (aligned + sigma) / 2; candidates below
    # 1/2; unsupported where rho = 0 and sigma < 1/2. Token 2 is in the reference but not where the output has it
    # (moved: rho 1, aligned 0), token 6 is in no reference but half the other systems use it.
    support = WordSupport(systems=("S", "T", "U"), n_refs=1, system=np.zeros(10, np.int64),
                          seg=np.array([0, 0, 0, 0, 0, 0, 0, 1, 1, 1]), pos=np.array([0, 1, 2, 3, 4, 5, 6, 0, 1, 2]),
                          token=np.arange(10), word=np.array([1, 1, 1, 1, 0, 1, 1, 1, 1, 1], bool),
                          rho=np.array([0, 1, 1, 1, 0, 1, 0, 0, 1, 0], float),
                          aligned=np.array([0, 1, 0, 1, 0, 1, 0, 0, 1, 0], float),
                          sigma=np.array([0, 1, 0.25, 1, 0, 1, 0.5, 0, 1, 0.5]))
    found = phrases(support)
    # segment 0: candidates 0 (unsupported) and 2 (moved) one token apart make a phrase; 6 is three tokens from 2,
    # alone, and holds no unsupported word: dropped. Segment 1: 0 (unsupported) and 2 make one phrase.
    assert found[["seg", "first", "last", "words", "kind"]].values.tolist() == [[0, 0, 2, 2, "unsupported"],
                                                                                [1, 0, 2, 2, "unsupported"]]
    assert found["min_sigma"].tolist() == [0.0, 0.0]
    assert phrases(support, gap=3)[["seg", "first", "last", "words"]].values.tolist() == [[0, 0, 6, 3], [1, 0, 2, 2]]


def test_without_a_reference_the_other_systems_decide():
    hyps = {"A": ["the cat sat on the mat"], "B": ["the cat sat on the mat"], "C": ["the cat sat on the rug"],
            "D": ["the cat sat on the rug"], "E": ["a cat sat on the mat"]}
    spans = predict_spans(_report({}, hyps, src=["die Katze saß auf der Matte"]))
    # 'rug': one of the four others (1/4 < 1/2); 'a': no other system; 'mat' (3 of 4 for A, 2 of 4 for E): kept
    assert spans[["system", "start", "end", "text", "kind"]].values.tolist() == [
        ["C", 19, 22, "rug", "no_consensus"], ["D", 19, 22, "rug", "no_consensus"], ["E", 0, 1, "a", "no_consensus"]]
    assert spans["confidence"].tolist() == pytest.approx(
        [_confidence("no_consensus", 0.75, 1), _confidence("no_consensus", 0.75, 1),
         _confidence("no_consensus", 1.0, 1)])


def test_with_a_reference_and_two_systems_the_reference_alone_decides():
    spans = predict_spans(_report({"ref": REF}, {"B": OUTPUTS["B"], "C": OUTPUTS["C"]}, metrics=("chrf",)))
    # every word no reference has; 'jumped' and 'by' are three tokens apart: two phrases
    assert spans[["system", "text", "kind"]].values.tolist() == [["B", "by", "no_reference"],
                                                                 ["C", "jumped", "no_reference"],
                                                                 ["C", "by", "no_reference"]]
    assert spans["confidence"].tolist() == pytest.approx([_confidence("no_reference", 0.0, 1)] * 3)


def test_one_system_without_a_reference_has_no_phrase_spans():
    report = evaluate(evalset_from_lists({}, {"A": ["a cat"]}, src=["eine Katze"]))
    spans = predict_spans(report)
    assert spans.empty and list(spans.columns) == SPAN_COLUMNS


def test_check_marks_are_spans_with_the_checks_confidence_and_severity():
    src = ["I have 3 apples and the the the pears", "We have 12 dogs"]
    refs = {"ref": ["I have 3 apples and the pears", "We have 12 dogs"]}
    hyps = {"A": ["I have 3 apples and the the the pears", "We have 12 dogs"],
            "B": ["I have 3 apples and the pears", "We have 13 dogs"],
            "C": ["I have 3 apples and the pears", "We have 12 dogs"]}
    spans = predict_spans(_report(refs, hyps, src=src))
    number = spans[spans["kind"] == "number_mismatch"]
    assert number[["system", "seg", "start", "end", "text", "severity"]].values.tolist() == \
        [["B", 1, 8, 10, "13", "major"]]
    assert number["confidence"].iat[0] == pytest.approx((CHECK_EVIDENCE["number_mismatch"][0] + 1)
                                                        / (CHECK_EVIDENCE["number_mismatch"][1] + 2))
    # the source repeats 'the the the': not the output's fault, so no repetition mark
    assert "repetition" not in set(spans["kind"])
    # '13' is also a word no reference and no other system has
    assert spans[spans["kind"] == "unsupported"][["system", "text"]].values.tolist() == [["B", "13"]]


def test_a_loop_is_a_critical_span():
    refs = {"ref": ["we like the green house"]}
    hyps = {"A": ["we like the green house"], "B": ["we like the green house"],
            "C": ["we like like like the green house"]}
    spans = predict_spans(_report(refs, hyps, src=["wir mögen das grüne Haus"]))
    loop = spans[spans["kind"] == "repetition"]
    assert loop[["system", "start", "end", "text", "severity"]].values.tolist() == \
        [["C", 3, 17, "like like like", "critical"]]
    # a critical check's confidence is the critical tier's measured rate, not the check's own counts
    assert loop["confidence"].iat[0] == pytest.approx(check_confidence("repetition", critical=True))
    assert loop["confidence"].iat[0] == pytest.approx((CRITICAL_EVIDENCE[0] + 1) / (CRITICAL_EVIDENCE[1] + 2))


def test_one_system_without_a_reference_still_gets_the_checks_marks():
    evalset = evalset_from_lists({}, {"A": ["Here is the translation: Hallo Welt", "Guten Morgen"]},
                                 src=["Hello world", "Good morning"])
    spans = predict_spans(evaluate(evalset))
    assert spans.drop(columns="confidence").values.tolist() == [
        ["A", 0, 0, 23, "Here is the translation", "critical", "llm_artefact"]]  # the words the check marks
    assert spans["confidence"].tolist() == [check_confidence("llm_artefact", critical=True)]


def test_the_threshold_filters_and_leaves_the_columns():
    report = _report({"ref": REF}, OUTPUTS, metrics=("chrf",))
    assert len(predict_spans(report, threshold=0.0)) == 1
    high = predict_spans(report, threshold=0.99)
    assert high.empty and list(high.columns) == SPAN_COLUMNS
    assert DEFAULT_THRESHOLD == 0.10


@pytest.mark.parametrize("text, tokenizer, expected", [
    ("😀 我们喜欢猫", "zh", [(0, 1), (2, 3), (3, 4), (4, 5), (5, 6), (6, 7)]),
    ("😀 我们喜欢猫", "13a", [(0, 1), (2, 7)]),
    # 13a decodes &amp; (the token '&' stands for the whole entity), typography: “ ” -> ", … -> ... (each dot is
    # the one ellipsis character)
    ("Click <b>here</b> &amp; “go”… now", "13a",
     [(0, 5), (6, 7), (7, 8), (8, 9), (9, 13), (13, 14), (14, 15), (15, 16), (16, 17), (18, 23), (24, 25),
      (25, 27), (27, 28), (28, 29), (28, 29), (28, 29), (30, 33)]),
    # İ lower-cases to two characters: the folded text is longer than the text, the offsets are the text's
    ("Wait… 👍 “OK” — İstanbul", "13a",
     [(0, 4), (4, 5), (4, 5), (4, 5), (6, 7), (8, 9), (9, 11), (11, 12), (13, 14), (15, 23)]),
])
def test_token_offsets_are_characters_of_the_text_as_written(text, tokenizer, expected):
    tokens = tokenize_text(text, TokenizeOptions(tokenizer))
    offsets = token_offsets(text, tokens, entities=tokenizer == "13a")
    assert [tuple(o) for o in offsets.tolist()] == expected


OFFSET_TEXTS = ["Click <b>here</b> &amp; “go”… now", "Wait… 👍 “OK” — İstanbul", "a b c", "", "  ",
                "我们都很喜欢猫。", "😀 我们喜欢猫", "x\u3000y\xa0z", "Hello, World!  Foo-bar 3.5%", "ÄÖÜ straße STRASSE",
                "a\tb\nc", "Tom &amp; Jerry's “best” day", "The cat sat on the mat."]


@pytest.mark.parametrize("tokenizer", ["13a", "intl", "zh", "none", "char"])
@pytest.mark.parametrize("lowercase, typography", [(True, True), (False, False), (True, False)])
def test_outputs_are_located_at_once_exactly_as_one_by_one(tokenizer, lowercase, typography):
    options = TokenizeOptions(tokenizer, lowercase=lowercase, typography=typography)
    tokens = [list(tokenize_text(text, options)) for text in OFFSET_TEXTS]
    tokens[2], tokens[3], tokens[4] = ["a", "zz", "c"], [""], ["", "x"]  # a token not found, empty tokens
    fold = {"lowercase": lowercase, "typography": typography, "entities": tokenizer == "13a"}
    bounds = np.cumsum([0] + [len(t) for t in tokens])
    at_once = outputs_token_offsets(OFFSET_TEXTS, [t for ts in tokens for t in ts], bounds, **fold)
    one_by_one = np.concatenate([token_offsets(text, ts, **fold).reshape(len(ts), 2)
                                 for text, ts in zip(OFFSET_TEXTS, tokens)])
    assert at_once.tolist() == one_by_one.tolist()
    assert (at_once[:, 0] >= 0).sum() > len(at_once) // 2  # most tokens are located


def test_ranges_are_located_for_many_systems_at_once_and_a_system_without_tokens_gives_none():
    report = _report({"ref": REF}, {**OUTPUTS, "E": [""]}, metrics=("chrf",))
    ranges = pd.DataFrame({"system": ["C", "E", "B", "C"], "seg": [0, 0, 0, 0], "first": [2, 0, 6, 9],
                           "last": [3, 0, 7, 9]})
    found = locator(report).frame(ranges)
    assert found[["system", "start", "end", "text"]].values.tolist() == [["C", 8, 17, "jumped on"],
                                                                         ["B", 23, 29, "by the"]]


def test_a_token_that_cannot_be_found_is_skipped_not_fatal():
    offsets = token_offsets("a b c", ["a", "zz", "c"])
    assert offsets.tolist() == [[0, 1], [-1, -1], [4, 5]]
    assert span_characters(offsets, 0, 1) == (0, 1) and span_characters(offsets, 1, 1) is None
    assert span_characters(offsets, 0, 2) == (0, 5)


def test_spans_of_cjk_output_with_emoji_are_characters():
    refs = {"ref": ["我们都很喜欢猫。"]}
    hyps = {"A": ["我们都很喜欢猫。"], "B": ["我们都很喜欢猫。"], "C": ["😀 我们都很讨厌猫。"]}
    report = evaluate(evalset_from_lists(refs, hyps), Options(tgt_lang="zh", metrics=("chrf",)))
    spans = predict_spans(report)
    text = hyps["C"][0]
    assert spans[["system", "start", "end", "text"]].values.tolist() == [["C", 0, 1, "😀"], ["C", 6, 8, "讨厌"]]
    assert all(text[a:b] == t for a, b, t in zip(spans["start"], spans["end"], spans["text"]))


def _round_trip_set():
    refs = {"ref": ["我们喜欢猫。", "the <b>cat</b> &amp; dog"]}
    hyps = {"A": ["我们喜欢猫。", "the <b>cat</b> &amp; dog"], "B": ["我们喜欢猫。", "the <b>cat</b> &amp; dog"],
            "C": ["😀 我们讨厌猫。", "the <i>cow</i> &amp; “dog”"]}
    return evalset_from_lists(refs, hyps)


@pytest.mark.parametrize("fmt", ["jsonl", "json"])
def test_records_are_read_back_by_the_metric_span_reader(fmt):
    evalset = _round_trip_set()
    report = evaluate(evalset, Options(metrics=("chrf",)))
    spans = predict_spans(report)
    records = span_records(report)
    assert [(r["system"], r["seg_id"]) for r in records] == [(s, g) for s in "ABC" for g in (1, 2)]
    c2 = records[-1]
    assert c2["mt"] == "the <i>cow</i> &amp; “dog”" and c2["metric"] == "mtdiag"
    assert [(e["text"], e["start"], e["end"]) for e in c2["error_spans"]] == [("i>cow</i", 5, 13)]
    assert set(c2["error_spans"][0]) == {"text", "start", "end", "severity", "confidence", "kind"}
    stream = io.StringIO()
    write_span_records(records, stream, fmt)
    data = stream.getvalue().encode("utf-8")
    outputs = {s: evalset.hyps[s].tolist() for s in evalset.systems}
    back, warnings = read_metric_spans((f"spans.{fmt}", data), outputs=outputs, n_segments=2)
    assert warnings == []
    assert set(back["metric"]) == {"mtdiag"}
    assert back[["system", "seg", "start", "end", "severity", "text"]].values.tolist() == \
        spans[["system", "seg", "start", "end", "severity", "text"]].values.tolist()
    assert back["confidence"].tolist() == pytest.approx(spans["confidence"].round(4).tolist())


def test_json_is_one_list_and_jsonl_one_record_a_line():
    report = evaluate(_round_trip_set(), Options(metrics=("chrf",)))
    records = span_records(report)
    lines = io.StringIO()
    write_span_records(records, lines, "jsonl")
    assert [json.loads(line) for line in lines.getvalue().splitlines()] == records
    whole = io.StringIO()
    write_span_records(records, whole, "json", indent=2)
    assert json.loads(whole.getvalue()) == records and "😀" in whole.getvalue()
    with pytest.raises(ValueError, match="unknown span format 'csv'"):
        write_span_records(records, io.StringIO(), "csv")


def test_a_slice_keeps_the_whole_sets_segment_ids():
    evalset = _round_trip_set().segment_subset([1])
    records = span_records(evaluate(evalset, Options(metrics=("chrf",))))
    assert [(r["system"], r["seg_id"]) for r in records] == [("A", 2), ("B", 2), ("C", 2)]
    assert [e["text"] for e in records[-1]["error_spans"]] == ["i>cow</i"]


def test_score_reads_the_export_back(tmp_path, capsys):
    from mtdiag import cli

    evalset = _round_trip_set()
    report = evaluate(evalset, Options(metrics=("chrf",)))
    path = tmp_path / "spans.jsonl"
    with path.open("w", encoding="utf-8") as stream:
        write_span_records(span_records(report), stream)
    files = []
    for name in ("ref", "A", "B", "C"):
        column = evalset.refs["ref"] if name == "ref" else evalset.hyps[name]
        file = tmp_path / f"{name}.txt"
        file.write_text("\n".join(column) + "\n", encoding="utf-8")
        files.append(file)
    args = ["score", "--ref", str(files[0]), *(a for n, f in zip("ABC", files[1:]) for a in ("--hyp", f"{n}={f}")),
            "--metrics", "chrf", "--metric-spans", str(path)]
    assert cli.main(args) == 0
    captured = capsys.readouterr()
    assert "error" not in captured.err.lower()


def test_lexical_confidence_is_the_logistic_of_the_two_features():
    value = lexical_confidence("unsupported", np.array([0.25, np.nan]), np.array([3, 1]))
    assert value.tolist() == pytest.approx([_confidence("unsupported", 0.75, 3), _confidence("unsupported", 0.0, 1)])
    assert check_confidence("a check the dev set never saw") == 0.5
    assert pd.Series(lexical_confidence("no_consensus", np.zeros(4), np.arange(1, 5))).is_monotonic_increasing


def test_severity_counts_put_the_predicted_spans_beside_an_imported_metrics():
    refs = {"ref": ["we like the green house", "the cat sat on mat"]}
    hyps = {"A": ["we like the green house", "the cat sits on mat"],
            "B": ["we like the green house", "the cat sits on mat"],
            "C": ["we like like like the green house", "the cat quickly on mat sat"]}
    evalset = evalset_from_lists(refs, hyps, src=["wir mögen das grüne Haus", "die Katze saß auf der Matte"])
    xcomet = [{"system": "A", "seg_id": 2, "error_spans": [{"start": 8, "end": 12, "severity": "minor"}]},
              {"system": "C", "seg_id": 1, "error_spans": [{"start": 3, "end": 17, "severity": "critical"},
                                                            {"start": 8, "end": 12, "severity": "major"}]}]
    evalset = with_metric_spans(evalset, ("xcomet.jsonl", "\n".join(json.dumps(r) for r in xcomet).encode()))
    counts = severity_counts(evaluate(evalset))
    assert list(counts.columns) == COUNT_COLUMNS
    # predicted: C's loop (critical), its phrase 'quickly on mat sat' (major); the loop's 'like like' words are in
    # the reference ('like'), so no phrase there
    assert counts.drop(columns="mqm").values.tolist() == [
        ["mtdiag", "A", 2, 0, 0, 0, 0], ["mtdiag", "B", 2, 0, 0, 0, 0], ["mtdiag", "C", 2, 1, 1, 0, 2],
        ["xcomet", "A", 2, 0, 0, 1, 1], ["xcomet", "B", 2, 0, 0, 0, 0], ["xcomet", "C", 2, 1, 1, 0, 2]]
    # predicted MQM per system beside the counts: the judge's mean over the system's outputs — the predicted_mqm
    # metric's corpus score (C, with a loop and a phrase, the worst); imported metrics have none
    report = evaluate(evalset)
    expected = judged(report)["mqm"].groupby(level="system").mean()
    assert counts["mqm"].tolist()[:3] == pytest.approx(expected.reindex(["A", "B", "C"]).tolist())
    assert counts["mqm"].tolist()[:3] == pytest.approx(report.corpus["predicted_mqm"].tolist())
    assert counts["mqm"].iat[2] == min(counts["mqm"].iloc[:3])
    assert counts["mqm"].iloc[3:].isna().all()


def test_severity_counts_put_the_human_errors_and_mqm_beside_the_predicted_ones(tmp_path):
    from mtdiag.io import load_folder

    (tmp_path / "src.txt").write_text("猫坐在垫子上\n我们喜欢绿茶\n", encoding="utf-8")
    (tmp_path / "ref.A.txt").write_text("the cat sat on the mat\nwe like green tea\n", encoding="utf-8")
    for name, lines in {"S1": ["the cat sat on the mat", "we like green tea"],
                        "S2": ["the dog sat on the mat", "we love green tea"],
                        "S3": ["the cat sat on the mat", "we like green tea"]}.items():
        (tmp_path / f"{name}.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    rows = ["system\tdoc\tdoc_id\tseg_id\trater\tsource\ttarget\tcategory\tseverity",
            "S2\td\t1\t1\tr1\ts\tthe <v>dog</v> sat on the mat\tAccuracy/Mistranslation\tMajor",
            "S2\td\t1\t2\tr1\ts\twe <v>love</v> green tea\tStyle/Awkward\tMinor",
            "S1\td\t1\t1\tr1\ts\tthe cat sat on the mat\tNo-error\tNo-error"]
    (tmp_path / "mqm.errors.tsv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    counts = severity_counts(evaluate(load_folder(tmp_path))).set_index(["metric", "system"])
    # the raters' errors over their rated outputs (S1: one, S2: two, S3: none), the human MQM score beside them
    # (S3 was not rated: no human row)
    assert counts.loc["human", ["outputs", "critical", "major", "minor", "spans"]].values.tolist() == [
        [1, 0, 0, 0, 0], [2, 0, 1, 1, 2]]
    assert counts.loc[("human", "S2"), "mqm"] == pytest.approx(-3.0) and counts.loc[("human", "S1"), "mqm"] == 0
    assert ("human", "S3") not in counts.index
    assert list(counts.index.get_level_values(0).unique()) == ["mtdiag", "human"]


def test_a_phrase_of_one_word_is_minor_a_longer_one_major():
    assert phrase_severity(np.array([1, 2, 5])).tolist() == ["minor", "major", "major"]
    refs = {"ref": ["the cat sat on the mat near the door"]}
    hyps = {"A": ["the cat sat on the mat near the door"], "B": ["the cat sat on the mat near the door"],
            "C": ["the cat jumped on the mat near the door"], "D": ["a dog slept on the mat near the door"]}
    spans = predict_spans(_report(refs, hyps, metrics=("chrf",)))
    assert spans[["system", "text", "severity"]].values.tolist() == [["C", "jumped", "minor"],
                                                                     ["D", "a dog slept", "major"]]


def test_an_empty_output_is_a_critical_zero_width_span_where_the_translation_is_missing():
    refs = {"ref": ["we like the green house", "the cat sat on the mat"]}
    hyps = {"A": ["we like the green house", ""], "B": ["we like the green house", "the cat sat on the mat"],
            "C": ["we like the green house", "the cat sat on the mat"]}
    report = _report(refs, hyps, src=["wir mögen das grüne Haus", "die Katze saß auf der Matte"])
    empty = predict_spans(report)
    assert empty.drop(columns="confidence").values.tolist() == [["A", 1, 0, 0, "", "critical", "empty"]]
    assert empty["confidence"].iat[0] == pytest.approx(check_confidence("empty", critical=True))
    # predicted MQM counts it: the worst score of the set
    assert report.segments["predicted_mqm"].idxmin() == ("A", 1)


def test_with_human_scores_but_no_error_rows_the_score_stands_beside_without_counts():
    from mtdiag.io import load_folder

    report = evaluate(load_folder(SAMPLE / "wmt21.en-de"), Options(metrics=("chrf",)))
    counts = severity_counts(report).set_index(["metric", "system"])
    human = counts.loc["human"]
    assert human[["critical", "major", "minor", "spans"]].isna().all().all()
    means = report.evalset.human.groupby("system")["score"].mean()
    assert human["mqm"].to_dict() == pytest.approx(means.reindex(human.index).to_dict())


@pytest.mark.parametrize("folder, refs", [("wmt21.en-de", None), ("wmt21.en-de", ("C",))])
def test_the_spans_of_some_segments_are_the_whole_reports_rows_for_them(folder, refs):
    """Issue 37: the Segments page asks for one segment's spans; computed for that segment alone they are the rows
    of the whole report's frame for it (lexical evidence and the checks' marks), at every threshold; once the whole
    frame is computed, a segment's spans are read from it."""
    from dataclasses import replace

    from mtdiag.scoring.evaluate import default_metrics
    from mtdiag.io import load_folder

    evalset = load_folder(SAMPLE / folder)
    if refs is not None:
        evalset = replace(evalset, refs=evalset.refs[list(refs)])
    segments = [(0,), (16, 3), tuple(range(40, 60))]
    # predicted MQM (a default metric) computes every output's spans while scoring: left out, nothing is computed
    metrics = tuple(m for m in default_metrics(evalset) if m != "predicted_mqm")
    for threshold in (0.2, DEFAULT_THRESHOLD, 0.6):
        report = evaluate(evalset, Options(metrics=metrics))
        alone = {s: predict_spans(report, threshold, segments=s) for s in segments}
        assert report.context.stored(("spans", "predicted", threshold)) is None  # the whole frame was not computed
        whole = predict_spans(report, threshold)
        assert len(whole) > 0
        for chosen, frame in alone.items():
            expected = whole[whole["seg"].isin(chosen)].reset_index(drop=True)
            pd.testing.assert_frame_equal(frame, expected)
            pd.testing.assert_frame_equal(predict_spans(report, threshold, segments=chosen), expected)  # from whole

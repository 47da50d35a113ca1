"""Error spans at the right characters (issue 21, part 5): a hand-made MQM file and xCOMET-style JSON whose outputs
hold CJK text and emoji give the same character offsets; byte offsets, bad JSON, bad offsets and files over a
limit are refused naming file and line; metric spans stay apart from the human ones."""

from __future__ import annotations

import json

import pytest

from mtdiag.core.errors import InputError
from mtdiag.core.evalset import evalset_from_lists
from mtdiag.io import (Limits, read_error_annotations, read_metric_spans, weighed, with_error_annotations,
                       with_metric_spans)

OUTPUT = "😀 我们喜欢猫"  # 😀 is one character (4 UTF-8 bytes): 喜欢 is characters 4-6, bytes 11-17
OUTPUTS = {"A": [OUTPUT, "猫很可爱。"], "B": ["我们喜欢狗", "猫很可爱。"]}
MQM = "\n".join([
    "system\tdoc\tdoc_id\tseg_id\trater\tsource\ttarget\tcategory\tseverity",
    f"A\td\t1\t1\trater1\tWe like cats\t😀 我们<v>喜欢</v>猫\tAccuracy/Mistranslation\tMajor",
    "A\td\t1\t2\trater1\tCats are cute.\t猫很可爱。\tNo-error\tNo-error",
    "B\td\t1\t1\trater1\tWe like cats\t我们喜欢<v>狗</v>\tAccuracy/Mistranslation\tCritical",
    "B\td\t1\t2\trater2\tCats are cute.\t猫很可爱<v>。</v>\tFluency/Punctuation\tMinor",
]) + "\n"


def _records(start=4, end=6, text="喜欢", **extra):
    return [{"system": "A", "seg_id": 1, "error_spans": [{"start": start, "end": end, "severity": "major",
                                                           "text": text, "confidence": 0.91}], **extra},
            {"system": "B", "seg_id": 2, "errors": [{"start": 4, "end": 5, "severity": "MINOR"}]}]


def _json(records, indent=2) -> bytes:
    return json.dumps(records, ensure_ascii=False, indent=indent).encode("utf-8")


def _jsonl(records) -> bytes:
    return "\n".join(json.dumps(r, ensure_ascii=False) for r in records).encode("utf-8")


def test_mqm_span_in_cjk_text_with_emoji_is_in_characters():
    _, spans = read_error_annotations(("mqm.errors.tsv", MQM.encode()), n_segments=2)
    row = spans[spans["system"] == "A"].iloc[0]
    assert (row["start"], row["end"]) == (4, 6)
    assert OUTPUT[row["start"]:row["end"]] == "喜欢"


@pytest.mark.parametrize("shape", ["json", "jsonl"])
def test_xcomet_spans_give_the_same_characters(shape):
    data = _json(_records()) if shape == "json" else _jsonl(_records())
    spans, warnings = read_metric_spans((f"xcomet.{shape}", data), outputs=OUTPUTS, n_segments=2)
    assert warnings == []
    first = spans.iloc[0]
    assert (first["seg"], first["system"], first["metric"], first["start"], first["end"]) == (0, "A", "xcomet", 4, 6)
    assert first["text"] == "喜欢" and first["severity"] == "major" and first["confidence"] == pytest.approx(0.91)
    second = spans.iloc[1]  # "errors" for "error_spans", the severity lower-cased, the text taken from the output
    assert (second["seg"], second["system"], second["start"], second["end"], second["severity"], second["text"]) == \
        (1, "B", 4, 5, "minor", "。")


def test_byte_offsets_are_refused_saying_bytes():
    with pytest.raises(InputError, match=r"bytes\.json: line 2: .*seg_id 1, span 1: end 17 is past the output's "
                                         r"end \(7 characters\); the offsets look like UTF-8 bytes, not characters"):
        read_metric_spans(("bytes.json", _json(_records(11, 17))), outputs=OUTPUTS, n_segments=2)
    longer = {"A": [OUTPUT + " and a much longer tail", "x"], "B": ["x", "x"]}
    with pytest.raises(InputError, match=r"bytes\.jsonl: line 1: .*text \"喜欢\" is not the output's characters "
                                         r"11-17 .*look like UTF-8 bytes"):
        read_metric_spans(("bytes.jsonl", _jsonl(_records(11, 17))[:_jsonl(_records(11, 17)).index(b"\n")]),
                          outputs=longer, n_segments=2)


def test_a_text_that_is_not_at_its_offsets_is_refused_without_the_bytes_hint():
    with pytest.raises(InputError, match=r"s\.jsonl: line 1: .*text \"猫\" is not the output's characters 4-6 "
                                         r"\(\"喜欢\"\)$"):
        read_metric_spans(("s.jsonl", _jsonl(_records(text="猫"))), outputs=OUTPUTS, n_segments=2)


@pytest.mark.parametrize("start, end, message", [
    (-1, 2, "0 <= start <= end"), (5, 3, "0 <= start <= end"), (True, 3, "0 <= start <= end"),
    (2, 40, "end 40 is past the output's end"),
])
def test_bad_offsets_name_file_and_line(start, end, message):
    records = _records(start, end, text=None)
    with pytest.raises(InputError, match=rf"s\.jsonl: line 1: .*{message}"):
        read_metric_spans(("s.jsonl", _jsonl(records)), outputs=OUTPUTS, n_segments=2)


def test_bad_json_and_bad_records_name_file_and_line():
    with pytest.raises(InputError, match=r"s\.jsonl: line 3: not valid JSON"):
        read_metric_spans(("s.jsonl", _jsonl(_records()) + b"\n{\"system\": "), outputs=OUTPUTS)
    broken = b'[\n  {"system": "A", "seg_id": 1, "error_spans": []},\n  {"system": "A", "seg_id": 2,,}\n]'
    with pytest.raises(InputError, match=r"s\.json: line 3: not valid JSON"):
        read_metric_spans(("s.json", broken), outputs=OUTPUTS)
    with pytest.raises(InputError, match=r"s\.json: line 3: .*seg_id 3 is out of range"):
        read_metric_spans(("s.json", b'[\n {"system": "A", "seg_id": 1},\n {"system": "A", "seg_id": 3}\n]'),
                          outputs=OUTPUTS, n_segments=2)
    with pytest.raises(InputError, match=r"s\.jsonl: line 1: .*severity \"severe\""):
        read_metric_spans(("s.jsonl", _jsonl([{"system": "A", "seg_id": 1, "error_spans": [
            {"start": 0, "end": 1, "severity": "severe"}]}])), outputs=OUTPUTS)
    with pytest.raises(InputError, match=r"s\.jsonl: line 1: .*mt .* is not the loaded output"):
        read_metric_spans(("s.jsonl", _jsonl([{"system": "A", "seg_id": 1, "mt": "other", "error_spans": []}])),
                          outputs=OUTPUTS)


def test_limits_are_respected():
    data = _jsonl(_records() * 3)
    with pytest.raises(InputError, match=r"s\.jsonl: .*max-cells"):
        read_metric_spans(("s.jsonl", data), outputs=OUTPUTS, limits=Limits(max_cells=5))
    with pytest.raises(InputError, match=r"s\.jsonl: .*max-rows"):
        read_metric_spans(("s.jsonl", data), outputs=OUTPUTS, limits=Limits(max_rows=2))
    long_mt = _jsonl([{"system": "X", "seg_id": 1, "mt": "a" * 50, "error_spans": []}])
    with pytest.raises(InputError, match=r"s\.jsonl: line 1: .*max-segment-chars"):
        read_metric_spans(("s.jsonl", long_mt), outputs=OUTPUTS, limits=Limits(max_segment_chars=20))


def test_comet_score_to_json_shape_names_systems_after_their_files_and_ignores_scores():
    comet = {"outputs/A.txt": [{"src": "We like cats", "mt": OUTPUT, "ref": "r", "COMET": 0.41,
                                "errors": [{"text": "喜欢", "confidence": 0.5, "severity": "critical", "start": 4,
                                            "end": 6}]},
                               {"src": "s", "mt": "猫很可爱。", "ref": "r", "COMET": 0.9}]}
    spans, warnings = read_metric_spans(("comet.json", _json(comet, indent=4)), outputs=OUTPUTS, n_segments=2,
                                        metric="XCOMET-XL")
    assert spans[["seg", "system", "metric", "start", "end", "severity"]].values.tolist() == \
        [[0, "A", "xcomet_xl", 4, 6, "critical"]]
    assert any("not read" in w and "--scores" in w for w in warnings)
    with pytest.raises(InputError, match=r"comet\.json: line 3: .*text \"猫\""):
        comet["outputs/A.txt"][0]["errors"][0]["text"] = "猫"
        read_metric_spans(("comet.json", _json(comet, indent=4)), outputs=OUTPUTS, n_segments=2)


def test_with_metric_spans_keeps_them_apart_from_human_scores_and_warns_on_unknown_systems():
    evalset = evalset_from_lists({"ref": ["我们喜欢猫", "猫很可爱。"]}, OUTPUTS)
    records = _records() + [{"system": "Elsewhere", "seg_id": 1, "mt": "abc",
                             "error_spans": [{"start": 0, "end": 1, "severity": "minor", "text": "a"}]}]
    added = with_metric_spans(evalset, ("xcomet.json", _json(records)))
    assert added.human is None and added.annotations is None
    assert len(added.metric_spans) == 3
    assert any("Elsewhere" in w and "not loaded" in w for w in added.warnings)
    both = weighed(with_error_annotations(added, ("mqm.errors.tsv", MQM.encode())))
    assert len(both.metric_spans) == 3 and len(both.annotations) == 3  # MQM: 3 errors, one No-error row
    assert both.rated[["seg", "system", "rater"]].values.tolist() == \
        [[0, "A", "rater1"], [1, "A", "rater1"], [0, "B", "rater1"], [1, "B", "rater2"]]
    assert both.content_hash() != evalset.content_hash()
    part = both.segment_subset([1])
    assert part.metric_spans["seg"].tolist() == [0] and part.rated["seg"].tolist() == [0, 0]


def test_cli_metric_spans_option(tmp_path, capsys):
    from mtdiag import cli

    ref, hyp_a, hyp_b = (tmp_path / n for n in ("ref.txt", "A.txt", "B.txt"))
    ref.write_text("我们喜欢猫\n猫很可爱。\n", encoding="utf-8")
    hyp_a.write_text(f"{OUTPUT}\n猫很可爱。\n", encoding="utf-8")
    hyp_b.write_text("我们喜欢狗\n猫很可爱。\n", encoding="utf-8")
    spans = tmp_path / "xcomet.jsonl"
    spans.write_bytes(_jsonl(_records()))
    base = ["score", "--ref", str(ref), "--hyp", f"A={hyp_a}", "--hyp", f"B={hyp_b}", "--metrics", "chrf"]
    assert cli.main(base + ["--metric-spans", f"xcomet-xxl={spans}"]) == 0
    capsys.readouterr()
    bad = tmp_path / "bytes.jsonl"
    bad.write_bytes(_jsonl(_records(11, 17)))
    assert cli.main(base + ["--metric-spans", str(bad)]) != 0
    assert "look like UTF-8 bytes" in capsys.readouterr().err


def test_a_saved_run_keeps_metric_spans_and_rated_outputs(tmp_path):
    import pandas as pd

    from mtdiag.scoring.evaluate import Options, evaluate
    from mtdiag.scoring.workspace import Workspace

    evalset = evalset_from_lists({"ref": ["我们喜欢猫", "猫很可爱。"]}, OUTPUTS, src=["We like cats", "Cats are cute."])
    evalset = weighed(with_error_annotations(evalset, ("mqm.errors.tsv", MQM.encode())))
    evalset = with_metric_spans(evalset, ("xcomet.json", _json(_records())))
    workspace = Workspace(tmp_path)
    run = workspace.save(evaluate(evalset, Options(metrics=("chrf",))), "spans")
    back = workspace.open(run).evalset
    for name in ("metric_spans", "rated", "annotations"):
        saved, reopened = getattr(evalset, name), getattr(back, name)
        pd.testing.assert_frame_equal(reopened.reset_index(drop=True), saved.reset_index(drop=True), check_dtype=False,
                                      obj=name)
    assert back.content_hash() == evalset.content_hash()

"""``mtdiag spans``: one xCOMET-style record per (system, segment) as JSON Lines or JSON, written to a file or
printed; ``mtdiag score --metric-spans`` reads the file back as a metric's spans; ``--where`` keeps the whole set's
segment ids; a bad threshold is one line; without a reference the other systems decide."""

from __future__ import annotations

import json
import sys

import pytest

from mtdiag.scoring.evaluate import Options, evaluate
from mtdiag.cli import build_parser, load, main
from mtdiag.core.evalset import evalset_from_lists
from mtdiag.spans import predict_spans, span_records

SRC = ["die Katze saß auf der Matte nahe der Tür", "der Hund lief schnell", "wir trinken Tee"]
REF = ["the cat sat on the mat near the door", "the dog ran fast", "we drink tea"]
HYPS = {"A": ["the cat sat on the mat near the door", "the dog ran fast", "we drink tea"],
        "B": ["the cat sat on the mat by the door", "the dog ran fast", "we drink tea"],
        "C": ["the cat jumped quickly on the mat near the door", "the dog ran fast", "we drink tea"],
        "D": ["the cat sat on the rug near the door", "a dog ran fast", "we drink some tea"]}
# what the core predicts on this set (tests/test_spans.py has the rules): a two-word phrase no reference and no
# other system has is surer (0.34) than a one-word one (0.27)
EXPECTED = [("B", 1, "by"), ("C", 1, "jumped quickly"), ("D", 1, "rug"), ("D", 2, "a"), ("D", 3, "some")]


def run_cli(capsys, *args) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def files(tmp_path) -> dict[str, str]:
    paths = {}
    for name, lines in {"src": SRC, "ref": REF, **HYPS}.items():
        path = tmp_path / f"{name}.txt"
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        paths[name] = str(path)
    return paths


def inputs_of(files, with_ref: bool = True) -> list[str]:
    args = ["--src", files["src"]] + (["--ref", files["ref"]] if with_ref else [])
    for system in HYPS:
        args += ["--hyp", f"{system}={files[system]}"]
    return args


def listed(records) -> list[tuple[str, int, str]]:
    return [(r["system"], r["seg_id"], e["text"]) for r in records for e in r["error_spans"]]


def test_records_are_the_cores_one_per_output(capsys, files):
    code, out, err = run_cli(capsys, "spans", *inputs_of(files))
    assert code == 0, err
    records = [json.loads(line) for line in out.splitlines()]
    report = evaluate(evalset_from_lists({"ref": REF}, HYPS, src=SRC), Options())
    assert records == span_records(report)  # the same report the command line scores
    assert [(r["system"], r["seg_id"]) for r in records] == [(s, g) for s in HYPS for g in (1, 2, 3)]
    assert listed(records) == EXPECTED
    jumped = next(e for r in records for e in r["error_spans"] if e["text"] == "jumped quickly")
    assert jumped == {"text": "jumped quickly", "start": 8, "end": 22, "severity": "major",
                      "confidence": pytest.approx(0.3289, abs=1e-4), "kind": "unsupported"}
    assert "mtdiag: 5 spans in 5 of 12 outputs (confidence at least 0.1)" in err


def test_the_threshold_keeps_the_surer_spans_and_a_bad_one_is_one_line(capsys, files):
    code, out, _ = run_cli(capsys, "spans", *inputs_of(files), "--threshold", "0.3")
    assert code == 0 and listed(json.loads(line) for line in out.splitlines()) == [("C", 1, "jumped quickly")]
    for bad in ("1.5", "-0.1", "nan"):
        code, out, err = run_cli(capsys, "spans", *inputs_of(files), "--threshold", bad)
        assert code == 1 and out == "" and err.count("\n") == 1
        assert err == f"mtdiag: error: --threshold {float(bad)}: must be in 0..1\n"


def test_json_is_one_list_indented_on_a_terminal_only(capsys, files, monkeypatch):
    code, lines, _ = run_cli(capsys, "spans", *inputs_of(files))
    code, out, _ = run_cli(capsys, "spans", *inputs_of(files), "--format", "json")
    assert code == 0 and out.count("\n") == 1  # a pipe or a file: one line
    assert json.loads(out) == [json.loads(line) for line in lines.splitlines()]
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)  # capsys's stdout, read by mtdiag.cli.main
    code, shown, _ = run_cli(capsys, "spans", *inputs_of(files), "--format", "json")
    assert code == 0 and shown.startswith('[\n  {\n    "system": "A"') and json.loads(shown) == json.loads(out)


def test_the_file_is_read_back_by_score_as_a_metrics_spans(capsys, files, tmp_path):
    path = tmp_path / "spans.jsonl"
    code, out, err = run_cli(capsys, "spans", *inputs_of(files), "-o", path)
    assert code == 0 and out == "" and f"wrote {path}" in err
    score = ["score", *inputs_of(files), "--metrics", "chrf", "--metric-spans", str(path)]
    code, out, err = run_cli(capsys, *score)
    assert code == 0 and "warning" not in err and "chrf" in json.loads(out)["corpus"]["A"]
    evalset = load.load(build_parser("score").parse_args(score))
    back = evalset.metric_spans
    predicted = predict_spans(evaluate(evalset, Options(metrics=("chrf",))))
    assert set(back["metric"]) == {"mtdiag"}
    columns = ["system", "seg", "start", "end", "severity", "text"]
    assert back[columns].values.tolist() == predicted[columns].values.tolist()
    assert back["confidence"].tolist() == pytest.approx(predicted["confidence"].round(4).tolist())
    # the counts per severity show the spans read back beside the ones predicted now
    code, out, err = run_cli(capsys, "view", "human", *inputs_of(files), "--metric-spans", str(path), "--table",
                             "span_counts", "--format", "tsv")
    assert code == 0, err
    rows = [line.split("\t") for line in out.splitlines()]
    assert rows[0] == ["metric", "system", "outputs", "critical", "major", "minor", "spans", "mqm"]
    majors = {(metric, system): int(major) for metric, system, _, _, major, _, _, _ in rows[1:]}
    minors = {(metric, system): int(minor) for metric, system, _, _, _, minor, _, _ in rows[1:]}
    for system, major, minor in (("A", 0, 0), ("B", 0, 1), ("C", 1, 0), ("D", 0, 3)):  # one-word phrases: minor
        assert majors[("mtdiag", system)] == majors[("mtdiag (imported)", system)] == major
        assert minors[("mtdiag", system)] == minors[("mtdiag (imported)", system)] == minor


def test_where_keeps_the_whole_sets_segment_ids(capsys, files):
    code, out, err = run_cli(capsys, "spans", *inputs_of(files), "--where", "seg_id >= 2")
    assert code == 0, err
    records = [json.loads(line) for line in out.splitlines()]
    assert [(r["system"], r["seg_id"]) for r in records] == [(s, g) for s in HYPS for g in (2, 3)]
    assert listed(records) == [("D", 2, "a"), ("D", 3, "some")]
    assert [r["mt"] for r in records if r["system"] == "D"] == HYPS["D"][1:]
    assert "where: 2 of 3 segments" in err


def test_without_a_reference_the_other_systems_decide(capsys, files):
    code, out, err = run_cli(capsys, "spans", *inputs_of(files, with_ref=False))
    assert code == 0, err
    records = [json.loads(line) for line in out.splitlines()]
    assert listed(records) == EXPECTED  # here the other systems agree with the reference
    assert {e["kind"] for r in records for e in r["error_spans"]} == {"no_consensus"}


def test_the_report_takes_a_span_threshold(capsys, files, tmp_path):
    page = tmp_path / "report.html"
    code, _, err = run_cli(capsys, "report", *inputs_of(files), "-o", page, "--span-threshold", "0.3")
    assert code == 0, err
    text = page.read_text(encoding="utf-8")
    assert '<span class="mtd-k-predicted_major" title="mtdiag: unsupported, major, confidence 0.33">jumped ' \
           'quickly</span>' in text
    assert 'title="mtdiag: unsupported, minor, confidence 0.26"' not in text  # below the threshold
    code, _, err = run_cli(capsys, "report", *inputs_of(files), "-o", page, "--span-threshold", "2")
    assert code == 1 and err == "mtdiag: error: --span-threshold 2.0: must be in 0..1\n"


def test_the_protocol_sets_the_operating_point(files, capsys, monkeypatch):
    import mtdiag.spans.protocol as protocol

    code, out, _ = run_cli(capsys, "spans", *inputs_of(files), "--protocol", "mqm")
    mqm = [(r["system"], r["seg_id"], s["text"]) for r in map(json.loads, out.splitlines()) for s in r["error_spans"]]
    assert code == 0 and mqm == EXPECTED  # MQM: every span from 0.10, as without the flag
    # ESA: from its threshold, in the worst share of the outputs by the judge — here from 0.30 in the worst 25 % by
    # scores set by hand: C's and D's outputs of segment 1 score 0 and 10, D's of segment 2 20, the nine others
    # 100 (the 25 % quantile of the twelve: 20 + 0.75 · 80 = 80). Of their spans only C's "jumped quickly" (0.34)
    # reaches 0.30; D's one-word "rug" and "a" (0.27) do not
    monkeypatch.setitem(protocol.OPERATING_POINTS, "esa", {"threshold": 0.30, "share": 0.25})

    def by_hand(report, model=None):
        import pandas as pd

        scores = pd.DataFrame({"esa": 100.0}, index=report.segments.index)
        scores.loc[[("C", 0), ("D", 0), ("D", 1)], "esa"] = [0.0, 10.0, 20.0]
        return scores

    monkeypatch.setattr(protocol, "judged", by_hand)
    code, out, err = run_cli(capsys, "spans", *inputs_of(files), "--protocol", "esa")
    esa = [(r["system"], r["seg_id"], s["text"]) for r in map(json.loads, out.splitlines()) for s in r["error_spans"]]
    assert code == 0 and esa == [("C", 1, "jumped quickly")]
    code, out, _ = run_cli(capsys, "spans", *inputs_of(files), "--protocol", "esa", "--threshold", "0.1")
    assert sum(len(json.loads(line)["error_spans"]) for line in out.splitlines()) == len(EXPECTED)  # --threshold
    with pytest.raises(SystemExit) as stop:
        main(["spans", *inputs_of(files), "--protocol", "dqm"])
    assert stop.value.code == 2 and "invalid choice: 'dqm'" in capsys.readouterr().err

"""Buckets (compare-mt's analysis): counts, the corpus formula inside each bucket, label and human buckets."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from mtdiag.analysis import segment_groups
from mtdiag.scoring.evaluate import Options, evaluate
from mtdiag.core.errors import InputError
from mtdiag.core.evalset import evalset_from_lists

REFS = ["a b", "a b c d e f g h i j k l", "x y z", "one two three four five six seven eight nine ten eleven"]
HYPS = {"s": ["a b", "a b c d e f g x i j k l", "x x", "one two three"],
        "t": ["a c", "a b c d e f g h i j k l", "x y z", "one two three four five six seven eight nine ten eleven"]}
METRICS = ("bleu", "chrf", "ter", "otem", "utem", "waft")


@pytest.fixture(scope="module")
def report():
    segments = pd.DataFrame({"src": ["s1", "s2 s2", "s3", "s4"], "doc": ["d1", "d1", "d2", "d2"]},
                            index=pd.RangeIndex(4, name="seg"))
    evalset = evalset_from_lists({"ref": REFS}, HYPS)
    human = pd.DataFrame({"seg": [0, 1, 2, 3, 0, 1], "system": ["s", "s", "s", "s", "t", "t"],
                          "score": [0.0, -1.0, -5.0, -30.0, 0.0, -12.0]})
    evalset = type(evalset)(segments=segments, refs=evalset.refs, hyps=evalset.hyps, human=human)
    return evaluate(evalset, Options(metrics=METRICS))


def test_length_buckets_count_segments_and_use_the_corpus_formula(report):
    b = segment_groups.bucketing(report, "ref_length")
    assert b.order == ("1-9", "10-19")
    table = segment_groups.bucket_scores(report, b).set_index(["bucket", "system"])
    assert table.loc[("1-9", "s"), "segments"] == 2 and table.loc[("10-19", "s"), "segments"] == 2
    # inside a bucket: the corpus score of exactly those segments (summed statistics, not a mean of segments)
    for bucket, segs in (("1-9", [0, 2]), ("10-19", [1, 3])):
        sub = evaluate(evalset_from_lists({"ref": [REFS[i] for i in segs]},
                                          {k: [v[i] for i in segs] for k, v in HYPS.items()}), Options(metrics=METRICS))
        for metric in METRICS:
            for system in HYPS:
                assert table.loc[(bucket, system), metric] == pytest.approx(sub.corpus.loc[system, metric], abs=1e-12)
    means = report.segments["bleu"].xs("s", level="system").iloc[[1, 3]].mean()
    assert table.loc[("10-19", "s"), "bleu"] != pytest.approx(means)  # not a mean of segment scores


def test_label_and_human_buckets(report):
    docs = segment_groups.bucket_scores(report, segment_groups.bucketing(report, "label:doc"))
    assert list(docs["bucket"].unique()) == ["d1", "d2"] and set(docs["segments"]) == {2}
    human = segment_groups.bucketing(report, "human")
    assert human.order == ("0", "-0.1…-4.9", "-5…-9.9", "-10…-24.9", "≤ -25")
    table = segment_groups.bucket_scores(report, human).set_index(["bucket", "system"])
    assert table.loc[("0", "s"), "segments"] == 1 and table.loc[("0", "t"), "segments"] == 1
    assert table.loc[("≤ -25", "t"), "segments"] == 0 and np.isnan(table.loc[("≤ -25", "t"), "bleu"])
    with pytest.raises(ValueError, match="no label column 'domain'; label columns: doc"):
        segment_groups.bucketing(report, "label:domain")


def test_rarest_word_buckets_from_the_test_set_and_from_a_file(report, tmp_path):
    within = segment_groups.bucketing(report, "ref_freq")
    assert list(within.labels[0]) == ["2", "1", "1", "1"]  # "a"/"b" occur twice in the references
    counts = tmp_path / "counts.tsv"
    counts.write_text("a\t5000\nb\t2000\nx\t7\n", encoding="utf-8")
    from_file = segment_groups.bucketing(report, "ref_freq", word_counts=segment_groups.read_word_counts(counts))
    assert list(from_file.labels[0]) == ["1000+", "0", "0", "0"]
    counts.write_text("a\tmany\n", encoding="utf-8")
    with pytest.raises(InputError, match="line 1"):
        segment_groups.read_word_counts(counts)


def test_pairwise_test_inside_each_bucket(report):
    table = segment_groups.bucket_significance(report, segment_groups.bucketing(report, "label:doc"), "t", "s", n=100)
    row = table[(table["bucket"] == "d2") & (table["metric"] == "bleu")].iloc[0]
    assert row["segments"] == 2 and row["delta"] > 0 and row["better"] == 1
    assert set(table["bucket"]) == {"d1", "d2"}


def test_buckets_cli_contract(tmp_path, capsys):
    import json

    from mtdiag import cli

    (tmp_path / "ref.txt").write_text("\n".join(REFS) + "\n", encoding="utf-8")
    for name, lines in HYPS.items():
        (tmp_path / f"{name}.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    base = ["buckets", "--ref", str(tmp_path / "ref.txt"), "--hyp", f"s={tmp_path / 's.txt'}",
            "--hyp", f"t={tmp_path / 't.txt'}", "--metrics", "bleu,ter", "--by", "ref_length"]
    assert cli.main(base) == 0
    out = json.loads(capsys.readouterr().out)
    rows = out["buckets"]["ref_length"]
    assert [(r["bucket"], r["system"], r["segments"]) for r in rows] == [
        ("1-9", "s", 2), ("1-9", "t", 2), ("10-19", "s", 2), ("10-19", "t", 2)]
    assert set(rows[0]) == {"bucket", "system", "segments", "bleu", "ter"}
    assert cli.main(base + ["--format", "tsv", "--compare", "t", "s"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "by\tbucket\tsystem\tsegments\tbleu\tter" and lines[5] == ""
    assert lines[6] == "by\tbucket\tmetric\tsegments\tt\ts\tdelta\tp\tsignificant\tbetter" and len(lines) == 11
    assert cli.main(base + ["--by", "label:doc"]) == 1
    assert "--by 'label:doc': choose one of ref_length, ref_freq" in capsys.readouterr().err  # the view's choices

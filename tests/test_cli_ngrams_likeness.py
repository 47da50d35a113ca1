"""The ``ngrams`` and ``likeness`` subcommands and ``score --human`` (shared/DESIGN.md, the CLI contract)."""

from __future__ import annotations

import json

import pytest

from mtdiag.cli import main

from tests.conftest import SAMPLE

EN_DE = SAMPLE / "wmt21.en-de"
GLAT = f"GLAT={EN_DE / 'newstest2021.en-de.VolcTrans-GLAT.txt'}"
UEDIN = f"UEdin={EN_DE / 'newstest2021.en-de.UEdin.txt'}"
REFS = ["--ref", str(EN_DE / "ref.A.txt"), "--ref", str(EN_DE / "ref.C.txt"), "--ref", str(EN_DE / "ref.D.txt")]


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_ngrams_json_follows_the_contract(capsys):
    code, out, _ = run(capsys, "ngrams", "--ht", EN_DE / "ref.A.txt", "--mt", GLAT, "--mt", UEDIN, "--top", 5)
    assert code == 0
    data = json.loads(out)
    assert data["order"] == 3 and list(data["tables"]) == ["GLAT", "UEdin"]
    table = data["tables"]["GLAT"]
    assert set(table) == {"ht_only", "mt_only"} and len(table["ht_only"]) == 5
    for ngram, ht, mt in table["ht_only"]:
        assert isinstance(ngram, str) and ht >= 2 and mt == 0
    counts = [row[2] for row in table["mt_only"]]
    assert counts == sorted(counts, reverse=True) and all(row[1] == 0 for row in table["mt_only"])
    assert table["mt_only"][0] == ["sagte <PUNC> dass", 0, 7]


def test_ngrams_options_order_min_count_top_zero_and_tsv(capsys):
    argv = ["ngrams", "--ht", EN_DE / "ref.A.txt", "--mt", GLAT, "--order", 1, "--min-count", 3, "--top", 0]
    code, out, _ = run(capsys, *argv)
    everything = json.loads(out)["tables"]["GLAT"]
    assert code == 0 and all(row[1] >= 3 for row in everything["ht_only"])
    assert all(" " not in row[0] for row in everything["ht_only"])  # unigrams
    code, out, _ = run(capsys, *argv, "--format", "tsv")
    lines = out.rstrip("\n").split("\n")
    assert lines[0] == "system\ttable\tngram\tht_count\tmt_count"
    assert len(lines) == 1 + len(everything["ht_only"]) + len(everything["mt_only"])


def words(out: str) -> set[str]:
    return {row[0] for rows in json.loads(out)["tables"]["GLAT"].values() for row in rows}


def test_ngrams_case_option(capsys):
    _, cased, _ = run(capsys, "ngrams", "--ht", EN_DE / "ref.A.txt", "--mt", GLAT, "--order", 1, "--top", 0,
                      "--no-lowercase")
    _, lowered, _ = run(capsys, "ngrams", "--ht", EN_DE / "ref.A.txt", "--mt", GLAT, "--order", 1, "--top", 0)
    assert any(w != w.lower() for w in words(cased)) and all(w == w.lower() for w in words(lowered))


@pytest.mark.parametrize("extra, message", [
    (["--min-count", "0"], "--min-count 0"),
    (["--top", "-1"], "--top -1"),
    (["--mt", "X=/no/such/file.txt"], "no such file"),
])
def test_ngrams_errors_are_one_line(capsys, extra, message):
    code, out, err = run(capsys, "ngrams", "--ht", EN_DE / "ref.A.txt", "--mt", GLAT, *extra)
    assert code != 0 and out == "" and message in err and err.count("\n") == 1


def test_likeness_json_follows_the_contract(capsys):
    code, out, _ = run(capsys, "likeness", *REFS, "--hyp", GLAT, "--hyp", UEDIN)
    assert code == 0
    data = json.loads(out)
    assert list(data) == ["orange", "king", "queen"]
    assert list(data["orange"]) == ["waft", "neva", "bleu", "chrf"] == list(data["king"])
    assert list(data["queen"]) == ["GLAT", "UEdin"]
    assert all(0 <= v <= 1 for values in data.values() for v in values.values())


def test_likeness_metrics_and_tsv(capsys):
    code, out, _ = run(capsys, "likeness", *REFS, "--hyp", GLAT, "--metrics", "bleu,ter", "--format", "tsv")
    lines = out.rstrip("\n").split("\n")
    assert code == 0 and lines[0] == "measure\tname\tvalue"
    assert [line.split("\t")[:2] for line in lines[1:]] == [
        ["orange", "bleu"], ["orange", "ter"], ["king", "bleu"], ["king", "ter"], ["queen", "GLAT"]]


def test_likeness_with_one_reference_explains_and_exits_zero(capsys):
    code, out, err = run(capsys, "likeness", "--ref", EN_DE / "ref.A.txt", "--hyp", GLAT)
    assert code == 0 and json.loads(out) == {"orange": {}, "king": {}, "queen": {}}
    assert "at least 2 references" in err and "at least 3 references" in err


def test_likeness_unknown_metric_is_an_error(capsys):
    code, _, err = run(capsys, "likeness", *REFS, "--hyp", GLAT, "--metrics", "bleu,nope")
    assert code != 0 and "unknown metric 'nope'" in err and err.count("\n") == 1


def test_score_human_adds_correlations(capsys):
    hyps = [f"{name}={EN_DE / f'newstest2021.en-de.{name}.txt'}" for name in ("VolcTrans-GLAT", "UEdin", "Online-W")]
    argv = ["score", "--ref", EN_DE / "ref.A.txt", *sum((["--hyp", h] for h in hyps), []), "--metrics", "bleu,ter",
            "--human", EN_DE / "mqm.seg.tsv"]
    code, out, err = run(capsys, *argv)
    assert code == 0
    assert "scores for systems that are not loaded" in err and "Facebook-AI" in err  # rated, not given
    human = json.loads(out)["human"]
    assert list(human) == ["bleu", "ter"]
    assert set(human["bleu"]) == {"seg_pearson", "seg_kendall", "sys_pearson", "sys_kendall", "n_seg", "n_sys"}
    assert human["bleu"]["n_seg"] == 3 * 117 and human["bleu"]["n_sys"] == 3
    assert isinstance(human["ter"]["n_seg"], int) and -1 <= human["ter"]["seg_pearson"] <= 1


def test_score_human_errors(capsys):
    base = ["score", "--ref", EN_DE / "ref.A.txt", "--hyp", GLAT, "--metrics", "bleu"]
    code, _, err = run(capsys, *base, "--human", EN_DE / "mqm.seg.tsv", "--format", "tsv")
    assert code != 0 and "--human needs --format json" in err
    code, _, err = run(capsys, *base, "--human", EN_DE / "missing.tsv")
    assert code != 0 and "missing.tsv" in err and err.count("\n") == 1


def test_ngrams_language_from_tgt_lang_folder_or_file_names(capsys, tmp_path):
    """On en-ja the default tokeniser is ja-mecab whether the language comes from --tgt-lang, the folder name
    (wmt21.en-ja) or the file names; without any of them (plain copies) whole sentences are single words."""
    ja = SAMPLE / "wmt21.en-ja"
    (tmp_path / "ref.txt").write_bytes((ja / "ref.A.txt").read_bytes())
    (tmp_path / "ob.txt").write_bytes((ja / "newstest2021.en-ja.Online-B.txt").read_bytes())
    plain = ["ngrams", "--ht", tmp_path / "ref.txt", "--mt", f"OB={tmp_path / 'ob.txt'}", "--order", 1, "--top", 2,
             "--keep-typography"]  # texts as written: the counts below are of the raw "-" variants
    _, unknown, _ = run(capsys, *plain)
    _, option, _ = run(capsys, *plain, "--tgt-lang", "ja")
    _, folder, _ = run(capsys, "ngrams", "--ht", ja / "ref.A.txt", "--mt", f"OB={ja / 'newstest2021.en-ja.Online-B.txt'}",
                       "--order", 1, "--top", 2, "--keep-typography")
    expected = {"ht_only": [["同", 10, 0], ["新型", 9, 0]], "mt_only": [["-", 0, 16], ["ませ", 0, 16]]}
    assert json.loads(option)["tables"]["OB"] == expected
    assert json.loads(folder)["tables"]["OB"] == expected
    assert json.loads(unknown)["tables"]["OB"] == {"ht_only": [], "mt_only": [["-", 0, 7]]}


def test_score_reads_the_language_from_the_files_when_tgt_lang_is_absent(capsys, tmp_path):
    ja = SAMPLE / "wmt21.en-ja"
    (tmp_path / "ref.txt").write_bytes((ja / "ref.A.txt").read_bytes())
    (tmp_path / "ob.txt").write_bytes((ja / "newstest2021.en-ja.Online-B.txt").read_bytes())
    _, named, _ = run(capsys, "score", "--ref", ja / "ref.A.txt", "--hyp", ja / "newstest2021.en-ja.Online-B.txt",
                      "--metrics", "bleu")
    _, option, _ = run(capsys, "score", "--ref", tmp_path / "ref.txt", "--hyp", f"Online-B={tmp_path / 'ob.txt'}",
                       "--metrics", "bleu", "--tgt-lang", "ja")
    assert json.loads(named) == json.loads(option)
    assert json.loads(named)["corpus"]["Online-B"]["bleu"] == pytest.approx(25.975148730513638, abs=1e-9)
    assert "tok:ja-mecab" in json.loads(named)["signatures"]["bleu"]


def test_ngrams_several_orders_in_one_call_equal_single_calls(capsys):
    base = ["ngrams", "--ht", EN_DE / "ref.A.txt", "--mt", GLAT, "--mt", UEDIN, "--top", 7]
    code, out, _ = run(capsys, *base, "--order", "1,2,3,4")
    together = json.loads(out)
    assert code == 0 and together["orders"] == [1, 2, 3, 4] and list(together["tables"]) == ["1", "2", "3", "4"]
    for order in (1, 2, 3, 4):
        _, single, _ = run(capsys, *base, "--order", order)
        assert json.loads(single) == {"order": order, "tables": together["tables"][str(order)]}
    assert together["tables"]["3"]["GLAT"]["mt_only"][0] == ["sagte <PUNC> dass", 0, 7]
    _, tsv, _ = run(capsys, *base, "--order", "2,1", "--format", "tsv")
    lines = tsv.rstrip("\n").split("\n")
    assert lines[0] == "order\tsystem\ttable\tngram\tht_count\tmt_count"
    assert [line.split("\t")[0] for line in lines[1:]] == ["2"] * 28 + ["1"] * 28


@pytest.mark.parametrize("value, message", [("0", "orders must be among"), ("5", "orders must be among"),
                                            ("1,1", "each at most once"), ("1,x", "expected an order"),
                                            ("", "expected an order")])
def test_ngrams_bad_orders_are_usage_errors(capsys, value, message):
    with pytest.raises(SystemExit) as exit_:
        main(["ngrams", "--ht", str(EN_DE / "ref.A.txt"), "--mt", GLAT, "--order", value])
    assert exit_.value.code == 2 and message in capsys.readouterr().err

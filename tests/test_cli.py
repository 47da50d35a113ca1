"""The ``mtdiag score`` command line: the contract in DESIGN.md, the worked numbers, one-line errors."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from mtdiag.cli import main
from mtdiag.metrics import REGISTRY
from tests.conftest import SAMPLE, spec_path
from tests.test_worked_numbers import WORKED, _case_id


def run_cli(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("case", WORKED, ids=[_case_id(c) for c in WORKED])
def test_worked_numbers_through_the_cli(capsys, case):
    args = ["score", "--hyp", f"sys={spec_path(case['hyp'])}", "--metrics", "otem,utem,waft,neva", "--segments",
            "--tokenize", case["tokenize"], "--keep-typography"]  # the worked numbers are on texts as written
    for ref in case["refs"]:
        args += ["--ref", str(spec_path(ref))]
    if not case["lowercase"]:
        args.append("--no-lowercase")
    code, out, _ = run_cli(capsys, *args)
    assert code == 0
    result = json.loads(out)
    for metric, expected in case["corpus"].items():
        assert result["corpus"]["sys"][metric] == pytest.approx(expected, abs=1e-9)
    for metric, expected in case["segments_first5"].items():
        assert result["segments"]["sys"][metric][:5] == pytest.approx(expected, abs=1e-9)


def test_score_json_has_every_metric_the_inputs_allow(capsys):
    folder = SAMPLE / "tico19.en-fr"
    code, out, _ = run_cli(capsys, "score", "--ref", str(folder / "ref.A.txt"), "--src", str(folder / "src.txt"),
                           "--hyp", f"fairseq={folder / 'tico19dev.en-fr.Fairseq.txt'}", "--terms",
                           str(folder / "terms.tsv"), "--tgt-lang", "fr", "--segments")
    assert code == 0
    result = json.loads(out)
    assert list(result["corpus"]["fairseq"]) == [m for m in REGISTRY if REGISTRY[m].info.min_systems <= 1
                                                       and "esa_scores" not in REGISTRY[m].info.needs]
    assert all(len(v) == 200 for v in result["segments"]["fairseq"].values())
    assert None in result["segments"]["fairseq"]["term_exact"]  # segments without terms are null


def test_score_tsv_with_segments(capsys):
    folder = SAMPLE / "wmt21.en-de"
    code, out, _ = run_cli(capsys, "score", "--ref", str(folder / "ref.A.txt"), "--hyp",
                           f"a={folder / 'newstest2021.en-de.UEdin.txt'}", "--metrics", "bleu,waft", "--format", "tsv",
                           "--segments")
    lines = out.splitlines()
    assert code == 0 and lines[0] == "system\tseg_id\tbleu\twaft"
    assert lines[1].startswith("a\tcorpus\t") and lines[2].startswith("a\t1\t") and len(lines) == 2 + 117


@pytest.mark.parametrize("args,message", [
    (["--hyp", "a=missing.txt"], "mtdiag: error: missing.txt: no such file"),
    (["--metrics", "nope"], "mtdiag: error: --metrics: unknown metric 'nope'; known: " + ", ".join(REGISTRY)),
    (["--metrics", "term_exact"], "mtdiag: error: metric 'term_exact' needs term annotations (--terms), and these inputs have none"),
])
def test_score_errors_are_one_line_with_exit_status_1(capsys, args, message):
    folder = SAMPLE / "wmt21.en-de"
    base = ["score", "--ref", str(folder / "ref.A.txt")]
    if not any(a.startswith("a=") for a in args):
        base += ["--hyp", f"a={folder / 'newstest2021.en-de.UEdin.txt'}"]
    code, out, err = run_cli(capsys, *base, *args)
    assert code == 1 and out == "" and err.strip() == message


def test_mismatched_line_counts_name_both_files(tmp_path, capsys):
    (tmp_path / "ref.txt").write_text("a\nb\n", encoding="utf-8")
    (tmp_path / "hyp.txt").write_text("a\n", encoding="utf-8")
    code, _, err = run_cli(capsys, "score", "--ref", str(tmp_path / "ref.txt"), "--hyp", f"s={tmp_path / 'hyp.txt'}")
    assert code == 1
    assert err.strip() == f"mtdiag: error: {tmp_path / 'hyp.txt'}: has 1 line but {tmp_path / 'ref.txt'} has 2"


def test_python_dash_m_runs_the_cli():
    folder = SAMPLE / "wmt21.en-de"
    done = subprocess.run([sys.executable, "-m", "mtdiag", "score", "--ref", str(folder / "ref.A.txt"), "--hyp",
                           f"u={folder / 'newstest2021.en-de.UEdin.txt'}", "--metrics", "neva"],
                          capture_output=True, text=True, check=True)
    assert set(json.loads(done.stdout)["corpus"]["u"]) == {"neva"}


def test_the_entry_point_flushes_everything_and_keeps_every_exit_code(tmp_path):
    # run() ends the process with os._exit: output through a pipe and to a file must be complete, and the exit
    # codes of success, --help, a usage error and an input error must be the usual ones
    folder = SAMPLE / "wmt21.en-de"
    score = [sys.executable, "-m", "mtdiag", "score", "--ref", str(folder / "ref.A.txt"), "--format", "tsv",
             "--segments", "--hyp", f"u={folder / 'newstest2021.en-de.UEdin.txt'}", "--metrics", "bleu,chrf"]
    piped = subprocess.run(score, capture_output=True, text=True)
    assert piped.returncode == 0 and piped.stdout.endswith("\n")
    assert len(piped.stdout.splitlines()) > len(folder.joinpath("ref.A.txt").read_text(encoding="utf-8").splitlines())
    with open(tmp_path / "out.tsv", "w", encoding="utf-8") as out:
        assert subprocess.run(score, stdout=out).returncode == 0
    assert (tmp_path / "out.tsv").read_text(encoding="utf-8") == piped.stdout
    helped = subprocess.run([sys.executable, "-m", "mtdiag", "--help"], capture_output=True, text=True)
    assert helped.returncode == 0 and "usage: mtdiag" in helped.stdout
    usage = subprocess.run([sys.executable, "-m", "mtdiag", "score", "--bogus"], capture_output=True, text=True)
    assert usage.returncode == 2 and "unrecognized arguments: --bogus" in usage.stderr
    missing = subprocess.run([sys.executable, "-m", "mtdiag", "score", "--ref", str(tmp_path / "none.txt"), "--hyp",
                              f"s={tmp_path / 'none.txt'}"], capture_output=True, text=True)
    assert missing.returncode == 1 and missing.stderr.startswith("mtdiag: error:")


def test_reference_file_names_follow_the_io_naming_rule(tmp_path):
    from mtdiag.cli import build_parser
    from mtdiag.cli.load import load

    files = {"ref.A.txt": "a b\n", "ref.txt": "a b\n", "newstest2021.en-de.ref.B.txt": "a b\n",
             "newstest2021.en-de.Facebook-AI.txt": "a b\n"}
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    args = build_parser().parse_args(["score", *sum((["--ref", str(tmp_path / n)] for n in list(files)[:3]), []),
                                      "--hyp", str(tmp_path / "newstest2021.en-de.Facebook-AI.txt")])
    evalset = load(args)
    assert evalset.ref_names == ["A", "ref", "B"] and evalset.systems == ["Facebook-AI"]
    assert evalset.lang_pair == "en-de"  # from the system's file name


def test_jsonl_reference_and_system_are_read_as_tables_not_raw_lines(capsys, tmp_path):
    refs, hyps = ["the cat sat on the mat", "a dog"], ["the cat sat on a mat", "dog"]
    (tmp_path / "ref.jsonl").write_text("".join(json.dumps({"id": i, "text": t}) + "\n" for i, t in enumerate(refs)))
    (tmp_path / "sys.jsonl").write_text("".join(json.dumps({"id": i, "text": t}) + "\n" for i, t in enumerate(hyps)))
    (tmp_path / "ref.txt").write_text("\n".join(refs) + "\n")
    (tmp_path / "sys.txt").write_text("\n".join(hyps) + "\n")
    _, from_tables, _ = run_cli(capsys, "score", "--ref", str(tmp_path / "ref.jsonl"), "--hyp",
                                f"s={tmp_path / 'sys.jsonl'}", "--metrics", "bleu,chrf")
    _, from_text, _ = run_cli(capsys, "score", "--ref", str(tmp_path / "ref.txt"), "--hyp",
                              f"s={tmp_path / 'sys.txt'}", "--metrics", "bleu,chrf")
    import sacrebleu

    tables = json.loads(from_tables)["corpus"]["s"]
    assert tables == json.loads(from_text)["corpus"]["s"]
    assert tables["bleu"] == pytest.approx(sacrebleu.corpus_bleu(hyps, [refs]).score, abs=1e-9)
    assert tables["bleu"] < 100


def test_an_ambiguous_table_is_a_one_line_error(capsys, tmp_path):
    (tmp_path / "ref.tsv").write_text("a\tb\nx\ty\n")
    (tmp_path / "sys.txt").write_text("x\n")
    code, _, err = run_cli(capsys, "score", "--ref", str(tmp_path / "ref.tsv"), "--hyp", f"s={tmp_path / 'sys.txt'}")
    assert code == 1
    assert err == (f"mtdiag: error: {tmp_path / 'ref.tsv'}: line 1: is read as a table with one text column for the "
                   "reference, but it has text columns a, b; keep only that column, or give it one ref or ref.NAME "
                   "column\n")

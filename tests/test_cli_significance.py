"""``mtdiag score --paired-bs [N] | --paired-ar [N] --baseline NAME`` and ``--format latex`` (shared/DESIGN.md CLI).

The corpus is the hand-made one of tests/test_compare.py: ``good`` is the reference itself, ``bad`` repeats two
words and drops two on each of 50 segments, so every metric finds ``good`` significantly better.
"""

from __future__ import annotations

import json

import pytest

from mtdiag import __version__
from mtdiag.cli import main
from tests.test_compare import hand_made


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    refs, hyps = hand_made()
    refs, bad = refs["ref"], hyps["bad"]
    folder = tmp_path_factory.mktemp("sig")
    paths = {}
    for name, lines in (("ref", refs), ("good", refs), ("bad", bad)):
        paths[name] = folder / f"{name}.txt"
        paths[name].write_text("\n".join(lines) + "\n", encoding="utf-8")
    return paths


def run(capsys, files, *extra, metrics="bleu,chrf,waft,otem,utem", systems=None):
    systems = systems or {"bad": files["bad"], "good": files["good"]}
    argv = ["score", "--ref", str(files["ref"]), *(a for name, p in systems.items() for a in ("--hyp", f"{name}={p}"))]
    argv += ["--metrics", metrics, *extra]
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_paired_bs_json(capsys, files):
    code, out, err = run(capsys, files, "--paired-bs", "--baseline", "bad")
    assert code == 0, err
    data = json.loads(out)
    assert set(data) == {"corpus", "significance", "signatures"}
    sig = data["significance"]
    assert set(sig) == {"bad", "good"}
    for metric in ("bleu", "chrf", "waft", "otem", "utem"):
        base, good = sig["bad"][metric], sig["good"][metric]
        assert base["p"] is None and base["significant"] is False
        assert good["p"] < 0.01 and good["significant"] is True and good["better"] == 1
        lo, hi = good["ci"]
        assert lo <= data["corpus"]["good"][metric] <= hi
        assert {"mean", "ci", "p", "significant"} <= set(good)
        assert "|bs:1000|seed:12345|" in data["signatures"][metric]  # N optional: sacrebleu's default 1000
        assert __version__ in data["signatures"][metric]


def test_paired_ar_with_n_json(capsys, files):
    code, out, err = run(capsys, files, "--paired-ar", "500", "--baseline", "good", metrics="otem,bleu")
    assert code == 0, err
    data = json.loads(out)
    assert "|ar:500|seed:12345|" in data["signatures"]["otem"]
    assert data["significance"]["bad"]["otem"]["better"] == -1  # higher OTEM: worse
    assert data["significance"]["bad"]["bleu"]["p"] < 0.01


def test_paired_ar_default_trials(capsys, files):
    code, out, err = run(capsys, files, "--paired-ar", "--baseline", "good", metrics="bleu")
    assert code == 0, err
    assert "|ar:10000|seed:12345|" in json.loads(out)["signatures"]["bleu"]


def test_seed_option_and_determinism(capsys, files):
    outputs = [run(capsys, files, "--paired-bs", "300", "--baseline", "bad", "--seed", seed, metrics="bleu")[1]
               for seed in ("5", "5", "6")]
    assert outputs[0] == outputs[1] and outputs[0] != outputs[2]
    assert "seed:5" in json.loads(outputs[0])["signatures"]["bleu"]


def test_signatures_without_a_test(capsys, files):
    code, out, err = run(capsys, files, metrics="bleu,otem")
    assert code == 0, err
    data = json.loads(out)
    assert "significance" not in data and set(data["signatures"]) == {"bleu", "otem"}
    assert "bs:" not in data["signatures"]["bleu"] and "nrefs:1" in data["signatures"]["bleu"]


@pytest.mark.parametrize("extra,message", [
    (["--paired-ar", "--baseline", "nope"], "--baseline 'nope' is not a system; systems: bad, good"),
    (["--baseline", "bad"], "--baseline needs --paired-bs or --paired-ar"),
    (["--paired-bs", "0", "--baseline", "bad"], "--paired-bs 0: from 1 to 100,000 resamples"),
    (["--paired-bs", "--baseline", "bad", "--segments", "--format", "tsv"], "needs --format json"),
])
def test_clear_errors(capsys, files, extra, message):
    code, out, err = run(capsys, files, *extra)
    assert code == 1 and out == ""
    assert err.startswith("mtdiag: error: ") and message in err and len(err.strip().splitlines()) == 1


def test_one_system_cannot_be_compared(capsys, files):
    code, _, err = run(capsys, files, "--paired-bs", "--baseline", "bad", systems={"bad": files["bad"]})
    assert code == 1 and "at least two systems" in err


def test_paired_tests_are_mutually_exclusive(capsys, files):
    with pytest.raises(SystemExit) as exc:
        run(capsys, files, "--paired-bs", "--paired-ar", "--baseline", "bad")
    assert exc.value.code == 2


def test_latex_with_significance(capsys, files):
    systems = {"bad_v1 & co": files["bad"], "50% {good}": files["good"]}
    code, out, err = run(capsys, files, "--paired-bs", "200", "--baseline", "bad_v1 & co", "--format", "latex",
                         metrics="bleu,otem,waft", systems=systems)
    assert code == 0, err
    lines = out.splitlines()
    assert lines[-1] == r"\end{tabular}" and r"\toprule" in lines and r"\bottomrule" in lines
    assert r"System & BLEU $\uparrow$ & OTEM $\downarrow$ & WAFT $\uparrow$ \\" in lines
    good = next(line for line in lines if line.startswith(r"50\% \{good\} & "))
    assert good.count(r"$^{\dagger}$") == 3 and good.count(r"$\pm$") == 3
    assert any(line.startswith(r"bad\_v1 \& co (baseline) & ") for line in lines)
    assert any(line.startswith("% otem: otem|nrefs:1|bs:200|seed:12345|") for line in lines)


def test_latex_without_significance(capsys, files):
    code, out, err = run(capsys, files, "--format", "latex", metrics="bleu,utem")
    assert code == 0, err
    assert r"System & BLEU $\uparrow$ & UTEM $\downarrow$ \\" in out
    assert r"\pm" not in out and r"\dagger" not in out


def test_tsv_with_significance_is_the_long_table(capsys, files):
    code, out, err = run(capsys, files, "--paired-bs", "100", "--baseline", "bad", "--format", "tsv", metrics="bleu")
    assert code == 0, err
    header, *rows = out.strip().split("\n")
    assert header.split("\t") == ["system", "metric", "label", "score", "mean", "ci_lo", "ci_hi", "ci", "delta", "p",
                                  "significant", "better", "signature"]
    assert [r.split("\t")[0] for r in rows] == ["bad", "good"]


# ------------------------------------------------------------------ without --baseline: every pair of systems


def three(files, tmp_path):
    """bad, good and a copy of bad (``bad2``): good is cluster 1, bad and bad2 share cluster 2 (equal outputs)."""
    copy = tmp_path / "bad2.txt"
    copy.write_text(files["bad"].read_text(encoding="utf-8"), encoding="utf-8")
    return {"bad": files["bad"], "good": files["good"], "bad2": copy}


@pytest.mark.parametrize("test", ["--paired-bs", "--paired-ar"])
def test_no_baseline_json_clusters_and_matrix(capsys, files, tmp_path, test):
    code, out, err = run(capsys, files, test, "200", metrics="bleu,otem", systems=three(files, tmp_path))
    assert code == 0, err
    data = json.loads(out)
    assert set(data) == {"corpus", "pairwise", "signatures"}
    pairwise = data["pairwise"]
    assert pairwise["method"] == test[-2:] and pairwise["n"] == 200 and pairwise["seed"] == 12345
    for metric in ("bleu", "otem"):
        ranked = pairwise["clusters"][metric]
        assert [r["system"] for r in ranked][0] == "good"
        assert [(r["rank"], r["cluster"]) for r in ranked] == [(1, 1), (2, 2), (3, 2)]
        assert ranked[0]["p_above"] is None and ranked[1]["p_above"] < 0.05 and ranked[2]["p_above"] == 1.0
        assert ranked[0]["score"] == data["corpus"]["good"][metric]
        matrix = pairwise["pairwise"][metric]
        assert set(matrix) == {"bad", "good", "bad2"} and set(matrix["good"]) == {"bad", "bad2"}
        assert matrix["good"]["bad"]["significant"] is True and matrix["good"]["bad"]["better"] == 1
        assert matrix["bad"]["good"]["better"] == -1 and matrix["bad"]["bad2"]["delta"] == 0.0
        assert matrix["good"]["bad"]["p"] == matrix["bad"]["good"]["p"]  # one draw for every pair: symmetric
        assert f"|{test[-2:]}:200|seed:12345|" in data["signatures"][metric]


def test_no_baseline_tsv_is_clusters_then_matrix(capsys, files, tmp_path):
    code, out, err = run(capsys, files, "--paired-bs", "100", "--format", "tsv", metrics="chrf",
                         systems=three(files, tmp_path))
    assert code == 0, err
    clusters, matrix = out.rstrip("\n").split("\n\n")
    rows = [line.split("\t") for line in clusters.splitlines()]
    assert rows[0] == ["metric", "rank", "system", "score", "cluster", "p_above"]
    assert [(r[1], r[2], r[4]) for r in rows[1:]] == [("1", "good", "1"), ("2", "bad", "2"), ("3", "bad2", "2")]
    assert float(rows[1][3]) == 100.0 and rows[1][5] == "" and float(rows[3][5]) == 1.0
    lines = [line.split("\t") for line in matrix.splitlines()]
    assert lines[0] == ["metric", "system", "bad", "good", "bad2"]
    assert [line[1] for line in lines[1:]] == ["bad", "good", "bad2"]
    assert lines[1][2] == "" and lines[2][3] == "" and float(lines[1][4]) == 1.0  # diagonal empty
    assert float(lines[1][3]) < 0.05 and lines[1][3] == lines[2][2]


def test_no_baseline_latex_has_cluster_numbers(capsys, files, tmp_path):
    code, out, err = run(capsys, files, "--paired-ar", "100", "--format", "latex", metrics="bleu",
                         systems=three(files, tmp_path))
    assert code == 0, err
    body = {line.split(" & ")[0]: line for line in out.splitlines() if " & " in line}
    assert body["good"] == r"good & 100.00$^{(1)}$ \\"
    assert body["bad"].endswith(r"$^{(2)}$ \\") and body["bad2"].endswith(r"$^{(2)}$ \\")
    assert "significance cluster" in out and "|ar:100|seed:12345|" in out.splitlines()[0]


def test_no_baseline_needs_two_systems(capsys, files):
    code, _, err = run(capsys, files, "--paired-bs", systems={"bad": files["bad"]})
    assert code == 1 and "at least two systems" in err

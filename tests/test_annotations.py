"""Human error annotations: an MQM error TSV (several raters, every severity, a No-error row, a minor
Fluency/Punctuation error, a Non-translation) and ESA spans give the expected segment scores and spans, drawn in the
segment detail and usable as buckets."""

from __future__ import annotations

import json

import pytest

from mtdiag.analysis import segment_groups
from mtdiag.scoring.evaluate import Options, evaluate
from mtdiag.core.errors import InputError
from mtdiag.core.evalset import evalset_from_lists
from mtdiag.io import read_error_annotations, weighed, with_error_annotations
from mtdiag.views.detail import segment_detail

MQM = "\n".join([
    "system\tdoc\tdoc_id\tseg_id\trater\tsource\ttarget\tcategory\tseverity",
    "A\td\t1\t1\trater1\tThe cat sat.\tDie <v>Katze</v> saß.\tAccuracy/Mistranslation\tMajor",
    "A\td\t1\t1\trater1\tThe cat sat.\tDie Katze <v>saß</v>.\tFluency/Grammar\tMinor",
    "A\td\t1\t1\trater2\tThe cat sat.\tDie Katze saß<v>.</v>\tFluency/Punctuation\tMinor",
    "A\td\t2\t2\trater1\tA dog.\tA dog.\tNon-translation!\tMajor",
    "A\td\t2\t2\trater2\tA dog.\tA dog.\tNo-error\tNo-error",
    "B\td\t1\t1\trater1\tThe cat sat.\tDie Katze saß.\tNo-error\tNo-error",
    "B\td\t2\t2\trater1\tA dog.\tEin <v>Katze</v>.\tAccuracy/Mistranslation\tMinor",
    "B\td\t2\t2\trater2\tA dog.\tEin Katze.\tAccuracy/Omission\tNeutral",
]) + "\n"


def test_mqm_scores_are_negated_weighted_sums_averaged_over_raters():
    scores, spans = read_error_annotations(("errors.tsv", MQM.encode()), n_segments=2)
    got = {(r.system, r.seg): r.score for r in scores.itertuples()}
    # A/1: rater1 major 5 + minor 1 = 6, rater2 punctuation minor 0.1 -> -(6 + 0.1) / 2
    assert got[("A", 0)] == pytest.approx(-3.05)
    assert got[("A", 1)] == pytest.approx(-12.5)  # non-translation 25 and a clean rater -> -25 / 2
    assert got[("B", 0)] == 0.0 and got[("B", 1)] == pytest.approx(-0.5)  # minor 1 and neutral 0
    katze = spans[(spans["system"] == "A") & (spans["category"] == "Accuracy/Mistranslation")].iloc[0]
    assert (katze["start"], katze["end"], katze["weight"]) == (4, 9, 5.0)  # "Katze" in "Die Katze saß."
    assert len(spans) == 5  # one row per error; neutral and No-error rows are no errors
    assert spans.loc[spans["category"] == "Non-translation!", "start"].tolist() == [-1]  # an error without a span


def test_esa_jsonl_scores_and_spans():
    lines = [{"system": "A", "seg_id": 1, "score": 70, "error_spans": [{"start": 4, "end": 9, "severity": "major"}]},
             {"system": "A", "seg_id": 1, "score": 80, "error_spans": []},
             {"system": "B", "seg_id": 2, "score": 95, "error_spans": [{"start_i": 0, "end_i": 3, "severity": "minor"}]}]
    data = "\n".join(json.dumps(line) for line in lines).encode()
    scores, spans = read_error_annotations(("esa.jsonl", data), n_segments=2)
    assert {(r.system, r.seg): r.score for r in scores.itertuples()} == {("A", 0): 75.0, ("B", 1): 95.0}
    assert list(spans["severity"]) == ["major", "minor"] and list(spans["end"]) == [9, 3]
    bad = json.dumps({"system": "A", "seg_id": 1, "score": 1, "error_spans": [{"start": 5, "end": 2}]}).encode()
    with pytest.raises(InputError, match="esa.jsonl: line 1: error span .* start <= end"):
        read_error_annotations(("esa.jsonl", bad))


def test_bad_severity_names_file_and_line():
    data = MQM.replace("\tMinor\n", "\tSevere\n", 1).encode()
    with pytest.raises(InputError, match=r'errors.tsv: line 3: severity "Severe" \(category "Fluency/Grammar"\) has no weight'):
        read_error_annotations(("errors.tsv", data))


@pytest.fixture(scope="module")
def report():
    evalset = evalset_from_lists({"ref": ["Die Katze saß.", "Ein Hund."]},
                                 {"A": ["Die Katze saß.", "A dog."], "B": ["Die Katze saß.", "Ein Katze."]})
    return evaluate(with_error_annotations(evalset, ("errors.tsv", MQM.encode())), Options(metrics=("bleu", "chrf")))


def test_spans_are_drawn_in_the_segment_detail(report):
    detail = segment_detail(report, "A", 0)
    marks = {(s.start, s.end, s.kind) for s in detail.hyp_spans}
    assert (1, 2, "human_major") in marks and (2, 3, "human_minor") in marks  # Katze, saß
    table = detail.table("human_errors")
    assert list(table["text"]) == ["Katze", "saß", "."] and "human_major" in detail.legend
    assert report.evalset.human is not None and len(report.evalset.human) == 4


def test_error_categories_are_a_bucket_dimension(report):
    groups = segment_groups.bucketing(report, "error_category")
    assert groups.order == ("Accuracy", "Non-translation!", "no error")
    assert list(groups.labels[0]) == ["Accuracy", "Non-translation!"]  # the heaviest error of each output
    assert list(groups.labels[1]) == ["no error", "Accuracy"]
    table = segment_groups.bucket_scores(report, groups).set_index(["bucket", "system"])
    assert table.loc[("no error", "B"), "segments"] == 1


# ------------------------------------------------------------------ the CLI's --human and --annotations (issue 22)


def _sample_without_human_scores(tmp_path):
    """The WMT21 en-de sample without its mqm.seg.tsv, and an MQM error file rating every output of it (errors on
    every third segment, heavier for some systems) plus one system that is not loaded."""
    import shutil

    from tests.conftest import SAMPLE

    folder = tmp_path / "wmt21.en-de"
    shutil.copytree(SAMPLE / "wmt21.en-de", folder, ignore=shutil.ignore_patterns("mqm.seg.tsv"))
    from mtdiag.io import load_folder

    evalset = load_folder(folder)
    rows = ["system\tdoc\tdoc_id\tseg_id\trater\tsource\ttarget\tcategory\tseverity"]
    for k, system in enumerate(evalset.systems):
        for seg in range(1, evalset.n_segments + 1):
            if (seg + k) % 3:
                rows.append(f"{system}\td\t1\t{seg}\tr1\tx\ty\tNo-error\tNo-error")
            else:
                rows.append(f"{system}\td\t1\t{seg}\tr1\tx\t<v>y</v>\tAccuracy/Mistranslation\t"
                            f"{'Major' if k % 2 else 'Minor'}")
    rows.append("Elsewhere\td\t1\t1\tr1\tx\t<v>y</v>\tAccuracy/Mistranslation\tMajor")
    errors = tmp_path / "errors.tsv"
    errors.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return folder, errors


def test_human_takes_an_mqm_error_file_and_derives_its_scores(tmp_path, capsys):
    from mtdiag import cli

    folder, errors = _sample_without_human_scores(tmp_path)
    scores, _ = read_error_annotations(errors)
    seg_file = tmp_path / "mqm.seg.tsv"
    scores.assign(seg_id=scores["seg"] + 1)[["system", "seg_id", "score"]].to_csv(seg_file, sep="\t", index=False)
    outputs = []
    for human in (errors, seg_file):
        assert cli.main(["score", "--testset", str(folder), "--metrics", "bleu,chrf", "--human", str(human)]) == 0
        outputs.append(json.loads(capsys.readouterr().out)["human"])
    assert outputs[0] == outputs[1] and outputs[0]["chrf"]["n_seg"] == 6 * 117


def test_triage_annotations_fill_the_human_column_and_print_the_lift_like_human(tmp_path, capsys):
    from mtdiag import cli

    folder, errors = _sample_without_human_scores(tmp_path)
    runs = {}
    for flag in ("--annotations", "--human"):
        assert cli.main(["triage", "--testset", str(folder), flag, str(errors), "--metrics", "bleu,chrf"]) == 0
        runs[flag] = capsys.readouterr()
    header = runs["--annotations"].out.split("\n")[0].split("\t")
    assert header[-1] == "human"
    assert runs["--annotations"].out == runs["--human"].out  # the same scores, the same queue
    lift = [line for line in runs["--annotations"].err.splitlines() if "lift at 10 %" in line]
    assert lift and lift == [line for line in runs["--human"].err.splitlines() if "lift at 10 %" in line]
    assert "over 702 human-rated pairs" in lift[0]


def test_annotations_the_test_set_folder_reads_itself_are_read_once(tmp_path, capsys):
    import shutil

    from mtdiag import cli
    from mtdiag.cli import load

    folder, errors = _sample_without_human_scores(tmp_path)
    shutil.copy(errors, folder / "mqm.errors.tsv")
    assert cli.main(["triage", "--testset", str(folder), "--annotations", str(folder / "mqm.errors.tsv"),
                     "--metrics", "bleu", "--top", "1"]) == 0
    warnings = [line for line in capsys.readouterr().err.splitlines() if "not loaded" in line]
    assert warnings == ["mtdiag: warning: mqm.errors.tsv: annotations for systems that are not loaded (Elsewhere) "
                        "match no output"]
    args = cli.build_parser("triage").parse_args(["triage", "--testset", str(folder), "--annotations",
                                                  str(folder / "mqm.errors.tsv")])
    assert len(weighed(load.load(args)).annotations) == len(read_error_annotations(errors)[1])  # the spans once

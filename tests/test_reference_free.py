"""Triage without references (issue 20): the source and several outputs are enough for the command line and the
queue — consensus of the systems × the outputs' median length, critical checks first — and what needs a reference
says so in one sentence."""

from __future__ import annotations

import html
import json
from dataclasses import replace

import numpy as np
import pytest

from mtdiag.triage import ranking
from mtdiag.scoring.evaluate import Options, evaluate
from mtdiag.core.evalset import evalset_from_lists
from mtdiag.io import load_folder
from tests.conftest import SAMPLE
from tests.test_cli import run_cli

SRC = ["The weather is fine today .", "She reads a long book about the history of the city .", "We go home now .",
       "He plays the piano every evening after dinner ."]
OUTPUTS = {"a": ["Das Wetter ist heute schön .", "Sie liest ein langes Buch über die Geschichte der Stadt .",
                 "Wir gehen jetzt nach Hause .", "Er spielt jeden Abend nach dem Essen Klavier ."],
           "b": ["Das Wetter ist heute gut .", "Sie liest ein dickes Buch über die Geschichte der Stadt .",
                 "Wir gehen jetzt heim .", "Er spielt jeden Abend nach dem Abendessen Klavier ."],
           "c": ["Das Wetter ist heute schön .", "Katzen fressen gerne Fisch und schlafen viel .",
                 "Wir gehen jetzt nach Hause .", "Er spielt jeden Abend Klavier ."],
           "d": ["Das Wetter ist heute schön .", "", "Wir gehen nach Hause .", "Er spielt abends Klavier ."]}


@pytest.fixture(scope="module")
def report():
    return evaluate(evalset_from_lists({}, OUTPUTS, src=SRC))


def test_the_queue_is_built_from_consensus_and_output_length(report):
    assert report.metrics == ("consensus", "predicted_mqm")  # predicted MQM reads the checks: not a view of the queue
    assert ranking.ranking_metrics(report) == ["consensus"]
    lengths = ranking.segment_length(report).xs("a", level="system").to_numpy()
    np.testing.assert_allclose(lengths, [6, 9.5, 5.5, 7.5])  # median of the four outputs' token counts
    queue = ranking.worst_first(report, strict=True)
    assert (queue.iloc[0]["system"], queue.iloc[0]["seg"]) == ("d", 1)  # empty: critical
    assert (queue.iloc[1]["system"], queue.iloc[1]["seg"]) == ("c", 1)  # disagrees with every other system
    assert "median output length (no reference)" in ranking.signals(report)


def _write(tmp_path):
    (tmp_path / "src.txt").write_text("\n".join(SRC) + "\n", encoding="utf-8")
    for name, lines in OUTPUTS.items():
        (tmp_path / f"{name}.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")


def test_cli_triage_with_source_and_outputs_only(capsys, tmp_path):
    _write(tmp_path)
    args = ["triage", "--src", str(tmp_path / "src.txt"), "--format", "json"]
    for name in OUTPUTS:
        args += ["--hyp", f"{name}={tmp_path / f'{name}.txt'}"]
    code, out, err = run_cli(capsys, *args)
    assert code == 0, err
    rows = json.loads(out)
    assert len(rows) == 16 and list(rows[0])[:4] == ["system", "seg_id", "problem", "flags"]
    assert (rows[0]["system"], rows[0]["seg_id"]) == ("d", 2) and "empty" in rows[0]["flags"]
    assert "problem = percentile of error rate (Consensus) × median output length (no reference)" in err
    code, out, err = run_cli(capsys, "triage", "--testset", str(tmp_path), "--format", "json")  # a folder too
    assert code == 0 and len(json.loads(out)) == 16


def test_score_without_references_needs_three_systems_or_says_why(capsys, tmp_path):
    _write(tmp_path)
    base = ["score", "--src", str(tmp_path / "src.txt"), "--hyp", f"a={tmp_path / 'a.txt'}",
            "--hyp", f"b={tmp_path / 'b.txt'}"]
    code, _, err = run_cli(capsys, *base)
    assert code == 1 and "three or more system outputs" in err and "--ref" in err and len(err.splitlines()) == 1
    code, out, _ = run_cli(capsys, *base, "--hyp", f"c={tmp_path / 'c.txt'}")
    assert code == 0 and set(json.loads(out)["corpus"]["a"]) == {"consensus", "predicted_mqm"}


def test_no_inputs_names_every_way_in(capsys):
    code, _, err = run_cli(capsys, "triage", "--hyp", "a=a.txt")
    assert code == 1 and "--ref and/or --src" in err


def test_with_references_nothing_changes():
    evalset = load_folder(SAMPLE / "wmt21.en-de")
    report = evaluate(evalset)
    assert "consensus" not in report.metrics  # on request only where references exist
    free = evaluate(replace(evalset, refs=evalset.refs.iloc[:, :0], terms=None))
    assert free.metrics == ("consensus", "predicted_mqm")


# ------------------------------------------------------------------------------------------ the dashboard

from tests.test_app import (  # noqa: E402,F401  (the autouse fixtures of the dashboard tests apply here too)
    clear_caches, de_lines, html_bodies, lines_file, shown, start, visit)

UI = SAMPLE / "ui-strings.en-de"
PAGES_NEEDING_A_REFERENCE = ("over_under", "waft_neva")


def test_the_reference_free_sample_opens_from_the_list_and_every_page_lives():
    at = start()
    path = next(p for p in at.selectbox(key="data_set").options if p.endswith(UI.name))
    at.selectbox(key="data_set").set_value(path).run()
    assert "no reference" in " ".join(c.value for c in at.sidebar.caption)
    for page in ("overview", "segments", "distributions", "buckets",
                 "compare", "ngrams", *PAGES_NEEDING_A_REFERENCE):
        visit(at, page).run()
        assert not at.exception, f"{page}: {[e.value for e in at.exception]}"
        assert not at.error, f"{page}: {[e.value for e in at.error]}"
        says = [i.value for i in at.info if i.value.startswith("No reference:")]
        if page in PAGES_NEEDING_A_REFERENCE:
            assert len(says) == 1 and "upload" in says[0]
        elif page != "ngrams":  # n-grams: two systems work without a reference, the note stays
            assert not says and len(at.dataframe), page
    visit(at, "human").run()  # opens on what the data has: the error statistics of the predicted spans
    assert not at.exception and not at.error
    assert not [i for i in at.info if i.value.startswith("No reference:")]
    at.segmented_control(key="hl_section").set_value("likeness").run()
    says = [i.value for i in at.info if i.value.startswith("No reference:")]
    assert len(says) == 1 and "upload" in says[0]
    visit(at, "overview").run()
    assert any("consensus" in f.value.columns for f in at.dataframe)


def test_upload_a_source_and_outputs_without_a_reference():
    at = start()
    at.radio(key="data_mode").set_value("Upload files").run()
    at.file_uploader(key="up_src").set_value(lines_file("src.txt", de_lines("src.txt")))
    at.file_uploader(key="up_hyps").set_value(
        [lines_file(f"newstest2021.en-de.{s}.txt", de_lines(f"newstest2021.en-de.{s}.txt"))
         for s in ("Online-W", "UEdin", "eTranslation")]).run()
    assert not at.exception, [e.value for e in at.exception]
    assert "3 systems · no reference" in " ".join(c.value for c in at.sidebar.caption)
    visit(at, "segments").run()
    assert not at.exception and len(at.dataframe(key="seg_table").value) == 3 * 117


def test_slices_work_without_references(report):
    from mtdiag import slices

    names = {f.name for f in slices.fields(report)}
    assert {"consensus", "src", "src_len", "empty"} <= names and not {"ref", "ref_len", "rare_freq"} & names
    mask = slices.segment_mask(report, 'consensus[c] < 50 and src ~ "book"')
    assert mask.tolist() == [False, True, False, False]
    with pytest.raises(ValueError, match="ref"):
        slices.segment_mask(report, 'ref ~ "x"')


@pytest.mark.parametrize("fmt", ["xml", "sgml", "tsv", "jsonl", "tsv.gz"])
def test_test_set_files_without_references_are_reference_free_sets(tmp_path, fmt):
    from mtdiag.io.testsets import load_testset
    from tests.testset_formats import gzipped, write_jsonl, write_sgml, write_tsv, write_wmt_xml

    folder = load_folder(SAMPLE / "ui-strings.en-de")
    assert not folder.has_references
    path = {"xml": lambda: write_wmt_xml(folder, tmp_path / "t.xml", "en", "de"),
            "sgml": lambda: tmp_path / "sgml",
            "tsv": lambda: write_tsv(folder, tmp_path / "t.tsv"),
            "jsonl": lambda: write_jsonl(folder, tmp_path / "t.jsonl"),
            "tsv.gz": lambda: gzipped(write_tsv(folder, tmp_path / "t.tsv"))}[fmt]()
    if fmt == "sgml":
        write_sgml(folder, path, "en", "de")
    loaded = load_testset(path)
    assert not loaded.has_references
    assert loaded.src.tolist() == folder.src.tolist()
    assert sorted(loaded.systems) == sorted(folder.systems)
    for system in folder.systems:
        assert loaded.hyps[system].tolist() == folder.hyps[system].tolist()
    if fmt in ("xml", "sgml"):
        assert loaded.lang_pair == "en-de"  # the outputs' language: <hyp lang=…> / <tstset trglang=…>
    queue = ranking.worst_first(evaluate(loaded))
    assert len(queue) == folder.n_segments * len(folder.systems)


def test_cli_triage_takes_a_reference_free_test_set_file(capsys, tmp_path):
    from tests.testset_formats import write_wmt_xml

    path = write_wmt_xml(load_folder(SAMPLE / "ui-strings.en-de"), tmp_path / "strings.xml", "en", "de")
    code, out, err = run_cli(capsys, "triage", "--testset", str(path), "--top", "5")
    assert code == 0, err
    assert "consensus" in out


@pytest.mark.parametrize("text, said", [
    ("a\tb\nx\ty\n", "no reference or source column"),
])
def test_a_table_without_source_and_references_says_what_it_needs(tmp_path, text, said):
    from mtdiag.core.errors import InputError
    from mtdiag.io.testsets import load_testset

    path = tmp_path / "outputs.tsv"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError, match=said):
        load_testset(path)


def test_compare_without_a_reference_never_says_closer_to_the_reference():
    """Issue 35: without a reference Compare ranks by consensus; it says what the marked output is closer to (the
    other systems' outputs), nowhere "closer to the reference" (captions, labels, helps, the marks)."""
    from mtdiag.views import compare

    at = start()
    path = next(p for p in at.selectbox(key="data_set").options if p.endswith(UI.name))
    at.selectbox(key="data_set").set_value(path).run()
    visit(at, "compare").run()
    assert not at.exception, [e.value for e in at.exception]
    texts = [shown(c.value) for c in at.main.caption] + [shown(m.value) for m in at.main.markdown]  # as read
    texts += [html.unescape(html_bodies(at))]
    texts += [w.label + " " + (w.help or "") for w in at.main.selectbox]
    closer = json.loads(at.dataframe(key="cmp_segs").proto.columns)["closer"]
    texts.append(closer["help"])
    every = " ".join(texts)
    assert "reference" not in every.replace("(no reference)", "")
    assert every.count("closer to the other systems' outputs (no reference)") >= 3  # caption, help, the mark
    assert at.selectbox(key="cmp_metric").label == "Better output by"
    free = evaluate(load_folder(UI))
    assert compare.closer_to(free) == "closer to the other systems' outputs (no reference)"
    assert compare.closer_to(evaluate(load_folder(SAMPLE / "wmt21.en-de"), Options(metrics=("chrf",)))) == \
        "closer to the references"

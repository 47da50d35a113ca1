"""Uploads in the field's formats (issue 15, Build 1–3 in the dashboard): a test set file in WMT XML, SGML, TSV,
CSV, JSONL or gzip scores exactly like the folder it was written from; MQM annotations show their spans in the
segment detail; a metric-scores file adds its metric to every view; a broken file names the file and the line or
element and keeps the data loaded before."""

from __future__ import annotations

import csv
import gzip
import io
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from mtdiag.scoring.evaluate import evaluate
from mtdiag.io import load_folder
from tests.test_app import (  # noqa: F401 - the autouse fixtures of the dashboard tests apply here too
    DE, clear_caches, corpus_systems, de_lines, lines_file, no_data_argument, shown, sidebar_text, start, table_with,
    visit)
from tests.testset_formats import write_jsonl, write_sgml, write_tsv, write_wmt_xml

EVALSET = load_folder(DE)

SYSTEMS = ["eTranslation", "Facebook-AI", "Online-W", "UEdin", "VolcTrans-AT", "VolcTrans-GLAT"]


@pytest.fixture(scope="module")
def expected() -> pd.DataFrame:
    return evaluate(EVALSET).corpus


def _csv(path: Path) -> Path:
    rows = list(csv.reader(path.with_suffix(".tsv").read_text(encoding="utf-8").splitlines(), delimiter="\t",
                           quoting=csv.QUOTE_NONE))
    buffer = io.StringIO()
    csv.writer(buffer).writerows(rows)
    path.write_text(buffer.getvalue(), encoding="utf-8")
    return path


def _sgml_one_file(folder: Path) -> Path:
    """mteval's combined format: the source, reference and system sets in one .sgm file."""
    paths = write_sgml(EVALSET, folder / "sets", "en", "de")
    target = folder / "newstest2021.en-de.sgm"
    target.write_text("\n".join(p.read_text(encoding="utf-8") for p in paths), encoding="utf-8")
    return target


def _write(kind: str, folder: Path) -> Path:
    if kind == "xml":
        return write_wmt_xml(EVALSET, folder / "newstest2021.en-de.xml", "en", "de")
    if kind == "sgm":
        return _sgml_one_file(folder)
    if kind == "tsv":
        return write_tsv(EVALSET, folder / "newstest2021.en-de.tsv")
    if kind == "csv":
        write_tsv(EVALSET, folder / "newstest2021.en-de.tsv")
        return _csv(folder / "newstest2021.en-de.csv")
    if kind == "jsonl":
        return write_jsonl(EVALSET, folder / "newstest2021.en-de.jsonl")
    inner = _write(kind.removesuffix(".gz"), folder)
    target = inner.with_name(inner.name + ".gz")
    target.write_bytes(gzip.compress(inner.read_bytes()))
    return target


def upload(at, key: str, name: str, data: bytes):
    at.file_uploader(key=key).set_value((name, data, "application/octet-stream")).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def upload_mode():
    at = start()
    at.radio(key="data_mode").set_value("Upload files").run()
    return at


@pytest.mark.parametrize("kind", ["xml", "sgm", "tsv", "csv", "jsonl", "xml.gz", "jsonl.gz"])
def test_a_test_set_file_in_each_format_scores_like_the_folder(kind, tmp_path, expected):
    path = _write(kind, tmp_path)
    at = upload(upload_mode(), "up_testset", path.name, path.read_bytes())
    assert not at.error, [e.value for e in at.error]
    assert f"**{path.name}** (en-de)" in sidebar_text(at)
    assert "117 segments · 6 systems · 3 references" in sidebar_text(at)
    visit(at, "overview").run()
    table = table_with(at, "otem", "bleu")
    assert sorted(table.index) == sorted(SYSTEMS)
    for metric in ("bleu", "chrf", "ter", "otem", "utem", "waft", "neva"):
        assert table[metric].to_dict() == pytest.approx(expected[metric].to_dict(), abs=0, rel=0), metric


@pytest.mark.parametrize("name, data, expected_error", [
    ("broken.xml", b'<dataset id="t"><collection id="c"><doc id="d1"><src lang="en"><p><seg id="1">x</seg>',
     "broken.xml: "),
    ("broken.jsonl", b'{"src": "a", "ref": "b", "sys": "c"}\n{"src": "a", "ref": \n',
     "broken.jsonl: line 2:"),
    ("wrong.tsv.gz", b"not gzip at all", "wrong.tsv.gz: is not a readable gzip file"),
])
def test_a_broken_test_set_file_names_the_problem_and_keeps_the_data(name, data, expected_error):
    at = upload_mode()
    before = corpus_systems(at)
    upload(at, "up_testset", name, data)
    errors = [shown(e.value) for e in at.error]
    assert any(expected_error in e and "data loaded before stays" in e for e in errors), errors
    assert corpus_systems(at) == before


def test_markup_in_a_test_set_file_name_is_shown_as_text():
    at = upload_mode()
    upload(at, "up_testset", "<b>x</b>.jsonl", b'{"src": "a", "ref": \n')
    errors = [e.value for e in at.error]
    assert errors and all("<b>" not in e for e in errors)  # escaped: shown literally, never bold
    assert any("<b>x</b>.jsonl: line 1:" in shown(e) for e in errors)


MQM = "\n".join([
    "system\tdoc\tdoc_id\tseg_id\trater\tsource\ttarget\tcategory\tseverity",
    "UEdin\td\t1\t2\trater1\tx\tEs gibt <v>Masken-Beschämung</v> und dann gibt es voll auf Angriff.\t"
    "Accuracy/Mistranslation\tMajor",
    "UEdin\td\t1\t2\trater2\tx\tEs gibt Masken-Beschämung und dann gibt es voll auf Angriff<v>.</v>\t"
    "Fluency/Punctuation\tMinor",
]) + "\n"


def test_mqm_annotations_show_the_human_error_spans_in_the_segment_detail():
    at = upload(start(), "up_annotations", "mqm.errors.tsv", MQM.encode())
    assert not at.error, [e.value for e in at.error]
    assert "wmt21.en-de + mqm.errors.tsv" in sidebar_text(at)
    visit(at, "segments").run()
    table = at.dataframe(key="seg_table").value
    row = int(((table["system"] == "UEdin") & (table["seg_id"] == 2)).to_numpy().nonzero()[0][0])
    at.session_state["seg_table"] = {"selection": {"rows": [row], "columns": [], "cells": []}}
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert "Human errors" in [t.label for t in at.tabs]
    errors = table_with(at, "rater", "severity", "category")
    assert list(errors["text"]) == ["Masken-Beschämung", "."]
    assert list(errors["severity"]) == ["Major", "Minor"] and list(errors["weight"]) == [5.0, 0.1]
    assert "human_major" in "\n".join(h.value for h in at.get("html"))  # the span is marked in the hypothesis


def _wide_scores() -> bytes:
    lines = ["system,seg_id,comet"]
    for i, system in enumerate(SYSTEMS):
        lines += [f"{system},{seg},{0.5 + 0.01 * i + 0.001 * (seg % 7)}" for seg in range(1, 118)]
    return ("\n".join(lines) + "\n").encode()


def test_a_scores_upload_adds_the_metric_to_every_view():
    at = upload(start(), "up_scores", "comet.csv", _wide_scores())
    assert "wmt21.en-de + comet.csv" in sidebar_text(at)
    visit(at, "overview").run()
    table = table_with(at, "otem", "comet")
    expected = {s: sum(0.5 + 0.01 * i + 0.001 * (seg % 7) for seg in range(1, 118)) / 117
                for i, s in enumerate(SYSTEMS)}
    assert table["comet"].to_dict() == pytest.approx(expected, rel=1e-12)
    visit(at, "segments").run()
    assert "comet" in at.dataframe(key="seg_table").value.columns


def test_a_broken_scores_file_names_the_line_and_keeps_the_data():
    at = upload(start(), "up_scores", "comet.csv", _wide_scores())
    upload(at, "up_scores", "bad.tsv", b"system\tseg_id\tcomet\nUEdin\t999\t0.5\n")
    errors = [shown(e.value) for e in at.error]
    assert any("bad.tsv: line 2: seg_id 999 is out of range" in e and "data loaded before stays" in e
               for e in errors), errors
    visit(at, "overview").run()
    assert "comet" in table_with(at, "otem", "bleu").columns  # the data before (with comet) stays


@pytest.mark.parametrize("kind", ["tsv", "jsonl"])
def test_a_table_bomb_upload_is_refused_in_seconds_at_bounded_memory(kind):
    """Issue 22: a 290 KB .tsv.gz of 24.9 million tiny rows reached 24 GB in the server and was killed. Now the
    session's limits (its memory budget) refuse it while it inflates; the data loaded before stays."""
    import time
    import tracemalloc

    from tests.test_hostile_inputs import JSONL_BOMB, TSV_BOMB, bomb

    data = bomb(*(TSV_BOMB if kind == "tsv" else JSONL_BOMB))
    at = upload_mode()
    before = corpus_systems(at)
    tracemalloc.start()
    started = time.perf_counter()
    at.file_uploader(key="up_testset").set_value((f"bomb.{kind}.gz", data, "application/gzip")).run()
    seconds = time.perf_counter() - started
    peak = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    assert not at.exception, [e.value for e in at.exception]
    errors = [shown(e.value) for e in at.error]
    assert any(e.startswith(f"bomb.{kind}.gz: line ") and "too many lines" in e and "memory budget" in e
               and "MTDIAG_SESSION_BUDGET_MB" in e and "data loaded before stays" in e for e in errors), errors
    assert seconds < 10 and peak < 128, (seconds, peak)  # before: the server grew to 24 GB and was killed
    assert corpus_systems(at) == before


def test_two_dashboard_sessions_keep_their_imported_metrics_apart():
    """One AppTest session uploads a scores file; another, started after it, is unchanged: no column, label,
    option or ranking of the first session's metric reaches it."""
    from mtdiag.metrics import REGISTRY

    before = dict(REGISTRY)
    first = upload(start(), "up_scores", "comet.csv", _wide_scores())
    visit(first, "overview").run()
    assert "comet" in table_with(first, "otem", "bleu").columns
    second = start()
    visit(second, "overview").run()
    assert "comet" not in table_with(second, "otem", "bleu").columns
    assert not any(option.startswith("comet") for option in second.selectbox(key="ov_rank").options)
    visit(second, "segments").run()
    assert "comet" not in second.dataframe(key="seg_table").value.columns
    assert dict(REGISTRY) == before
    # the second session imports its own "comet", lower-is-better (before: refused, the name was taken process-wide)
    lower = _wide_scores().decode().replace("system,seg_id,comet", "system,seg_id,metric,score,higher_is_better")
    lower = "\n".join([lower.split("\n")[0]] + [f"{s},{i},comet,{v},no" for s, i, v in
                                                (line.split(",") for line in lower.strip().split("\n")[1:])]) + "\n"
    upload(second, "up_scores", "comet_lower.csv", lower.encode())
    assert not second.error, [e.value for e in second.error]
    visit(second, "overview").run()
    assert "comet ↓" in second.selectbox(key="ov_rank").options  # the options as shown: labels with arrows
    visit(first, "overview").run()  # the first session still has its own, higher-is-better
    assert "comet ↑" in first.selectbox(key="ov_rank").options
    assert dict(REGISTRY) == before


# ------------------------------------------------------------------ allocation errors never reach the page (issue 39)


def _array_memory_error():
    """What numpy raises when an array cannot be allocated (a ``MemoryError``): 8.94 GiB, as in the issue."""
    from numpy._core._exceptions import _ArrayMemoryError

    return _ArrayMemoryError((1_200_000_000,), np.dtype("float64"))


def test_a_page_whose_allocation_fails_says_so_and_the_session_goes_on(monkeypatch):
    from mtdiag.analysis import significance
    from mtdiag.ui import state

    at = start()
    real = significance.significance  # the paired tests of the Compare page's first table, not computed yet
    monkeypatch.setattr(significance, "significance",
                        lambda *args, **kwargs: (_ for _ in ()).throw(_array_memory_error()))
    visit(at, "compare").run()
    assert not at.exception, [e.value for e in at.exception]
    assert [e.value for e in at.error] == [state.OUT_OF_MEMORY]
    monkeypatch.setattr(significance, "significance", real)
    visit(at, "segments").run()  # the session goes on: another page, then the same one again
    assert not at.exception and not at.error
    visit(at, "compare").run()
    assert not at.exception and not at.error and at.dataframe


def test_scoring_that_runs_out_of_memory_keeps_the_data_loaded_before(monkeypatch):
    from mtdiag.ui import reports

    at = start()  # the sample set, scored
    real = reports.evaluate
    monkeypatch.setattr(reports, "evaluate", lambda *args, **kwargs: (_ for _ in ()).throw(_array_memory_error()))
    at.radio(key="data_mode").set_value("Upload files").run()
    at.file_uploader(key="up_refs").set_value(lines_file("ref.A.txt", de_lines("ref.A.txt")))
    at.file_uploader(key="up_hyps").set_value(lines_file("mine.txt", de_lines("ref.C.txt"))).run()
    assert not at.exception, [e.value for e in at.exception]
    errors = [shown(e.value) for e in at.error]
    assert len(errors) == 1 and errors[0].startswith("Scoring uploaded files needs more memory than the server has "
                                                     "free. Try a slice of the data")
    assert errors[0].endswith("The data loaded before stays in use (wmt21.en-de).")
    assert "6 systems" in sidebar_text(at) and len(table_with(at, "otem", "bleu")) == 6  # the sample set's
    monkeypatch.setattr(reports, "evaluate", real)
    at.run()
    assert not at.error and len(table_with(at, "otem", "bleu")) == 1  # scored once memory allows


WEIGHED = "\n".join([
    "system\tseg_id\trater\ttarget\tcategory\tseverity",
    "UEdin\t1\tr1\tx\tSource issue\tMajor",
    "UEdin\t2\tr1\t<v>x</v>\tStyle/Awkward\tMinor",
]) + "\n"


def _human(at) -> dict:
    """The human column of the Segments page's queue, by (system, seg_id)."""
    from tests.test_app import visit

    visit(at, "segments").run()
    table = at.dataframe(key="seg_table").value
    return {(r.system, r.seg_id): r.human for r in table.itertuples() if pd.notna(r.human)}


def test_the_error_weights_are_chosen_in_the_sidebar_and_a_bad_weights_file_keeps_the_data():
    """Issue 35: error rows become human scores by the chosen scheme — WMT's releases (a Source issue weighs 0),
    ESA-style severity only (5), or the user's own file — and a bad weights file is one message naming its line,
    the data staying loaded and its rows weighed by the default scheme meanwhile."""
    from tests.test_app import de_lines, lines_file

    at = upload_mode()
    at.file_uploader(key="up_src").set_value(lines_file("src.txt", de_lines("src.txt")))
    at.file_uploader(key="up_refs").set_value(lines_file("ref.A.txt", de_lines("ref.A.txt")))
    at.file_uploader(key="up_hyps").set_value(lines_file("newstest2021.en-de.UEdin.txt",
                                                         de_lines("newstest2021.en-de.UEdin.txt"))).run()
    upload(at, "up_annotations", "mqm.errors.tsv", WEIGHED.encode())
    assert _human(at) == {("UEdin", 1): 0.0, ("UEdin", 2): -1.0}
    assert at.selectbox(key="up_error_weights").value == "wmt"
    at.selectbox(key="up_error_weights").set_value("esa").run()
    assert _human(at) == {("UEdin", 1): -5.0, ("UEdin", 2): -1.0}
    at.selectbox(key="up_error_weights").set_value("file").run()
    upload(at, "up_error_weights_file", "weights.tsv", b"severity\tcategory\tweight\n*\t*\t2\n")
    assert _human(at) == {("UEdin", 1): -2.0, ("UEdin", 2): -2.0}
    upload(at, "up_error_weights_file", "weights.tsv", b"severity\tcategory\tweight\nmajor\t*\tlots\n")
    assert any('weights.tsv: line 2: weight "lots" is not a number' in shown(e.value)
               and "weighed by the wmt scheme meanwhile" in shown(e.value) for e in at.error)
    assert _human(at) == {("UEdin", 1): 0.0, ("UEdin", 2): -1.0}  # the data loaded stays, weighed by wmt


# ------------------------------------------------------------------------- memory: judged before, caught while parsing


def _big_table() -> bytes:
    """A 2.8 MB TSV set of 18 systems x 2,000 segments: its bytes show a set past a 512 MB session budget."""
    cell = "the cat sat on the mat by the door of the small house near the river"
    header = "\t".join(["source", "ref"] + [f"sys{i}" for i in range(18)])
    return (header + "\n" + "".join("\t".join([f"{cell} {k}"] * 20) + "\n" for k in range(2_000))).encode()


def test_a_test_set_file_over_the_budget_is_refused_before_it_is_parsed(monkeypatch):
    """A 25 MB TSV (18 systems x 10,000 segments) was parsed to 250-362 MB above the start before the estimate
    refused it; its bytes now say so before any parsing."""
    import mtdiag.ui.state as ui_state
    from mtdiag import io as mio

    monkeypatch.setattr(ui_state, "SESSION_BUDGET_MB", 512.0)  # the sample set fits (290 MB), this set (849) not
    monkeypatch.setattr(mio, "load_testset", lambda *a, **k: pytest.fail("parsed before the budget was checked"))
    at = upload_mode()
    upload(at, "up_testset", "big.tsv", _big_table())
    errors = [shown(e.value) for e in at.error]
    assert len(errors) == 1 and errors[0].startswith("big.tsv: this test set is too large for the dashboard: ")
    assert "up to 2,000 segments of 19 systems needs about" in errors[0]


@pytest.mark.parametrize("where", ["test set file", "text files", "extra systems", "annotations"])
def test_an_allocation_that_fails_while_parsing_is_one_line_and_the_data_stays(monkeypatch, where):
    """A MemoryError while an upload was parsed was not caught: "This app has encountered an error"."""
    from mtdiag import io as mio

    def no_memory(*args, **kwargs):
        raise MemoryError

    at = start()
    if where == "extra systems":
        monkeypatch.setattr(mio, "clean_name", no_memory)
        upload(at, "up_extra", *lines_file("mine.txt", de_lines("newstest2021.en-de.UEdin.txt"))[:2])
    elif where == "annotations":
        monkeypatch.setattr(mio, "with_error_annotations", no_memory)
        at.file_uploader(key="up_annotations").set_value(("mqm.tsv", b"system\tseg_id\n", "text/plain")).run()
    else:
        at.radio(key="data_mode").set_value("Upload files").run()
        if where == "test set file":
            monkeypatch.setattr(mio, "load_testset", no_memory)
            at.file_uploader(key="up_testset").set_value(("set.tsv", b"source\tref\tA\nx\ty\tz\n", "text/plain")).run()
        else:
            monkeypatch.setattr(mio, "load_files", no_memory)
            at.file_uploader(key="up_refs").set_value([lines_file("ref.A.txt", de_lines("ref.A.txt"))]).run()
            at.file_uploader(key="up_hyps").set_value([lines_file("mine.txt", de_lines("newstest2021.en-de.UEdin.txt"))]).run()
    assert not at.exception, [e.value for e in at.exception]
    errors = [shown(e.value) for e in at.error]
    assert len(errors) == 1 and "needs more memory than the server has free" in errors[0], errors
    assert "data loaded before stays in use" in errors[0]

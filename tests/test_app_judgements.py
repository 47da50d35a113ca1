"""Human judgements join a scored report (issues 45 and 46, AppTest): a human-score file or an error file uploaded
to a loaded set scores nothing again — the metrics, the checks and the queue's metric columns are reused, its human
column follows —, another weighting scheme re-weighs the rows it read without reading or scoring again, and two
sessions on the same texts share the scored report but never each other's judgements."""

from __future__ import annotations

import pandas as pd
import pytest

from tests.test_app import (  # noqa: F401 - the autouse fixtures of the dashboard tests apply here too
    DE, clear_caches, de_lines, lines_file, no_data_argument, shown, start, table_with, visit)
from tests.test_app_uploads import upload, upload_mode

SYSTEMS = ("UEdin", "Online-W")
ERRORS = "\n".join([
    "system\tseg_id\trater\ttarget\tcategory\tseverity",
    "UEdin\t1\tr1\tx\tSource issue\tMajor",             # wmt: 0 (the source's fault); esa: 5
    "UEdin\t2\tr1\t<v>x</v>\tStyle/Awkward\tMinor",     # 1 under both
    "Online-W\t1\tr1\tx\tNo-error\tNo-error",
]) + "\n"


@pytest.fixture
def counted(monkeypatch):
    """How often the dashboard scores a set and reads an annotation file."""
    from mtdiag import io as mio
    from mtdiag.ui import reports

    calls = {"evaluate": 0, "read": 0}
    scoring, reading = reports.evaluate, mio.with_error_annotations

    def evaluate(*args, **kwargs):
        calls["evaluate"] += 1
        return scoring(*args, **kwargs)

    def read(*args, **kwargs):
        calls["read"] += 1
        return reading(*args, **kwargs)

    monkeypatch.setattr(reports, "evaluate", evaluate)
    monkeypatch.setattr(mio, "with_error_annotations", read)
    return calls


def uploaded_texts():
    """Upload mode with the sample's source, reference A and two systems."""
    at = upload_mode()
    at.file_uploader(key="up_src").set_value(lines_file("src.txt", de_lines("src.txt")))
    at.file_uploader(key="up_refs").set_value(lines_file("ref.A.txt", de_lines("ref.A.txt")))
    at.file_uploader(key="up_hyps").set_value([lines_file(f"newstest2021.en-de.{s}.txt",
                                                          de_lines(f"newstest2021.en-de.{s}.txt")) for s in SYSTEMS])
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def queue(at) -> pd.DataFrame:
    visit(at, "segments").run()
    assert not at.exception, [e.value for e in at.exception]
    return at.dataframe(key="seg_table").value.set_index(["system", "seg_id"]).sort_index()


def human(at) -> dict:
    column = queue(at)["human"]
    return {key: value for key, value in column.items() if pd.notna(value)}


def human_scores_file() -> bytes:
    rows = [line for line in (DE / "mqm.seg.tsv").read_text(encoding="utf-8").splitlines()[1:]
            if line.split("\t")[0] in SYSTEMS]
    return ("system\tseg_id\torig_seg_id\tmqm_score\n" + "\n".join(rows) + "\n").encode()


def test_human_files_join_the_loaded_set_and_score_nothing_again(counted):
    """Uploading mqm.seg.tsv, then mqm.errors.tsv, re-scored every metric of every system (12 s and 15 s more on
    WMT23 zh-en): both join the scored report — scored once — and the queue keeps its ranking and metric columns."""
    at = uploaded_texts()
    scored = counted["evaluate"]  # the sample set the page opened on (unless read from disk), then the upload
    before = queue(at)
    assert "human" not in before.columns
    upload(at, "up_human", "mqm.seg.tsv", human_scores_file())
    after = queue(at)
    assert counted["evaluate"] == scored  # nothing scored again
    metrics = [c for c in before.columns if c not in ("tags",)]
    pd.testing.assert_frame_equal(after[metrics], before[metrics])  # ranking, flags and metric columns reused
    given = {(r[0], int(r[1])): float(r[3]) for r in (line.split("\t") for line in
                                                       human_scores_file().decode().splitlines()[1:])}
    assert human(at) == pytest.approx(given)  # the queue's human column follows the file
    upload(at, "up_annotations", "mqm.errors.tsv", ERRORS.encode())
    assert counted["evaluate"] == scored and counted["read"] == 1
    assert human(at) == pytest.approx(given)  # scores given stay the human scores; the errors join as spans
    visit(at, "human").run()
    at.segmented_control(key="hl_section").set_value("errors").run()
    assert not at.exception, [e.value for e in at.exception]
    counts = table_with(at, "category", "errors", "per_100")  # the error rows weighed: an error where they weigh
    assert counts[["system", "category", "errors"]].values.tolist() == [["UEdin", "Style", 1]]  # the top level, the view's default


def test_a_scheme_switch_reweighs_without_reading_or_scoring_again(counted):
    """Switching wmt → esa read the error file again and re-scored everything (3.4 s on TED zh-en's 13 systems):
    the rows read once are weighed again, nothing else."""
    at = uploaded_texts()
    upload(at, "up_annotations", "mqm.errors.tsv", ERRORS.encode())
    assert human(at) == {("UEdin", 1): 0.0, ("UEdin", 2): -1.0, ("Online-W", 1): 0.0}
    calls = dict(counted)
    at.selectbox(key="up_error_weights").set_value("esa").run()
    assert human(at) == {("UEdin", 1): -5.0, ("UEdin", 2): -1.0, ("Online-W", 1): 0.0}
    at.selectbox(key="up_error_weights").set_value("wmt").run()
    assert human(at) == {("UEdin", 1): 0.0, ("UEdin", 2): -1.0, ("Online-W", 1): 0.0}
    assert counted == calls  # no file read again, no metric scored again


def test_two_sessions_on_the_same_texts_keep_their_human_judgements_apart(counted):
    """Two sessions upload the same texts: they share one scored report (scored once) and its context, and the
    human scores one of them uploads reach neither the other's queue nor its slice fields."""
    first = uploaded_texts()
    scored = counted["evaluate"]
    second = uploaded_texts()
    assert counted["evaluate"] == scored  # the second session's texts: the same scored report
    upload(first, "up_human", "mqm.seg.tsv", human_scores_file())
    first.sidebar.text_input(key="slice_where").set_value("human[UEdin] < 0").run()
    assert not first.warning, [w.value for w in first.warning]
    assert "human" in queue(first).columns
    assert "human" not in queue(second).columns
    second.sidebar.text_input(key="slice_where").set_value("human[UEdin] < 0").run()
    assert any("The slice cannot be used" in shown(w.value) and "human" in shown(w.value) for w in second.warning), \
        [shown(w.value) for w in second.warning]
    assert counted["evaluate"] == scored


def test_what_is_keyed_by_the_scored_report_reads_no_human_judgement():
    """A table or chart declared ``scores_only`` is cached by the scored report's key, shared by every session of
    its texts whatever their human files: built on the report with the sample's human scores and error rows, and
    on the same report without them, it is the same frame or figure."""
    from dataclasses import replace

    from mtdiag import views
    from mtdiag.io import load_folder, with_error_annotations
    from mtdiag.pipeline.inputs import evaluate

    evalset = with_error_annotations(load_folder(DE), ("mqm.errors.tsv", ERRORS.encode()))
    judged = evaluate(evalset)
    bare = replace(judged, evalset=judged.evalset.without_judgements())
    assert judged.evalset.human is not None and len(judged.evalset.annotations) == 1
    checked = []
    for view in views.REGISTRY.values():
        for piece in (*view.tables, *view.charts):
            if not piece.scores_only or views.missing(judged, piece.needs):
                continue
            chosen = view.resolve(judged)
            with_human, without = piece.make(judged, chosen), piece.make(bare, chosen)
            if isinstance(with_human, pd.DataFrame):
                pd.testing.assert_frame_equal(with_human, without)
            else:
                assert (with_human is None and without is None) or with_human.to_json() == without.to_json()
            checked.append(f"{view.name}.{piece.name}")
    assert {"overview.corpus", "overview.corpus_bars", "overview.best"} <= set(checked)

"""Tags (issue 21 Build 4): the tag set (mtdiag.core.tags), tags as slice fields (``tag``, ``tag[SYSTEM]``), kept with a
saved run in the workspace (mtdiag.scoring.workspace), and in the HTML report. A tag set is an input of its own, given
to what reads it (a slice, the finder, the report, a saved run): never a part of the data or of a report."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from mtdiag.core import tags
from mtdiag.scoring.evaluate import Options, evaluate
from mtdiag.core.evalset import evalset_from_lists
from mtdiag.report.html_report import html_report
from mtdiag.slices import ExpressionError, segment_mask, where
from mtdiag.scoring.workspace import Workspace


@pytest.fixture(scope="module")
def report():
    ev = evalset_from_lists({"ref": ["a b c", "d e f", "g h i", "j k"]},
                            {"A": ["a b c", "d e", "g h x", "j"], "B": ["a c", "d e f", "g", "j k"]},
                            src=["w x", "y", "z z", "v"])
    return evaluate(ev, Options(metrics=("bleu", "chrf")))


def example():
    frame = tags.add_tag(None, [0, 2], None, "check")  # two whole segments
    frame = tags.add_tag(frame, [1, 1], ["A", "A"], "bad")  # one output, given twice: kept once
    return tags.add_tag(frame, [2], ["B"], "bad")


def test_adding_and_removing_tags():
    frame = example()
    assert frame.values.tolist() == [[0, "", "check"], [1, "A", "bad"], [2, "", "check"], [2, "B", "bad"]]
    assert tags.tag_names(frame) == ["bad", "check"]
    assert tags.remove_tag(frame, [2], None, "check").values.tolist() == [
        [0, "", "check"], [1, "A", "bad"], [2, "B", "bad"]]
    assert tags.remove_tag(frame, [1], ["B"], "bad").equals(frame)  # B's output of 1 had no tag


@pytest.mark.parametrize("name, message", [("", "needs a name"), ("x" * 41, "at most 40"),
                                           ("a\u200bb", "control or invisible"), ("a\nb", "control")])
def test_a_tag_name_is_short_visible_text(name, message):
    with pytest.raises(ValueError, match=message):
        tags.add_tag(None, [0], None, name)
    assert tags.tag_name("  keep  ") == "keep"


@pytest.mark.parametrize("expression, expected", [
    ('tag == "check"', [True, False, True, False]),
    ('tag != "check"', [False, True, False, True]),
    ('tag == "bad"', [False, True, True, False]),
    ('tag[A] == "bad"', [False, True, False, False]),
    ('tag[B] == "bad"', [False, False, True, False]),
    ('tag[B] in ("check", "bad")', [True, False, True, False]),
    ('tag == ""', [False, False, False, True]),  # untagged: segment 2 has two tags, segment 0 one
    ('tag ~ "^ch"', [True, False, True, False]),
    ('tag == "check" and tag == "bad"', [False, False, True, False]),
])
def test_tags_are_slice_fields(report, expression, expected):
    assert segment_mask(report, expression, example()).tolist() == expected


def test_without_tags_the_field_exists_and_holds_nothing(report):
    assert segment_mask(report, 'tag == ""').all()
    assert not segment_mask(report, 'tag == "check"').any()
    with pytest.raises(ExpressionError, match="unknown system 'Z' in tag\\[Z\\]"):
        segment_mask(report, 'tag[Z] == "x"')


def test_a_slice_reads_the_whole_sets_tags_by_segment_id_and_its_scores_are_the_slices(report):
    sliced = where(report, 'tag == "check"', example())
    assert sliced.evalset.seg_ids.tolist() == [1, 3]
    assert segment_mask(sliced, 'tag[B] == "bad"', example()).tolist() == [False, True]
    assert segment_mask(sliced, 'tag == "check"', example()).all()
    assert segment_mask(sliced, 'tag == "bad"', tags.add_tag(None, [1], None, "bad")).tolist() == [False, False]
    assert not hasattr(sliced.evalset, "tags")  # the tags are no part of a set or a report
    alone = evaluate(report.evalset.segment_subset(np.array([0, 2])), report.options)
    assert sliced.corpus.equals(alone.corpus)


def test_tag_labels_of_table_rows():
    frame = example()
    assert tags.tag_labels(frame, [1, 2, 3, 3, 4], ["A", "A", "A", "B", "B"]).tolist() == [
        "check", "bad", "check", "bad, check", ""]
    assert tags.tag_labels(frame, [3, 2], None).tolist() == ["bad, check", "bad"]  # a segment: its outputs' too


def test_tags_are_kept_with_a_saved_run(tmp_path, report):
    workspace = Workspace(tmp_path)
    run = workspace.save(report, "tagged", example())
    assert workspace.tags(run).values.tolist() == example().values.tolist()
    assert workspace.remove_tags(run, [0], None, "check") == 1
    assert Workspace(tmp_path).tags(run).values.tolist() == [[1, "A", "bad"], [2, "", "check"], [2, "B", "bad"]]
    assert segment_mask(Workspace(tmp_path).open(run), 'tag == "check"', Workspace(tmp_path).tags(run)).tolist() == [
        False, False, True, False]
    grown = workspace.add_system(run, "C", ["a b c", "d", "g", "j"])  # a new run from a tagged one keeps them
    assert len(workspace.tags(grown)) == 3
    workspace.delete(run)
    assert workspace.tags(run).empty  # deleted with the run
    with pytest.raises(KeyError):
        workspace.add_tags(run, [0], None, "check")


def test_a_workspace_made_before_tags_gets_the_table_on_its_first_write(tmp_path, report):
    import sqlite3

    workspace = Workspace(tmp_path)
    run = workspace.save(report, "plain")
    with sqlite3.connect(tmp_path / "workspace.sqlite") as db:
        db.execute("DROP TABLE tags")
    assert Workspace(tmp_path).tags(run).empty and len(Workspace(tmp_path).runs()) == 1
    assert Workspace(tmp_path).add_tags(run, [0, 2], None, "check") == 2
    assert len(Workspace(tmp_path).tags(run)) == 2


def test_the_html_report_lists_the_tags(report):
    page = html_report(report, top=4, n=20, tags=tags.add_tag(example(), [3], None, "<b>odd</b>"))
    assert 'id="tags"' in page and "&lt;b&gt;odd&lt;/b&gt;" in page and "<b>odd</b>" not in page
    untagged = html_report(report, top=4, n=20)
    assert 'id="tags"' not in untagged


def test_the_slice_finder_tries_each_tag(report):
    from mtdiag.slices import find_slices

    frame = tags.add_tag(None, [0, 1], None, "first half")
    found = find_slices(report, "A", "B", metric="chrf", min_size=1, n=50, tags=frame)
    assert 'tag == "first half"' in set(found["expression"])
    assert not any("tag" in e for e in find_slices(report, "A", "B", metric="chrf", min_size=1, n=50)["expression"])


def _add_concurrently(folder, run, writers: int, each: int, start: int = 0) -> list[int]:
    """``writers`` threads, each opening its own Workspace and adding ``each`` tags one by one to ``run`` at once."""
    import threading

    barrier = threading.Barrier(writers)
    stored: list[int] = []

    def writer(w: int) -> None:
        workspace = Workspace(folder)
        barrier.wait()
        for i in range(each):
            stored.append(workspace.add_tags(run, [start + w * each + i], None, f"w{w}"))

    threads = [threading.Thread(target=writer, args=(w,)) for w in range(writers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return stored


@pytest.mark.parametrize("held", [0, 20_000])
def test_two_concurrent_writers_lose_no_tag(tmp_path, report, held):
    """Two sessions tagging one saved run at the same moment (12 clicks each): every tag stored, each announced
    as stored once — also on a run already holding 20,000 tags. A tag is one insert, never read-modify-write."""
    workspace = Workspace(tmp_path)
    frame = pd.DataFrame({"seg": np.arange(held) % 4, "system": "", "tag": [f"t{i}" for i in range(held)]})
    run = workspace.save(report, "busy", frame)
    stored = _add_concurrently(tmp_path, run, writers=2, each=12, start=held)
    assert stored == [1] * 24
    kept = workspace.tags(run)
    assert len(kept) == held + 24
    for w in range(2):
        assert sorted(kept.loc[kept["tag"] == f"w{w}", "seg"]) == list(range(held + 12 * w, held + 12 * (w + 1)))


def _process_writer(folder, run, w):
    workspace = Workspace(folder)
    return [workspace.add_tags(run, [i], ["A"], f"p{w}") for i in range(10)]


def test_two_processes_adding_tags_at_once_lose_none(tmp_path, report):
    from concurrent.futures import ProcessPoolExecutor

    run = Workspace(tmp_path).save(report, "shared")
    with ProcessPoolExecutor(2) as pool:
        results = list(pool.map(_process_writer, [tmp_path] * 2, [run] * 2, [0, 1]))
    assert results == [[1] * 10, [1] * 10]
    kept = Workspace(tmp_path).tags(run)
    assert sorted(kept["tag"]) == ["p0"] * 10 + ["p1"] * 10 and set(kept["system"]) == {"A"}


def test_adding_and_removing_say_what_was_stored(tmp_path, report, monkeypatch):
    workspace = Workspace(tmp_path)
    run = workspace.save(report, "tagged", example())
    assert workspace.add_tags(run, [0, 1, 1], None, " check ") == 1  # segment 0 had it; 1 given twice: one row
    assert workspace.add_tags(run, [2, 3], ["B", "B"], "bad") == 1  # B's output of segment 2 had it
    assert workspace.remove_tags(run, [0, 3], None, "check") == 1  # segment 3 never had it
    assert workspace.tags(run).values.tolist() == [
        [1, "", "check"], [1, "A", "bad"], [2, "", "check"], [2, "B", "bad"], [3, "B", "bad"]]
    with pytest.raises(ValueError, match="a tag needs a name"):
        workspace.add_tags(run, [0], None, "  ")
    with pytest.raises(KeyError):
        workspace.add_tags("nope", [0], None, "x")
    monkeypatch.setattr(tags, "MAX_TAGS", 6)
    with pytest.raises(ValueError, match="at most 6 tags"):
        workspace.add_tags(run, [0, 1], None, "two more")
    assert len(workspace.tags(run)) == 5  # refused as a whole: nothing of it stored


def test_a_tag_slice_is_linear_in_the_tags_of_one_segment(report):
    """100,000 tags on one segment (the most a set keeps): each slice condition reads every tag once (before, one
    array per tag rank made it quadratic: 20,000 tags took 11 s, 100,000 took 673 s and 787 MB)."""
    n = tags.MAX_TAGS
    frame = pd.DataFrame({"seg": np.r_[np.full(n - 2, 1), 3, 3], "system": [""] * (n - 3) + ["A", "", "B"],
                          "tag": [f"t{i}" for i in range(n - 2)] + ["last", "other"]})
    assert segment_mask(report, 'tag == "t5"', frame).tolist() == [False, True, False, False]
    assert segment_mask(report, 'tag == "last"', frame).tolist() == [False, False, False, True]
    assert segment_mask(report, 'tag != "t5"', frame).tolist() == [True, False, True, True]
    assert segment_mask(report, 'tag == ""', frame).tolist() == [True, False, True, False]  # exactly the untagged
    assert segment_mask(report, 'tag[A] == "t99997"', frame).tolist() == [False, True, False, False]  # A's own tag
    assert segment_mask(report, 'tag[B] == "t99997"', frame).tolist() == [False, False, False, False]
    assert segment_mask(report, 'tag[B] in ("other", "t3")', frame).tolist() == [False, True, False, True]
    assert segment_mask(report, 'tag has "9999"', frame).tolist() == [False, True, False, False]
    assert segment_mask(report, 'tag ~ "^t1234$"', frame).tolist() == [False, True, False, False]
    assert segment_mask(report, 'tag[B] == tag[A]', frame).tolist() == [True] * 4  # shared tags; untagged: "" == ""
    assert segment_mask(report, 'tag[B] == src', frame).tolist() == [False] * 4

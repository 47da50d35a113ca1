"""Slices on real data (dev TED zh-en: 13 systems, references A and B, MQM scores and error spans, talk ids in
segments.tsv): fields and their values, masks, and reports recomputed on a slice from the statistics already
computed — equal to scoring the slice's segments from scratch (docs/slices.md)."""

from __future__ import annotations

import csv

import numpy as np
import pandas as pd
import pytest

from mtdiag.analysis import segment_groups, significance
from mtdiag.triage import ranking
from mtdiag.scoring.evaluate import evaluate
from mtdiag.core.errors import InputError
from mtdiag.core.evalset import evalset_from_lists
from mtdiag.io import load_folder
from mtdiag.io.labels import read_segment_labels
from mtdiag.slices import ExpressionError, fields, segment_mask, selection, slice_report, where
from mtdiag.slices.finder import frequency_band_expressions, human_band_expressions, length_band_expressions
from mtdiag.views.ngrams import ngram_tables
from tests.conftest import DEV

TED = DEV / "ted" / "zh-en"
A, B = "Facebook-AI", "Online-W"


@pytest.fixture(scope="module")
def report():
    return evaluate(load_folder(TED))


# the learned judge reads each system's mean over the whole set: a slice keeps the whole set's judgement of its
# outputs (mtdiag.slices.subset)
WHOLE_SET_JUDGED = {"predicted_mqm"}


def talk_ids() -> list[str]:
    """The ``doc`` column of segments.tsv, read without mtdiag."""
    with (TED / "segments.tsv").open(encoding="utf-8") as handle:
        return [row["doc"] for row in csv.DictReader(handle, delimiter="\t")]


def test_the_folder_loads_its_talk_ids_as_labels(report):
    assert report.evalset.label_columns == ["orig_seg_id", "doc", "doc_id"]
    assert report.evalset.segments["doc"].tolist() == talk_ids()


def test_the_catalogue_offers_every_field_with_a_description(report):
    listed = {f.written: f for f in fields(report)}
    for name in ("seg_id", "doc", "src_len", "ref_len", "rare_freq", "src", "ref", "chrf[SYSTEM]", "bleu[SYSTEM]",
                 "problem[SYSTEM]", "human[SYSTEM]", "repetition[SYSTEM]", "hyp[SYSTEM]", "errors[SYSTEM]"):
        assert name in listed and listed[name].description
    assert listed["repetition[SYSTEM]"].kind == "flag" and listed["doc"].kind == "text"
    assert listed["chrf[SYSTEM]"].kind == "number" and listed["ref"].key == "reference"


def test_seg_id_and_labels_select_exactly_those_segments(report):
    assert np.flatnonzero(segment_mask(report, "seg_id <= 500")).tolist() == list(range(500))
    talks = np.array(talk_ids())
    assert (segment_mask(report, 'doc == "talk.2"') == (talks == "talk.2")).all()
    assert (segment_mask(report, 'doc in ("talk.2", "talk.9")') == np.isin(talks, ["talk.2", "talk.9"])).all()
    assert (segment_mask(report, 'doc not in ("talk.2")') == (talks != "talk.2")).all()


def test_pair_fields_read_the_reports_values(report):
    chrf_a = report.segments.loc[A, "chrf"].to_numpy()
    chrf_b = report.segments.loc[B, "chrf"].to_numpy()
    assert (segment_mask(report, f"chrf[{A}] < chrf[{B}]") == (chrf_a < chrf_b)).all()
    assert (segment_mask(report, f"chrf[{A}] < 40 and bleu[{B}] >= 20")
            == ((chrf_a < 40) & (report.segments.loc[B, "bleu"].to_numpy() >= 20))).all()
    problem = ranking.problem_scores(report)["problem"].loc[A].to_numpy()
    assert (segment_mask(report, f"problem[{A}] > 0.8") == (problem > 0.8)).all()


def test_a_missing_number_satisfies_no_comparison_and_negations_are_exact(report):
    human = report.evalset.human
    rated = np.zeros(report.evalset.n_segments, bool)
    rated[human.loc[human["system"] == A, "seg"].to_numpy()] = True
    low = segment_mask(report, f"human[{A}] <= -5")
    high = segment_mask(report, f"human[{A}] > -5")
    assert not (low & high).any() and ((low | high) == rated).all()
    assert (segment_mask(report, f"human[{A}] != 0") == ~segment_mask(report, f"human[{A}] == 0")).all()
    assert (segment_mask(report, f"not human[{A}] <= -5") == ~low).all()


def test_ref_holds_when_any_reference_does(report):
    refs = report.evalset.refs
    in_a = refs["A"].str.contains("universe", case=False).to_numpy()
    in_b = refs["B"].str.contains("universe", case=False).to_numpy()
    assert (segment_mask(report, 'ref ~ "universe"') == (in_a | in_b)).all()
    assert (segment_mask(report, 'ref[B] ~ "universe"') == in_b).all()
    assert (segment_mask(report, 'ref !~ "universe"') == ~(in_a | in_b)).all()
    assert (in_a != in_b).any()  # the two references differ here, so "any" is tested


def test_flags_come_from_the_triage_checks(report):
    from mtdiag.triage import checks

    flags = checks.flag_frame(report)
    for flag in flags.columns:
        expected = flags[flag].loc[A].to_numpy(dtype=bool)
        assert (segment_mask(report, f"{flag}[{A}]") == expected).all()
        assert (segment_mask(report, f"{flag}[{A}] == false") == ~expected).all()


def test_errors_join_the_pairs_human_error_categories(report):
    spans = report.evalset.annotations
    rows = spans[(spans["system"] == A) & spans["category"].str.startswith("Accuracy/Omission")]
    expected = np.zeros(report.evalset.n_segments, bool)
    expected[rows["seg"].to_numpy()] = True
    assert expected.sum() > 5
    assert (segment_mask(report, f'errors[{A}] ~ "accuracy/omission"') == expected).all()


def test_has_reads_error_categories_as_a_person_says_them(report):
    """``errors[A] has "Accuracy"``: an error of that category or one under it, items compared whole (not a
    substring: ``curacy`` finds nothing), case ignored; ``not has`` is its exact negation."""
    spans = report.evalset.annotations
    rows = spans[spans["system"] == A]
    top = rows["category"].astype(str).str.split("/").str[0].str.strip().str.casefold()
    for category in ("Accuracy", "fluency", "Accuracy/Omission"):
        folded = category.casefold()
        hit = (top == folded) | rows["category"].astype(str).str.casefold().str.startswith(folded + "/") \
            | (rows["category"].astype(str).str.casefold() == folded)
        expected = np.zeros(report.evalset.n_segments, bool)
        expected[rows.loc[hit, "seg"].to_numpy()] = True
        assert expected.sum() > 5, category
        assert (segment_mask(report, f'errors[{A}] has "{category}"') == expected).all(), category
        assert (segment_mask(report, f'errors[{A}] not has "{category}"') == ~expected).all(), category
    assert not segment_mask(report, f'errors[{A}] has "curacy"').any()


def test_has_on_a_text_finds_the_characters_not_a_pattern(report):
    hyps = report.evalset.hyps[A].astype(str)
    expected = hyps.str.casefold().str.contains("black hole", regex=False).to_numpy()
    assert 0 < expected.sum() < len(hyps)
    assert (segment_mask(report, f'hyp[{A}] has "Black Hole"') == expected).all()
    dots = hyps.str.contains("...", regex=False).to_numpy()  # not the pattern "any three characters"
    assert (segment_mask(report, f'hyp[{A}] has "..."') == dots).all()
    with pytest.raises(ExpressionError, match=r"has looks into text; chrf\[Facebook-AI\] is a number"):
        segment_mask(report, f'chrf[{A}] has "x"')


def test_the_finders_slices_read_as_a_person_says_them(report):
    """Error categories as ``has``, MQM bands with whole-number edges: no regular expression, no ``-9.9999``."""
    from mtdiag.slices.finder import find_slices

    found = find_slices(report, A, B, min_size=30)
    expressions = " | ".join(found["expression"])
    assert 'has "Accuracy"' in expressions and "human[" in expressions
    for unreadable in ("(^|", "9999", "0001", " ~ "):
        assert unreadable not in expressions
    bands = [e for _, e in human_band_expressions(report, A)]
    assert bands == [f"human[{A}] == 0", f"human[{A}] > -5 and human[{A}] < 0",
                     f"human[{A}] > -10 and human[{A}] <= -5", f"human[{A}] > -25 and human[{A}] <= -10",
                     f"human[{A}] <= -25"]


def test_every_mqm_score_is_in_exactly_one_band():
    for score in (0.0, -0.05, -0.1, -4.99995, -5.0, -5.00001, -9.99995, -10.0, -24.99995, -25.0, -25.1, -300.0):
        assert sum(segment_groups.in_mqm_band(score, lo, hi) for lo, hi, _ in segment_groups.MQM_BANDS) == 1, score


def test_bucket_expressions_reproduce_the_buckets_exactly(report):
    for dimension, field, expressions in (("src_length", "src_len", length_band_expressions("src_len")),
                                          ("ref_length", "ref_len", length_band_expressions("ref_len")),
                                          ("ref_freq", "rare_freq", frequency_band_expressions())):
        labels = segment_groups.bucketing(report, dimension).labels[0]
        for band, expression in expressions:
            assert (segment_mask(report, expression) == (labels == band)).all(), (dimension, band)
    human = segment_groups.bucketing(report, "human")
    for band, expression in human_band_expressions(report, A):
        assert (segment_mask(report, expression) == (human.labels[human.systems.index(A)] == band)).all(), band


def test_quartile_human_bands_reproduce_the_buckets(report):
    rng = np.random.default_rng(7)
    human = report.evalset.human.assign(score=rng.normal(50, 20, len(report.evalset.human)).round(1))
    from dataclasses import replace

    other = evaluate(replace(report.evalset, human=human), report.options)
    banded = segment_groups.bucketing(other, "human")
    assert banded.order[0] == "lowest quarter"
    for band, expression in human_band_expressions(other, B):
        assert (segment_mask(other, expression) == (banded.labels[banded.systems.index(B)] == band)).all(), band


def test_field_errors_are_one_line_and_name_what_exists(report):
    cases = {
        "chfr[Online-W] < 3": ("unknown field 'chfr' at column 1; did you mean chrf[SYSTEM]? fields: seg_id, "),
        "a.b": "unknown field 'a.b' at column 1",
        "chrf < 3": "chrf needs a system: chrf[SYSTEM] at column 1; systems: Borderline",
        "chrf[Online-X] < 3": "unknown system 'Online-X' in chrf[Online-X]",
        "ref[C] ~ 'x'": "unknown reference 'C'",
        "seg_id[A] < 3": "seg_id takes no [ ]",
        "doc < 'talk.3'": "< compares numbers; text compares with == or !=",
        "doc == 3": "doc is text and cannot be compared with a number",
        f"chrf[{A}]": "is a number, not a condition",
        f"chrf[{A}] ~ 'x'": "~ matches a text field with a quoted pattern",
        f"hyp[{A}] ~ '('": "is not a valid regular expression",
        "doc in (1, 2)": "doc is text, and this value is a number",
        f"missed_term[{A}]": "the flag 'missed_term' is not computed for these inputs",
    }
    for text, words in cases.items():
        with pytest.raises(ExpressionError) as caught:
            segment_mask(report, text)
        assert str(caught.value).startswith("where: ") and words in str(caught.value), (text, str(caught.value))
        assert "\n" not in str(caught.value)


def test_fields_the_inputs_lack_say_what_they_need():
    bare = evaluate(evalset_from_lists({"ref": ["a b c"]}, {"s": ["a b"]}))
    for text, needs in (("human[s] < 0", "human scores"), ("errors[s] ~ 'x'", "human error annotations")):
        with pytest.raises(ExpressionError, match=f"needs {needs}"):
            segment_mask(bare, text)


def test_regular_expression_searches_share_one_time_budget(report, monkeypatch):
    monkeypatch.setattr(selection, "SEARCH_SECONDS", 0.0)
    with pytest.raises(ExpressionError, match="the searches take too long"):
        segment_mask(report, f"hyp[{A}] ~ 'x'")


def test_an_expression_that_keeps_nothing_is_a_clear_error(report):
    with pytest.raises(ExpressionError, match="^where: the expression keeps none of the 529 segments$"):
        where(report, "seg_id > 10000")


# ---------------------------------------------------------------------------------------------- the sliced report


def test_a_slice_equals_scoring_its_segments_from_scratch(report):
    mask = segment_mask(report, f'doc == "talk.2" or chrf[{A}] < 40')
    sliced = slice_report(report, mask)
    fresh = evaluate(report.evalset.segment_subset(mask), report.options)
    assert sliced.metrics == fresh.metrics and sliced.evalset.n_segments == mask.sum()
    own = [m for m in sliced.metrics if m not in WHOLE_SET_JUDGED]
    pd.testing.assert_frame_equal(sliced.corpus[own], fresh.corpus[own], check_exact=True)
    pd.testing.assert_frame_equal(sliced.segments[own], fresh.segments[own], check_exact=True)
    for (name, system), result in sliced.results.items():
        kept = report.results[(name, system)].stats[mask] if name in WHOLE_SET_JUDGED else fresh.results[
            (name, system)].stats
        np.testing.assert_array_equal(result.stats, kept)
        assert result.sig == fresh.results[(name, system)].sig
    assert WHOLE_SET_JUDGED <= set(sliced.metrics)


def test_significance_on_a_slice_is_the_slices_own(report):
    sliced = where(report, "seg_id <= 300")
    fresh = evaluate(report.evalset.segment_subset(np.arange(300)), report.options)
    ours = significance.significance(sliced, B, "bs", 200, metrics=["bleu", "chrf", "ter"])
    theirs = significance.significance(fresh, B, "bs", 200, metrics=["bleu", "chrf", "ter"])
    pd.testing.assert_frame_equal(ours, theirs, check_exact=True)
    assert not ours.equals(significance.significance(report, B, "bs", 200, metrics=["bleu", "chrf", "ter"]))


def test_a_slice_keeps_the_original_segment_ids_and_its_own_extras(report):
    sliced = where(report, 'doc == "talk.9"')
    expected = [i + 1 for i, talk in enumerate(talk_ids()) if talk == "talk.9"]
    assert sliced.evalset.seg_ids.tolist() == expected
    assert segment_mask(sliced, "seg_id > 0").all()
    twice = where(sliced, f"seg_id >= {expected[10]}")  # a slice of a slice still names the original segments
    assert twice.evalset.seg_ids.tolist() == expected[10:]
    human = report.evalset.human.set_index(["system", "seg"])["score"]
    kept = twice.evalset.human
    assert len(kept) and all(human[(s, twice.evalset.seg_ids[g] - 1)] == v
                             for s, g, v in zip(kept["system"], kept["seg"], kept["score"]))
    assert set(twice.evalset.annotations["seg"]) <= set(range(twice.evalset.n_segments))
    assert "orig_seg" not in twice.evalset.label_columns
    assert "label:orig_seg" not in segment_groups.dimensions(twice)


def test_analyses_work_on_a_slice_unchanged(report):
    sliced = where(report, 'doc == "talk.2"')
    k, systems = sliced.evalset.n_segments, sliced.evalset.systems
    queue = ranking.worst_first(sliced)
    assert len(queue) == k * len(systems) and queue["seg"].between(0, k - 1).all()  # positions in the slice
    table = segment_groups.bucket_scores(sliced, segment_groups.bucketing(sliced, "src_length"))
    assert table.groupby("system")["segments"].sum().eq(k).all()
    assert ngram_tables(sliced, orders=(1,)).systems == systems


def test_the_queue_of_a_sliced_list_names_its_segments_by_their_ids_in_the_whole_set():
    """``mtdiag.worst_first`` of ``mtdiag.score_slice``: each row's ``seg_id`` is its segment's line in the lists and
    ``hyp`` that segment's output (the queue looked its outputs up by those ids as if they were positions: a slice
    from the third line was a ValueError, "segment 1 is not in this data")."""
    import mtdiag

    refs = [["the cat sat on the mat", "a dog runs", "it rains today", "we eat bread", "good night"]]
    hyps = {"A": ["the cat sat on the mat", "a dog runs fast", "rain", "we eat", "good night"],
            "B": ["cat mat", "dog", "it rains today", "we eat bread", "night good"]}
    part = mtdiag.score_slice(hyps, refs=refs, where="seg_id >= 3", metrics=("chrf", "ter"))
    queue = mtdiag.worst_first(part, top=None)
    assert sorted(queue["seg_id"].unique()) == [3, 4, 5] and len(queue) == 6
    assert all(hyp == hyps[system][seg_id - 1] for system, seg_id, hyp in zip(queue["system"], queue["seg_id"],
                                                                                queue["hyp"]))


def test_slicing_reads_no_text_again(report, monkeypatch):
    import mtdiag.metrics.base as base

    monkeypatch.setattr(base.Metric, "statistics", lambda *a, **k: pytest.fail("scored again"))
    sliced = where(report, "seg_id <= 100")
    assert sliced.corpus.notna().all().all()


def test_segment_subset_checks_its_positions(report):
    with pytest.raises(ValueError, match="ascending"):
        report.evalset.segment_subset([3, 1])
    with pytest.raises(ValueError, match="a mask of 2 values"):
        report.evalset.segment_subset(np.array([True, False]))
    with pytest.raises(ValueError, match="keeps no segment"):
        slice_report(report, np.zeros(report.evalset.n_segments, bool))


# ---------------------------------------------------------------------------------------------- segments.tsv


@pytest.mark.parametrize("text, message", [
    ("seg_id\tdoc\n1\ta\n1\tb\n", "labels.tsv: line 3: a second row for seg_id 1 (the first is on line 2)"),
    ("seg_id\tdoc\n4\ta\n", "labels.tsv: line 2: seg_id 4 is out of range"),
    ("doc\n" "a\n", "labels.tsv: line 1: missing column seg_id"),
    ("seg_id\tsrc\n1\ta\n", 'labels.tsv: line 1: column "src" cannot be a label'),
    ("seg_id\n1\n", "labels.tsv: line 1: has no label column besides seg_id"),
])
def test_label_files_are_checked_line_by_line(text, message):
    with pytest.raises(InputError) as caught:
        read_segment_labels(text.encode(), "labels.tsv", n_segments=3)
    assert str(caught.value).startswith(message)


def test_label_files_fill_unlisted_segments_with_an_empty_label():
    labels = read_segment_labels(b"seg_id\tdoc\tdomain\n3\tx\tnews\n1\ty\tbio\n", "labels.tsv", n_segments=4)
    assert labels["doc"].tolist() == ["y", "", "x", ""] and labels["domain"].tolist() == ["bio", "", "news", ""]



def test_imported_metrics_and_system_names_with_spaces_are_fields():
    from mtdiag.io import with_metric_scores

    evalset = evalset_from_lists({"ref": ["a b c d", "e f g", "h i j k"]},
                                 {"Online B": ["a b c d", "e x g", "y"], "sys-2.1": ["a b c", "e f g", "h i j k"]})
    scores = b"system\tseg_id\tcomet\nOnline B\t1\t0.9\nOnline B\t2\t0.4\nsys-2.1\t1\t0.7\nsys-2.1\t3\t0.8\n"
    report = evaluate(with_metric_scores(evalset, scores, "comet.tsv"))
    assert "comet[SYSTEM]" in [f.written for f in fields(report)]
    assert segment_mask(report, 'comet["Online B"] > 0.5').tolist() == [True, False, False]
    assert segment_mask(report, "comet[sys-2.1] >= 0.7").tolist() == [True, False, True]  # seg 2 unscored: missing
    assert segment_mask(report, 'chrf["Online B"] < chrf[sys-2.1]').tolist() == [False, True, True]
    sliced = where(report, "comet[sys-2.1] >= 0.7")
    assert sliced.corpus.loc["sys-2.1", "comet"] == pytest.approx(0.75)

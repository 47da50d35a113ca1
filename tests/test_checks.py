"""The triage checks (mtdiag.triage.checks) on hand-made cases: each fires on the error it names and stays quiet on the
near miss next to it (docs/triage.md)."""

from __future__ import annotations

import numpy as np
import pytest

from mtdiag.triage import checks
from mtdiag.scoring.evaluate import Options, evaluate
from mtdiag.triage.checks import number_mismatch, tokens, untranslated, word_order
from mtdiag.core.evalset import evalset_from_lists
from mtdiag.views.detail import segment_detail

FILLER_SRC = ["The weather is fine today .", "She reads a book .", "We go home now .", "He plays the piano ."]
FILLER_REF = ["Das Wetter ist heute schön .", "Sie liest ein Buch .", "Wir gehen jetzt nach Hause .",
              "Er spielt Klavier ."]


def _report(src, ref, hyps, metrics=None, refs=None):
    """A set of the given segments plus four clean filler segments (so set-relative thresholds have a set)."""
    src, ref = [*src, *FILLER_SRC], [*ref, *FILLER_REF]
    hyps = {name: [*outputs, *FILLER_REF] for name, outputs in hyps.items()}
    all_refs = {"A": ref} | {name: [*r, *FILLER_REF] for name, r in (refs or {}).items()}
    options = Options(metrics=tuple(metrics)) if metrics else Options()
    return evaluate(evalset_from_lists(all_refs, hyps, src=src), options)


def _flag(report, system, seg, flag):
    return bool(checks.flag_frame(report).at[(system, seg), flag])


# ------------------------------------------------------------------------------------------------ numbers


def test_number_values_read_both_decimal_conventions():
    assert number_mismatch.number_values("3,5") == {"3.5"} == number_mismatch.number_values("3.5")
    assert number_mismatch.number_values("35") == {"35"}
    assert number_mismatch.number_values("1,000") == {"1000", "1"} and "1000" in number_mismatch.number_values("1.000")
    assert number_mismatch.number_values("1.234.567") == {"1234567"}
    assert number_mismatch.number_values("37,70") == {"37.7"}


def test_changed_number_3_5_vs_3_5_vs_35():
    report = _report(["It costs 3.5 euros ."], ["Es kostet 3,5 Euro ."],
                     {"comma": ["Es kostet 3,5 Euro ."], "point": ["Es kostet 3.5 Euro ."],
                      "wrong": ["Es kostet 35 Euro ."]})
    assert not _flag(report, "comma", 0, "number_mismatch")
    assert not _flag(report, "point", 0, "number_mismatch")
    assert _flag(report, "wrong", 0, "number_mismatch")
    findings = number_mismatch.number_findings(report)["wrong"]
    assert set(zip(findings["kind"], findings["number"])) == {("missing", "3.5"), ("changed", "35")}
    detail = segment_detail(report, "wrong", 0)
    assert "number" in detail.legend
    marked = [detail.hyp.matched[s.start] for s in detail.hyp_spans if s.kind == "number"]
    assert marked == ["35"]


def test_dropped_date():
    report = _report(["The law passed on 12 May 2020 ."], ["Das Gesetz wurde am 12. Mai 2020 verabschiedet ."],
                     {"kept": ["Das Gesetz wurde am 12. Mai 2020 verabschiedet ."],
                      "dropped": ["Das Gesetz wurde im Mai verabschiedet ."]})
    assert not _flag(report, "kept", 0, "number_mismatch")
    assert _flag(report, "dropped", 0, "number_mismatch")
    missing = number_mismatch.number_findings(report)["dropped"]
    assert set(missing["number"]) == {"12", "2020"} and set(missing["kind"]) == {"missing"}


def test_a_number_the_translators_converted_is_not_required():
    # 3 p.m. -> 15 Uhr: the reference does not keep the 3, so the output need not either
    report = _report(["It started at 3 p.m. ."], ["Es begann um 15 Uhr ."],
                     {"sys": ["Es begann um 15 Uhr ."]})
    assert not _flag(report, "sys", 0, "number_mismatch")


# ------------------------------------------------------------------------------------------------ untranslated


def test_copied_source_span_is_untranslated():
    report = _report(["The quick brown fox jumps over the fence ."], ["Der schnelle braune Fuchs springt über den Zaun ."],
                     {"copied": ["Der quick brown fox springt über den Zaun ."],
                      "name": ["Der schnelle braune Fuchs springt über den fence ."]})
    assert _flag(report, "copied", 0, "untranslated")
    assert not _flag(report, "name", 0, "untranslated")  # one copied word is not a run of three
    detail = segment_detail(report, "copied", 0)
    copied = [detail.hyp.matched[i] for s in detail.hyp_spans if s.kind == "copied" for i in range(s.start, s.end)]
    assert copied == ["quick", "brown", "fox"]


def test_words_the_reference_also_keeps_are_not_copied():
    report = _report(["Joe Biden met Angela Merkel in Berlin ."], ["Joe Biden traf Angela Merkel in Berlin ."],
                     {"sys": ["Joe Biden traf Angela Merkel in Berlin ."]})
    assert not _flag(report, "sys", 0, "untranslated")


def test_output_in_the_source_script_is_untranslated():
    src = ["我喜欢猫。", "今天天气很好。", "他在读书。", "我们回家。"]
    ref = ["I like cats .", "The weather is nice today .", "He is reading .", "We go home ."]
    hyps = {"wrong_script": ["I like 猫猫 .", *ref[1:]], "ok": list(ref), "one_char": ["I like 猫 cats .", *ref[1:]]}
    report = evaluate(evalset_from_lists({"A": ref}, hyps, src=src))
    assert untranslated.foreign_scripts(report) == ["Han"]
    assert _flag(report, "wrong_script", 0, "untranslated")
    assert not _flag(report, "ok", 0, "untranslated")
    assert not _flag(report, "one_char", 0, "untranslated")  # below two characters
    findings = checks.check_evidence(report, "wrong_script", 0).tables["checks"].frame.set_index("check")
    assert "2 character(s) in the source's script (Han)" in findings.at["untranslated", "finding"]


def test_same_script_pairs_have_no_foreign_script():
    report = _report(["A house ."], ["Ein Haus ."], {"sys": ["Ein Haus ."]})
    assert untranslated.foreign_scripts(report) == []


# ------------------------------------------------------------------------------------------------ repetition


def test_loop_positions_words_three_times_phrases_twice():
    words = np.array([True, True, True, True, False])  # id 4 is punctuation
    ids = np.array([0, 1, 1, 1, 2, 0, 2, 0, 2, 3])  # "a b b b c a c a c d": b x3, (c a) / (a c) x2
    marked = tokens.loop_positions(ids, np.array([0, len(ids)]), words)
    assert marked.tolist() == [False, True, True, True, True, True, True, True, True, False]
    doubled = np.array([0, 1, 1, 2])  # "a b b c": a doubled word is grammatical (German "die die")
    assert not tokens.loop_positions(doubled, np.array([0, 4]), words).any()
    punct = np.array([4, 4, 4])  # "... ... ..." is not a loop of words
    assert not tokens.loop_positions(punct, np.array([0, 3]), words).any()
    across = np.array([0, 0, 0, 0])  # two segments "a a" | "a a": runs never cross the boundary
    assert not tokens.loop_positions(across, np.array([0, 2, 4]), words).any()


def test_repetition_loop():
    report = _report(["The cat sat on the mat ."], ["Die Katze saß auf der Matte ."],
                     {"loop": ["Die Katze saß auf der Matte auf der Matte auf der Matte ."],
                      "clean": ["Die Katze saß auf der Matte ."]})
    assert _flag(report, "loop", 0, "repetition")
    assert not _flag(report, "clean", 0, "repetition")
    detail = segment_detail(report, "loop", 0)
    assert "loop" in detail.legend


def test_a_loop_the_reference_also_has_is_not_flagged():
    report = _report(["Ha ha ha ."], ["Ha ha ha ."], {"sys": ["Ha ha ha ."]})
    assert not _flag(report, "sys", 0, "repetition")


# ------------------------------------------------------------------------------------------------ word order


WATFORD_SRC = "Watford relegated from Premier League as Aubameyang fires Arsenal win"
WATFORD_REF = "Aubameyang schießt Arsenal zum Sieg und lässt Watford aus der Premier League absteigen"
CUMMINGS_SRC = "Dominic Cummings is held hostage by the SAS ... on base tour"
CUMMINGS_REF = "Dominic Cummings wird von der SAS als Geisel genommen ... auf einer Tour durch den Stützpunkt"


def _word_order(report, system, seg):
    return bool(checks.flag(report, "word_order").at[(system, seg)])


def test_word_order_fires_on_scrambled_words_not_on_a_clause_swap_or_an_omission():
    # from WMT21 en-de with its three references: the clauses swapped (Facebook-AI, segment 130), the last phrase
    # dropped (eTranslation, segment 28); and the same sentence scrambled in two places
    refs = {"C": ["Aubameyang kickt Arsenal zum Sieg, Watford verabschiedet sich aus der Premier League",
                  "Dominic Cummings Geisel der SAS ... bei einer Führung durch den Stützpunkt",
                  "Aubameyang kickt Arsenal zum Sieg, Watford verabschiedet sich aus der Premier League"],
            "D": ["Aubameyang sichert Arsenal den Sieg und schmeißt Watford aus der Premier League",
                  "Dominic Cummings wird vom SAS als Geisel gehalten - beim Besuch eines Stützpunktes",
                  "Aubameyang sichert Arsenal den Sieg und schmeißt Watford aus der Premier League"]}
    report = _report([WATFORD_SRC, CUMMINGS_SRC, WATFORD_SRC], [WATFORD_REF, CUMMINGS_REF, WATFORD_REF],
                     {"sys": ["Watford steigt aus der Premier League ab , Aubameyang schießt Arsenal zum Sieg",
                              "Dominic Cummings wird von der SAS als Geisel genommen ...",
                              "Arsenal Aubameyang zum Sieg schießt , Premier League Watford aus der absteigen"]},
                     refs=refs)
    segs = report.segments
    for seg in (0, 1, 2):  # NEVA above WAFT in all three: the disagreement alone does not tell them apart
        assert segs.at[("sys", seg), "neva"] > segs.at[("sys", seg), "waft"]
    assert word_order.reordering(report)["sys"][0] == 1  # one block moved: a restructuring raters accept
    assert not _word_order(report, "sys", 0)
    assert not _word_order(report, "sys", 1)  # an omission keeps the shared words in order
    assert word_order.reordering(report)["sys"][2] >= word_order.MIN_DESCENTS
    assert _word_order(report, "sys", 2)
    evidence = checks.check_evidence(report, "sys", 2, {"word_order": {}})
    shown = segment_detail(report, "sys", 2).hyp.matched
    moved = [shown[s.start] for s in evidence.hyp_spans if s.kind == "moved"]
    assert moved and set(moved) <= {"arsenal", "aubameyang", "zum", "sieg", "schießt", "premier", "league", "watford",
                                     "aus", "der", "absteigen"}


def test_reordering_is_measured_against_the_closest_ordered_reference():
    hyps = {"sys": ["Watford steigt aus der Premier League ab , Aubameyang schießt Arsenal zum Sieg"]}
    same_order = "Watford muss aus der Premier League absteigen , Aubameyang schießt Arsenal zum Sieg"
    one = _report([WATFORD_SRC], [WATFORD_REF], hyps)
    two = _report([WATFORD_SRC], [WATFORD_REF], hyps, refs={"B": [same_order]})
    assert word_order.reordering(one)["sys"][0] > 0
    assert word_order.reordering(two)["sys"][0] == 0  # the second reference has this order: a translator's
    assert not _word_order(two, "sys", 0)


# Four phrase swaps (two phrases exchanged, or a verb sent to the end), each with a close reference (A) and a
# paraphrase (B) that shares a few of the words, in the output's order
SWAPS = [("The new library will open in the old town next spring .",
          "Next spring will open in the old town the new library .",
          "Next year in spring , the old part of the city gets a new library ."),
         ("We heard a wonderful concert in the park yesterday .",
          "We yesterday in the park a wonderful concert heard .",
          "Yesterday we listened to a great concert outdoors ."),
         ("The committee has approved the budget for the coming year after a long debate .",
          "After a long debate has the committee the budget for the coming year approved .",
          "Following lengthy discussion , next year's budget was passed by the committee ."),
         ("Researchers found that the river is much cleaner now than ten years ago .",
          "Researchers found that now the river much cleaner is than ten years ago .",
          "Scientists discovered the river has become far cleaner over the past decade .")]


def test_phrase_swaps_are_found_with_a_paraphrased_second_reference():
    close, swapped, paraphrase = (list(column) for column in zip(*SWAPS))
    one = _report(close, close, {"sys": swapped})
    two = _report(close, close, {"sys": swapped}, refs={"B": paraphrase})
    counts = word_order.unsupported_descents(two)["sys"]
    assert counts[0, :4].tolist() == [2, 3, 3, 2]  # against the close reference, nothing supports the swaps
    assert (counts[1, :4] < word_order.MIN_DESCENTS).all()  # the paraphrase alone would have vouched for all four
    for report in (one, two):
        assert [_word_order(report, "sys", seg) for seg in range(4)] == [True] * 4
    assert [report.segments.at[("sys", 3), "neva"] < report.segments.at[("sys", 3), "waft"] for report in (one, two)] \
        == [True, True]  # moved single words: NEVA falls below WAFT, the order is still wrong
    marked = [segment_detail(two, "sys", 1).hyp.matched[s.start]
              for s in checks.check_evidence(two, "sys", 1, {"word_order": {}}).hyp_spans if s.kind == "moved"]
    assert set(marked) <= {"yesterday", "in", "the", "park", "a", "wonderful", "concert", "heard"} and marked


def test_a_swap_that_the_second_reference_has_is_not_flagged():
    close, swapped, _ = (list(column) for column in zip(*SWAPS))
    report = _report(close, close, {"sys": swapped}, refs={"B": swapped})  # a translator wrote this order
    assert word_order.reordering(report)["sys"][:4].tolist() == [0, 0, 0, 0]
    assert not checks.flag(report, "word_order").any()


def test_word_order_is_computed_on_request_only():
    report = _report(["Good ."], ["Gut ."], {"sys": ["Gut ."]})
    assert "word_order" not in checks.flag_frame(report).columns
    frame = checks.flag_frame(report, {"word_order": {}})
    assert not frame["word_order"].any()


# ------------------------------------------------------------------------------------------------ set-relative


def test_length_outlier_is_relative_to_the_set_long_only_and_needs_a_long_enough_reference():
    src = [f"this is sentence number {i} of the set , and it is here ." for i in range(30)] + ["Thank you ."]
    ref = [f"das ist Satz Nummer {i} der Menge , und er ist hier ." for i in range(30)] + ["Danke ."]
    hyp = list(ref)
    hyp[3] = ("das ist Satz Nummer 3 der Menge , und er ist hier und hier und dort und überall und noch viel mehr "
              "und noch mehr und immer mehr .")
    hyp[4] = "Satz ."  # short: under-translation's business, not a length outlier
    hyp[5] = "das ist Satz Nummer 5 der Menge , und er ist hier , ja ."  # a little longer: within the set's range
    hyp[30] = "Vielen herzlichen Dank ."  # twice the reference's length, but a ratio of two short lengths is noise
    report = evaluate(evalset_from_lists({"A": ref}, {"sys": hyp}, src=src))
    flags = checks.flag_frame(report)["length_outlier"]
    assert flags[("sys", 3)] and not flags[("sys", 4)] and not flags[("sys", 5)] and not flags[("sys", 30)]
    assert report.segments.at[("sys", 30), "length_ratio"] >= 2
    assert int(flags.sum()) == 1


def test_score_flags_mark_at_most_the_worst_tenth():
    src = [f"line {i} ." for i in range(40)]
    ref = [f"Zeile {i} mit Text ." for i in range(40)]
    hyp = [f"Zeile {i} Text ." if i % 2 else f"Zeile {i} mit Text ." for i in range(40)]
    report = evaluate(evalset_from_lists({"A": ref}, {"sys": hyp}, src=src))
    frame = checks.flag_frame(report)
    assert frame["under_translation"].mean() <= 0.5
    assert not frame.loc[[("sys", i) for i in range(0, 40, 2)], "under_translation"].any()


def test_flags_follow_the_inputs():
    no_source = evaluate(evalset_from_lists({"A": ["Ein Haus ."]}, {"sys": ["Ein Haus ."]}))
    assert "untranslated" not in checks.flag_frame(no_source).columns
    assert "number_mismatch" not in checks.flag_frame(no_source).columns
    only_bleu = evaluate(evalset_from_lists({"A": ["Ein Haus ."]}, {"sys": ["Ein Haus ."]}),
                         Options(metrics=("bleu",)))
    assert list(checks.flag_frame(only_bleu).columns) == ["repetition", "suspect_reference"]


def test_flag_names_are_comma_joined_in_flag_order():
    report = _report(["It costs 3.5 euros ."], ["Es kostet 3,5 Euro ."],
                     {"sys": ["Es kostet 35 Euro Euro Euro ."]})
    names = checks.flag_names(checks.flag_frame(report))
    fired = names[("sys", 0)].split(",")
    assert "repetition" in fired and "number_mismatch" in fired
    assert fired == [f for f in checks.REGISTRY if f in fired]
    assert names[("sys", 1)] == ""
    assert checks.check_evidence(report, "sys", 1) is None


def test_empty_outputs_and_references_never_break_the_checks():
    # empty segments inside and at the end of a side (np.add.reduceat would index past the end there)
    report = evaluate(evalset_from_lists({"A": ["Ein Haus .", "", "Der Hund bellt bellt bellt .", ""]},
                                         {"sys": ["Ein Haus .", "", "", ""], "loop": ["ein Haus ein Haus", "", "", ""]},
                                         src=["A house .", "", "The dog barks .", ""]))
    frame = checks.flag_frame(report)
    assert not frame.loc["sys", "repetition"].any()
    assert frame.loc["loop", "repetition"].tolist() == [True, False, False, False]  # (segment 3's reference loops)


def test_hostile_numbers_never_raise():
    huge = "9" * 10_000
    assert number_mismatch.number_values(huge) == {huge}
    assert number_mismatch.number_values("007") == {"7"} and number_mismatch.number_values("0,50") == {"0.5"}
    report = _report([f"It is {huge} ."], [f"Es ist {huge} ."], {"sys": ["Es ist 9 ."]})
    assert _flag(report, "sys", 0, "number_mismatch")

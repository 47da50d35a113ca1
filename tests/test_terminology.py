"""Terminology metrics (Alam et al. 2021 §2.2; METRICS.md §3): exact match, window overlap, TERm, term inputs."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from mtdiag.scoring.evaluate import Options, evaluate
from mtdiag.core.errors import InputError
from mtdiag.core.evalset import evalset_from_lists
from mtdiag.io import load_files, load_folder
from mtdiag.io.term_matching import (TERM_COLUMNS, TermFile, build_terms, find_matches, find_source_term, strip_term_tags, terms_from_tags)
from tests.conftest import DEV, SAMPLE

SPANISH_REF = ("De manera comparable , un estudio demográfico de 2012 demostró que los pacientes con MERS-CoV también "
               "tenían fiebre (98%) , tos seca (47%) y disnea (55%) como principales síntomas .")
OUTPUT_1 = ("Comparablemente , un estudio demográfico realizado en 2012 mostró que los pacientes con MERS-CoV también "
            "tenían fiebre (98%) , tos seca (47%) y disnea (55%) como sus principales síntomas .")
OUTPUT_2 = ("Comparablemente , un estudio demográfico realizado en 2012 mostró que los pacientes con MERS-CoV también "
            "tenían fiebre (98%) , tos (47%) y disnea (55%) como sus principales síntomas .")
TABLE2_TERMS = [("fever", "fiebre", ""), ("cough", "tos", ""), ("dry cough", "tos seca", ""),
                ("symptom", "síntoma", "síntomas")]  # the reference surface form counts as an alternative


def terms_frame(rows: list[tuple]) -> pd.DataFrame:
    """rows: (seg, src_term, tgt_terms, ref_surface)."""
    return pd.DataFrame([(seg, "", src, tgt, surface) for seg, src, tgt, surface in rows], columns=TERM_COLUMNS)


def evaluate_terms(refs: list[str], hyps: dict[str, list[str]], rows: list[tuple], lang: str | None = "es", **extra):
    evalset = evalset_from_lists({"ref": refs}, hyps, terms=terms_frame(rows), lang_pair=f"en-{lang}" if lang else None)
    return evaluate(evalset, Options(metrics=("term_exact", "term_window2", "term_window3", "term_ter", "ter"), **extra))


def test_exact_match_reproduces_paper_table2():
    """Table 2: MT Output 1 has every term -> 100; Output 2 has "tos" but not "tos seca" -> 3/4 = 75."""
    rows = [(0, src, tgt, surface) for src, tgt, surface in TABLE2_TERMS]
    report = evaluate_terms([SPANISH_REF], {"out1": [OUTPUT_1], "out2": [OUTPUT_2]}, rows)
    assert report.corpus.loc["out1", "term_exact"] == pytest.approx(100.0)
    assert report.corpus.loc["out2", "term_exact"] == pytest.approx(75.0)
    wrong = report.evidence("term_exact", "out2").query("not correct")
    assert wrong["src_term"].tolist() == ["dry cough"]


def test_cheating_raises_exact_match_but_lowers_window_overlap():
    """Appending the missing terms at the end (paper Table 3's "cheating" systems) is caught by window overlap."""
    ref = "patients reported fever , dry cough and fatigue during the first week"
    honest = "patients described temperature , cough and tiredness during the first week"
    cheat = honest + " fever dry cough"
    rows = [(0, "fever", "fever", ""), (0, "dry cough", "dry cough", "")]
    report = evaluate_terms([ref], {"honest": [honest], "cheat": [cheat]}, rows, lang="en")
    assert report.corpus.loc["honest", "term_exact"] == 0.0
    assert report.corpus.loc["cheat", "term_exact"] == 100.0
    assert np.isnan(report.corpus.loc["honest", "term_window2"])  # nothing matched, nothing to place
    assert report.corpus.loc["cheat", "term_window2"] <= 50.0  # the appended terms sit in the wrong context
    placed = evaluate_terms([ref], {"good": [ref]}, rows, lang="en")
    assert placed.corpus.loc["good", "term_window2"] == 100.0 and placed.corpus.loc["good", "term_window3"] == 100.0


def test_a_term_twice_in_the_source_needs_two_hypothesis_matches():
    ref = "wash your hands , then dry your hands"
    rows = [(0, "hands", "hands", ""), (0, "hands", "hands", "")]
    report = evaluate_terms([ref], {"once": ["wash your hands then dry them"], "twice": [ref]}, rows, lang="en")
    assert report.corpus.loc["once", "term_exact"] == 50.0
    assert report.corpus.loc["twice", "term_exact"] == 100.0
    occurrences = report.evidence("term_exact", "twice")
    assert occurrences["hyp_span"].tolist() == [(2, 3), (7, 8)]  # k-th occurrence paired with the k-th match
    assert occurrences["ref_span"].tolist() == [(2, 3), (7, 8)]


def test_a_term_listed_again_in_another_case_is_a_second_entry_found_by_the_same_match():
    """A WMT25 term list gives ``Production Order`` and ``production order`` -> ``Produktionsauftrag`` for one
    segment; the output has the target once. The task's scoring script counts each listed entry and finds each
    where its target occurs: segment 1 is 2 found of 2 (not 1 of 1, and not 1 of 2), so with a missed term in
    segment 2 the corpus is 2 of 3. The same spelling listed twice is two occurrences of one term, as TICO-19's
    lists give them: it needs two matches."""
    src = ("Open the Production Order before you close the order list .\n"
           "The Production Order and the Work Order are printed .")
    ref = ("Öffnen Sie den Produktionsauftrag , bevor Sie die Auftragsliste schließen .\n"
           "Der Produktionsauftrag und der Arbeitsauftrag werden gedruckt .")
    hyp = ("Öffnen Sie den Produktionsauftrag , bevor Sie die Liste schließen .\n"
           "Die Bestellung und der Auftrag werden gedruckt .")
    terms = ("seg_id\tsrc_term\ttgt_term\n1\tProduction Order\tProduktionsauftrag\n"
             "1\tproduction order\tProduktionsauftrag\n2\tWork Order\tArbeitsauftrag\n").encode()

    def scored(table: bytes):
        evalset = load_files(src=("src.txt", src.encode()), refs={"ref": ("ref.txt", ref.encode())},
                             hyps={"mt": ("mt.txt", hyp.encode())}, terms=("terms.tsv", table), lang_pair="en-de")
        return evalset, evaluate(evalset, Options(metrics=("term_exact",)))

    evalset, report = scored(terms)
    assert len(evalset.terms) == 3 and not any("another case" in w for w in evalset.warnings)
    assert report.segments.loc["mt", "term_exact"].tolist() == [100.0, 0.0]
    assert report.corpus.loc["mt", "term_exact"] == pytest.approx(200 / 3)
    occurrences = report.evidence("term_exact", "mt")
    assert occurrences["correct"].tolist() == [True, True, False]
    assert occurrences["hyp_span"].tolist()[:2] == [(3, 4), (3, 4)]  # both entries found by the one match
    twice = terms + "1\tproduction order\tProduktionsauftrag\n".encode()  # one spelling twice: two occurrences
    evalset, report = scored(twice)
    assert len(evalset.terms) == 4
    assert report.evidence("term_exact", "mt")["correct"].tolist() == [True, True, False, False]
    assert report.corpus.loc["mt", "term_exact"] == 50.0


def test_multi_word_terms_and_regex_special_characters():
    ref = "le syndrome respiratoire aigu sévère ( SRAS ) et le langage C++ sont cités"
    rows = [(0, "severe acute respiratory syndrome", "syndrome respiratoire aigu sévère", ""),
            (0, "(SARS)", "( SRAS )", ""), (0, "C++", "C++", "")]
    good = "le syndrome respiratoire aigu sévère ( SRAS ) et le langage C++ sont mentionnés"
    bad = "le syndrome respiratoire aigu ( SARS ) et le langage C sont mentionnés"
    report = evaluate_terms([ref], {"good": [good], "bad": [bad]}, rows, lang="fr")
    assert report.corpus.loc["good", "term_exact"] == 100.0
    assert report.corpus.loc["bad", "term_exact"] == 0.0


def test_segment_without_terms_is_null_and_term_ter_equals_ter_there():
    refs = ["the fever is high", "nothing special here"]
    hyps = {"sys": ["a high fever", "nothing here at all"]}
    report = evaluate_terms(refs, hyps, [(0, "fever", "fever", "")], lang="en")
    segments = report.segments.loc["sys"]
    assert segments.loc[0, "term_exact"] == 100.0 and np.isnan(segments.loc[1, "term_exact"])
    assert np.isnan(segments.loc[1, "term_window2"])
    assert segments.loc[1, "term_ter"] == pytest.approx(100.0 - segments.loc[1, "ter"])


def test_term_ter_costs_two_for_a_missed_term_word():
    ref = "take the vaccine today"
    report = evaluate_terms([ref], {"miss": ["take the medicine today"], "other": ["take a vaccine today"]},
                            [(0, "vaccine", "vaccine", "")], lang=None)
    ter_edits = {s: report.result("ter", s).stats[0, 0] for s in ("miss", "other")}
    term_edits = {s: report.result("term_ter", s).stats[0, 0] for s in ("miss", "other")}
    assert ter_edits == {"miss": 1.0, "other": 1.0}
    assert term_edits == {"miss": 2.0, "other": 1.0}  # a substituted term word costs λ = 2
    assert report.corpus.loc["miss", "term_ter"] == pytest.approx(100 * (1 - 2 / 4))


def test_term_ter_equals_ter_on_segments_without_terms_on_tico19():
    data = load_folder(SAMPLE / "tico19.en-fr")
    report = evaluate(data, Options(metrics=("ter", "term_ter")))
    segments = report.segments.loc["Fairseq"]
    without = ~segments.index.isin(data.terms["seg"].unique())
    assert without.sum() > 0
    np.testing.assert_allclose(segments.loc[without, "term_ter"], 100 - segments.loc[without, "ter"], atol=1e-9)
    with_terms = report.result("term_ter", "Fairseq").stats[:, 0] >= report.result("ter", "Fairseq").stats[:, 0]
    assert with_terms.all()  # costs only add


def test_window_skips_punctuation_and_stop_words_and_unknown_language_keeps_stop_words():
    ref = "et le patient a de la fièvre , une toux sèche et des maux de tête"
    rows = [(0, "fever", "fièvre", "")]
    report = evaluate_terms([ref], {"sys": [ref]}, rows, lang="fr")
    occ = report.evidence("term_window2", "sys").iloc[0]
    tokens = report.context.tokens.tokens("ref", 0)
    assert [tokens[i] for i in occ["ref_window2"]] == ["patient", "a", "toux", "sèche"] or \
        all(t not in {",", "de", "la", "une"} for t in (tokens[i] for i in occ["ref_window2"]))
    unknown = evaluate_terms([ref], {"sys": [ref]}, rows, lang=None).evidence("term_window2", "sys").iloc[0]
    assert [tokens[i] for i in unknown["ref_window2"]] == ["de", "la", "une", "toux"]


def test_tico19_sample_scores():
    report = evaluate(load_folder(SAMPLE / "tico19.en-fr"), Options(metrics=("term_exact", "term_window2")))
    occurrences = report.evidence("term_exact", "Fairseq")
    assert len(occurrences) == 159
    assert report.corpus.loc["Fairseq", "term_exact"] == pytest.approx(100 * occurrences["correct"].mean())


def test_find_matches_is_leftmost_longest_non_overlapping():
    assert find_matches("a b a b c".split(), [["a"], ["a", "b"]]) == [(0, 2), (2, 4)]
    assert find_matches("tos seca y tos".split(), [["tos"]]) == [(0, 1), (3, 4)]
    assert find_matches([], [["x"]]) == []


def test_inline_tags_are_stripped_and_paired():
    line = 'et votre <term id="330" type="t" src="runny nose" tgt="nez coule-t-il|nez qui coule"> nez coule-t-il </term> ?'
    clean, tags = strip_term_tags(line, "ref.annotated.txt", 2)
    assert clean == "et votre nez coule-t-il ?"
    assert [(t.term_id, t.src, t.tgt, t.surface) for t in tags] == [("330", "runny nose", "nez coule-t-il|nez qui coule", "nez coule-t-il")]


def test_sample_annotated_lines_strip_to_the_plain_files():
    folder = SAMPLE / "tico19.en-fr"
    for annotated, plain in (("src.annotated.txt", "src.txt"), ("ref.annotated.txt", "ref.A.txt")):
        tagged = (folder / annotated).read_text(encoding="utf-8").split("\n")[:-1]
        stripped = [strip_term_tags(line, annotated, i)[0] for i, line in enumerate(tagged, 1)]
        assert stripped == (folder / plain).read_text(encoding="utf-8").split("\n")[:-1]


@pytest.mark.parametrize("line,message", [
    ('a <term tgt="y">x</term>', 'src.txt: line 1: a <term> tag has no src attribute: <term tgt="y">x</term>'),
    ('<term src="a" tgt="b"><term src="c" tgt="d">c</term></term>', "src.txt: line 1: nested <term> tags are not supported"),
])
def test_malformed_tags_are_clear_errors(line, message):
    with pytest.raises(InputError) as error:
        load_files(src=("src.txt", (line + "\n").encode()), refs={"A": ("ref.txt", b"x\n")}, hyps={"s": ("s.txt", b"x\n")})
    assert str(error.value) == message


def test_terms_file_errors_name_file_and_line():
    files = dict(src=("src.txt", b"the fever rose\nno terms\n"), refs={"A": ("ref.txt", b"la fievre\nrien\n")},
                 hyps={"s": ("s.txt", b"x\ny\n")}, lang_pair="en-fr")
    with pytest.raises(InputError) as error:
        load_files(**files, terms=("terms.tsv", b"segment\tsource\nx\ty\n"))
    assert str(error.value) == "terms.tsv: line 1: a terms file needs the columns seg_id, src_term, tgt_term; found segment, source"
    # a source term not in its segment's source is loaded all the same (the metrics are target-side; see
    # test_terms_not_in_the_source_load_with_one_warning for the warning)
    data = load_files(**files, terms=("terms.tsv", b"seg_id\tsrc_term\ttgt_term\n1\tfever\tfievre\n2\tfever\tfievre\n"))
    assert data.terms[["seg", "src_term"]].values.tolist() == [[0, "fever"], [1, "fever"]]
    with pytest.raises(InputError) as error:
        load_files(**files, terms=("terms.tsv", b"seg_id\tsrc_term\ttgt_term\n9\tfever\tfievre\n"))
    assert str(error.value) == "terms.tsv: line 2: seg_id '9' is not a segment number between 1 and 2"
    data = load_files(**files, terms=("terms.tsv", "seg_id\tsrc_term\ttgt_term\n1\tFever\tfievre|fièvre\n".encode()))
    assert data.terms[["seg", "src_term", "tgt_terms"]].values.tolist() == [[0, "Fever", "fievre|fièvre"]]


def test_glossary_is_matched_longest_first_and_needs_the_target_in_the_reference():
    glossary = "source\ttarget\ncough\ttoux\ndry cough\ttoux sèche\nfever\tfièvre\n".encode()
    data = load_files(src=("src.txt", b"A dry cough and fever\nA cough\n"),
                      refs={"A": ("ref.txt", "une toux sèche et de la fièvre\nune quinte\n".encode())},
                      hyps={"s": ("s.txt", b"x\ny\n")}, lang_pair="en-fr", terms=("glossary.tsv", glossary))
    assert data.terms[["seg", "src_term", "tgt_terms"]].values.tolist() == [[0, "dry cough", "toux sèche"],
                                                                             [0, "fever", "fièvre"]]


def test_en_ja_glossary_folder_terms_use_japanese_segmentation():
    report = evaluate(load_folder(SAMPLE / "wmt21.en-ja"), Options(metrics=("term_exact",)))
    assert report.options.tokenize == "ja-mecab"
    assert 50 < report.corpus["term_exact"].min() <= report.corpus["term_exact"].max() <= 100


# ------------------------------------------------------------------ terms as real term data is written (issue 11)

TICO_DEV = DEV / "terminology" / "tico19-en-fr"
TAG = '<term id="{id}" src="{src}" tgt="{tgt}">{surface}</term>'


def test_reference_tags_pair_by_id_not_by_position():
    src = TAG.format(id=1, src="respiratory", tgt="respiratoires", surface="respiratory") + " " + TAG.format(
        id=2, src="infection", tgt="infection", surface="infection")
    ref = "une " + TAG.format(id=2, src="infection", tgt="infection", surface="infection") + " " + TAG.format(
        id=1, src="respiratory", tgt="respiratoires", surface="respiratoires")
    data = load_files(src=("src.txt", (src + "\n").encode()), refs={"A": ("ref.txt", (ref + "\n").encode())},
                      hyps={"mt": ("mt.txt", "une infection\n".encode())}, lang_pair="en-fr")
    assert data.terms[["src_term", "ref_surface"]].values.tolist() == [["respiratory", "respiratoires"],
                                                                      ["infection", "infection"]]
    report = evaluate(data, Options(metrics=("term_exact",)))
    assert report.corpus.loc["mt", "term_exact"] == pytest.approx(50.0)


def test_tags_without_ids_pair_by_src_and_tgt_and_repeated_ids_in_order():
    src = [[strip_term_tags('<term src="a" tgt="x">a</term> <term src="b" tgt="y">b</term>', "s", 1)[1][0],
            strip_term_tags('<term src="b" tgt="y">b</term>', "s", 1)[1][0]]]
    ref = [strip_term_tags('<term src="b" tgt="y">yy</term> <term src="a" tgt="x">xx</term>', "r", 1)[1]]
    frame = terms_from_tags(src, ref, "src.txt", "ref.txt")
    assert frame[["src_term", "ref_surface"]].values.tolist() == [["a", "xx"], ["b", "yy"]]
    twice = strip_term_tags('<term id="7" src="t" tgt="u">t</term> . <term id="7" src="t" tgt="u">t</term>', "s", 1)[1]
    ref_twice = strip_term_tags('<term id="7" src="t" tgt="u">u1</term> <term id="7" src="t" tgt="u">u2</term>', "r", 1)[1]
    assert terms_from_tags([twice], [ref_twice], "s")["ref_surface"].tolist() == ["u1", "u2"]


def test_a_reference_tag_without_a_source_partner_names_file_and_line():
    src = [[], strip_term_tags('<term id="1" src="a" tgt="x">a</term>', "s", 2)[1]]
    ref = [[], strip_term_tags('<term id="2" src="b" tgt="y">y</term>', "r", 2)[1]]
    with pytest.raises(InputError) as error:
        terms_from_tags(src, ref, "src.annotated.txt", "ref.annotated.txt")
    assert str(error.value) == ("ref.annotated.txt: line 2: the reference term tag 'y' has no source term tag "
                                "with id '2' in this segment")
    extra = [[], ref[1] + ref[1]]
    with pytest.raises(InputError):
        terms_from_tags([[], src[1] + strip_term_tags('<term id="2" src="b" tgt="y">b</term>', "s", 2)[1]], extra, "s")


def test_tico19_tags_score_exactly_like_its_terms_tsv():
    system = next(TICO_DEV.glob("tico19dev.en-fr.*.txt"))
    tags = load_files(src=TICO_DEV / "src.annotated.txt", refs={"A": TICO_DEV / "ref.annotated.txt"},
                      hyps={"F": system}, lang_pair="en-fr")
    table = load_files(src=TICO_DEV / "src.txt", refs={"A": TICO_DEV / "ref.A.txt"}, hyps={"F": system},
                       lang_pair="en-fr", terms=TICO_DEV / "terms.tsv")
    assert len(tags.terms) == len(table.terms) == 901
    a, b = tags.terms.reset_index(drop=True), table.terms.reset_index(drop=True)
    assert a[["seg", "term_id", "src_term", "tgt_terms"]].equals(b[["seg", "term_id", "src_term", "tgt_terms"]])
    differ = a.index[a["ref_surface"] != b["ref_surface"]].tolist()
    # the only difference: segment 511 has "touch" twice; its reference tags say "touche" then "touchent", the
    # TSV gives "touchent" for both rows
    assert differ == [353] and (a.loc[353, "ref_surface"], b.loc[353, "ref_surface"]) == ("touche", "touchent")
    exact = [evaluate(d, Options(metrics=("term_exact",))).corpus.loc["F", "term_exact"] for d in (tags, table)]
    assert exact[0] == exact[1] == pytest.approx(84.46170921198669, abs=1e-9)


def _tsv_file(name: str, path) -> TermFile:
    lines = path.read_text(encoding="utf-8").split("\n")[:-1]
    return TermFile(name, lines[0].split("\t"), [line.split("\t") for line in lines[1:]])


def test_lemma_only_source_terms_load_with_one_warning_and_score_like_the_surface_file():
    surface_file = _tsv_file("terms.tsv", TICO_DEV / "terms.tsv")
    keep = [surface_file.header.index(c) for c in ("seg_id", "term_id", "src_term_lemma", "tgt_term_alternatives",
                                                    "ref_surface")]
    lemma_file = TermFile("lemmas.tsv", ["seg_id", "term_id", "src_term", "tgt_term", "ref_surface"],
                          [[row[i] for i in keep] for row in surface_file.rows])
    src = (TICO_DEV / "src.txt").read_text(encoding="utf-8").split("\n")[:-1]
    ref = (TICO_DEV / "ref.A.txt").read_text(encoding="utf-8").split("\n")[:-1]
    surface_warnings, lemma_warnings = [], []
    by_surface = build_terms(src, ref, "en-fr", [surface_file], surface_warnings)
    by_lemma = build_terms(src, ref, "en-fr", [lemma_file], lemma_warnings)
    assert surface_warnings == []
    assert len(lemma_warnings) == 1 and lemma_warnings[0].startswith("lemmas.tsv: ")
    assert "source term(s) do not occur as written in their segment's source (" in lemma_warnings[0]
    assert " found as a lemma-like stem, 0 not at all; first: line " in lemma_warnings[0]
    assert by_lemma.equals(by_surface) and len(by_lemma) == 901
    system = next(TICO_DEV.glob("tico19dev.en-fr.*.txt")).read_text(encoding="utf-8").split("\n")[:-1]
    scores = [evaluate(evalset_from_lists({"A": ref}, {"F": system}, src=src, terms=terms, lang_pair="en-fr"),
                       Options(metrics=("term_exact", "term_window2", "term_ter"))).corpus.loc["F"].tolist()
              for terms in (by_surface, by_lemma)]
    assert scores[0] == scores[1]


def test_source_terms_are_found_as_written_then_by_a_lemma_like_stem():
    tokens = "the infections and the children".split()
    assert find_source_term(tokens, ["infections"]) == [(1, 2)]
    assert find_source_term(tokens, ["infection"]) == [(1, 2)]
    assert find_source_term(tokens, ["child"]) == [(4, 5)]
    assert find_source_term(tokens, ["mouse"]) == []
    assert find_source_term(tokens, ["an"]) == [(2, 3)]  # a short token is its own stem ("an" ~ "and")


def test_stray_and_upper_case_tags():
    clean, tags = strip_term_tags('a <TERM id="3" SRC="fever" Tgt="fièvre">fever</Term> rose', "src.txt", 4)
    assert clean == "a fever rose" and [(t.term_id, t.src, t.tgt, t.surface) for t in tags] == [("3", "fever", "fièvre", "fever")]
    warnings: list[str] = []
    assert strip_term_tags("the fever</term> rose", "ref.txt", 7, warnings) == ("the fever rose", [])
    assert strip_term_tags('a <term src="x" tgt="y">x', "src.txt", 1, warnings) == ("a x", [])
    assert warnings == ["ref.txt: line 7: stray term tag(s) without a partner removed: '</term>'",
                        'src.txt: line 1: stray term tag(s) without a partner removed: \'<term src="x" tgt="y">\'']
    data = load_files(src=("src.txt", b"a </TERM> b\n"), refs={"A": ("ref.txt", b"x\n")}, hyps={"s": ("s.txt", b"x\n")})
    assert data.segments["src"].tolist() == ["a b"]

"""The translator's QA checks (issue 20, mtdiag.triage.checks): each fires on its probe and not on the clean control next
to it, from the source and the outputs alone — with and without references — and explains itself with marks in
the output (CJK and emoji offsets included). Also: number_mismatch and untranslated without references, the
critical checks on a set without references, bad input for the language identifier, linear patterns on a
100,000-character segment."""

from __future__ import annotations

import time

import pandas as pd
import pytest

from mtdiag.triage import checks, ranking
from mtdiag.scoring.evaluate import evaluate
from mtdiag.views.detail import segment_detail
from mtdiag.triage.checks import (inconsistent, languages, llm_artefact, markup_mismatch, number_mismatch, unbalanced, untranslated)
from mtdiag.core.evalset import evalset_from_lists
from mtdiag.core.highlight import KINDS

NEW = ("wrong_language", "mixed_language", "source_copy", "llm_artefact", "markup_mismatch", "unbalanced",
       "inconsistent")

# clean en -> de filler: long enough for language identification, so set-level languages are clear
FILLER_SRC = [
    "The committee will meet again next week to discuss the budget for the coming year.",
    "Many residents of the small town were surprised by the sudden decision of the council.",
    "The museum reopened its doors after a long renovation that lasted almost three years.",
    "Scientists have found that the river is cleaner now than it was a decade ago.",
    "The new bridge connects the two parts of the city and shortens the way to work.",
    "Farmers in the region are worried about the dry summer and the low price of grain.",
]
FILLER_DE = [
    "Der Ausschuss wird nächste Woche erneut zusammentreten, um den Haushalt für das kommende Jahr zu beraten.",
    "Viele Einwohner der kleinen Stadt waren von der plötzlichen Entscheidung des Rates überrascht.",
    "Das Museum hat nach einer langen Renovierung, die fast drei Jahre dauerte, seine Türen wieder geöffnet.",
    "Wissenschaftler haben festgestellt, dass der Fluss heute sauberer ist als vor zehn Jahren.",
    "Die neue Brücke verbindet die beiden Teile der Stadt und verkürzt den Weg zur Arbeit.",
    "Die Landwirte in der Region sind besorgt über den trockenen Sommer und den niedrigen Getreidepreis.",
]


def _report(src, probe, clean, *, references=True, lang_pair="en-de", systems=3):
    """A set of the given segments plus the clean filler: ``probe`` (the outputs under test), ``clean`` (the
    control) and, for three systems, a second clean system; with the clean outputs as the reference or
    without references."""
    src, probe, clean = [*src, *FILLER_SRC], [*probe, *FILLER_DE], [*clean, *FILLER_DE]
    hyps = {"probe": probe, "clean": clean, "clean2": list(clean)}
    hyps = dict(list(hyps.items())[:systems])
    refs = {"A": clean} if references else {}
    return evaluate(evalset_from_lists(refs, hyps, src=src, lang_pair=lang_pair))


def _flags(report):
    return checks.flag_frame(report)


def _fires(report, name, system="probe", seg=0):
    return bool(_flags(report).at[(system, seg), name])


def _findings(report, system="probe", seg=0, name=None):
    frame = checks.check_evidence(report, system, seg).tables["checks"].frame
    return [f for c, f in zip(frame["check"], frame["finding"]) if name is None or c == name]


def _marked(report, kind, system="probe", seg=0):
    """The output tokens (as shown) under marks of ``kind`` in the segment detail."""
    detail = segment_detail(report, system, seg)
    return [detail.hyp.shown[i] for s in detail.hyp_spans if s.kind == kind for i in range(s.start, s.end)]


both = pytest.mark.parametrize("references", [True, False], ids=["with references", "without references"])


# ------------------------------------------------------------------------------------------------ registry


def test_the_qa_checks_are_registered_after_the_existing_ones_with_claims_and_marks():
    names = list(checks.REGISTRY)
    assert names.index("repetition") < names.index("wrong_language") < names.index("source_copy") \
        < names.index("llm_artefact") < names.index("over_translation")
    later = [names.index(n) for n in ("mixed_language", "markup_mismatch", "unbalanced", "inconsistent")]
    assert later == sorted(later) and later[0] > names.index("over_translation")  # a check added later may follow
    critical = {n for n in NEW if checks.REGISTRY[n].critical}
    assert critical == {"wrong_language", "source_copy", "llm_artefact"}
    for name in NEW:
        cls = checks.REGISTRY[name]
        assert cls.claims and cls.needs == ("source",)
        assert all(kind in KINDS for kind in cls.marks)
    assert checks.REGISTRY["number_mismatch"].needs == ("source",)
    assert checks.REGISTRY["untranslated"].needs == ("source",)


def test_every_reference_free_check_runs_on_a_set_without_references():
    report = _report(["The government presented a new plan on Tuesday."],
                     ["Die Regierung stellte am Dienstag einen neuen Plan vor."],
                     ["Die Regierung stellte am Dienstag einen neuen Plan vor."], references=False)
    assert not report.evalset.has_references
    flags = _flags(report)
    for name in ("empty", "truncated", "flood", "repetition", *NEW, "number_mismatch", "untranslated"):
        assert name in flags.columns, name
    assert "over_translation" not in flags.columns and "length_outlier" not in flags.columns
    assert not flags.to_numpy().any()  # a clean set: nothing fires


# ------------------------------------------------------------------------------------------------ language


FR = "Le gouvernement a présenté mardi un nouveau plan pour les lignes ferroviaires du nord du pays."
DE = "Die Regierung stellte am Dienstag einen neuen Plan für die Bahnstrecken im Norden des Landes vor."
EN = "The government presented a new plan for the railway lines in the north of the country on Tuesday."


@both
def test_french_output_for_an_en_de_source_is_the_wrong_language(references):
    report = _report([EN], [FR], [DE], references=references)
    assert _fires(report, "wrong_language")
    assert not _fires(report, "wrong_language", "clean")
    assert not _fires(report, "mixed_language")  # the whole output, not a passage
    assert checks.critical(_flags(report)).at[("probe", 0)]
    assert _findings(report, name="wrong_language")[0].startswith("the output is in French (")
    assert "not in German" in _findings(report, name="wrong_language")[0]
    assert _marked(report, "language")[:3] == ["Le", "gouvernement", "a"]
    if references:  # the queue without references is the reference-free problem score's (mtdiag.triage.ranking)
        queue = ranking.worst_first(report, strict=True)
        assert (queue.iloc[0]["system"], queue.iloc[0]["seg"]) == ("probe", 0)  # critical: leads the queue


def test_without_a_language_pair_the_target_is_the_outputs_dominant_language():
    report = _report([EN], [FR], [DE], references=False, lang_pair=None)
    assert languages.target_language(report) == "de" and languages.source_language(report) == "en"
    assert _fires(report, "wrong_language")
    assert not _flags(report).loc["clean"].any(axis=None)


def test_a_target_language_cld2_does_not_know_turns_language_identification_off():
    report = _report([EN], [FR], [DE], references=False, lang_pair="en-liv")
    assert languages.target_language(report) is None
    assert not _flags(report)["wrong_language"].any() and not _flags(report)["mixed_language"].any()


@both
def test_a_sentence_left_in_the_source_language_is_mixed_language(references):
    left = "The minister said on Monday that the work on the new lines would start next spring."
    src = [EN + " " + left]
    probe = [DE + " " + left]
    clean = [DE + " Der Minister sagte am Montag, die Arbeiten an den neuen Strecken würden im Frühjahr beginnen."]
    report = _report(src, probe, clean, references=references)
    assert _fires(report, "mixed_language") and not _fires(report, "wrong_language")
    assert not _fires(report, "mixed_language", "clean")
    assert not checks.critical(_flags(report)).at[("probe", 0)]
    finding = _findings(report, name="mixed_language")[0]
    assert finding.startswith("a passage in English (the source's language): “The minister said")
    assert " ".join(_marked(report, "language")) == left.replace(".", " .")


def test_names_kept_from_the_source_are_not_another_language():
    # CLD2 alone reads this German sentence as English (99 %); the kept names are blanked before it decides
    src = ["The Union Chain Bridge crosses the River Tweed from Fishwick in the Scottish Borders to Horncliffe "
           "in Northumberland."]
    names = ["Die Union Chain Bridge überquert den Fluss Tweed von Fishwick in den Scottish Borders nach "
             "Horncliffe in Northumberland."]
    assert languages.detect(names[0]).language == "en"
    report = _report(src, names, names, references=False)
    assert not _flags(report)[["wrong_language", "mixed_language"]].to_numpy().any()


def test_short_outputs_are_too_short_to_judge():
    report = _report(["Thank you."], ["Merci."], ["Danke."], references=False)
    assert not _fires(report, "wrong_language")
    assert languages.letter_bytes("Merci beaucoup") < languages.MIN_LETTER_BYTES


def test_character_offsets_of_passages_after_cjk_and_emoji():
    src = ["He said: Thank you very much for coming to the meeting yesterday evening.",
           *[f"This is an ordinary sentence number {i} of the test set for the checks." for i in range(6)]]
    kept = "Thank you very much for coming to the meeting yesterday evening."
    probe = ["😀🎉 彼は昨日の夜、会議に来てくれてありがとうと言いました。 " + kept,
             *[f"これはチェックのためのテストセットの普通の文{i}番です。" for i in range(6)]]
    clean = ["😀🎉 彼は昨日の夜、会議に来てくれてありがとうと言いました。", *probe[1:]]
    report = evaluate(evalset_from_lists({}, {"probe": probe, "clean": clean, "clean2": clean}, src=src,
                                         lang_pair="en-ja"))
    finding = languages.language_findings(report)["probe"][0]
    (start, end, language), = finding.passages
    assert probe[0][start:end] == kept and language == "en"  # 4-byte emoji and 3-byte kana/kanji before it
    assert _marked(report, "language") == ["Thank", "you", "very", "much", "for", "coming", "to", "the",
                                           "meeting", "yesterday", "evening", "."]
    assert not _fires(report, "mixed_language", "clean")


def test_byte_offsets_become_character_offsets():
    text = "日本語の文章です。🙂 This sentence is plainly written in the English language."
    detection = languages.detect(text)
    found = languages.passages(text, detection, "ja")
    assert found and all(text[a:b].strip() for a, b, _ in found)
    start, end, _ = found[-1]
    assert text[start:end].rstrip(". ").endswith("English language")
    assert len(text.encode()) > len(text)  # the offsets differ in bytes and characters


def test_detection_shortens_the_switch_interval_while_any_thread_detects_and_restores_it():
    """CLD2 gives the GIL back at every text: beside a thread running Python each text waited up to 5 ms for it
    (9,793 texts: 0.15 s alone, 50 s beside a busy thread). While any thread detects, the interval is
    :data:`mtdiag.core.gil.HANDOFF_S`; the last one out restores what was there, also after an error."""
    import sys
    import threading

    from mtdiag.core import gil

    before = sys.getswitchinterval()
    inside, release = threading.Event(), threading.Event()

    def other():
        with gil.quick_gil_handoff():
            inside.set()
            release.wait(10)

    thread = threading.Thread(target=other)
    thread.start()
    inside.wait(10)
    assert sys.getswitchinterval() == pytest.approx(gil.HANDOFF_S)
    with pytest.raises(ZeroDivisionError), gil.quick_gil_handoff():
        assert sys.getswitchinterval() == pytest.approx(gil.HANDOFF_S)
        1 / 0
    assert sys.getswitchinterval() == pytest.approx(gil.HANDOFF_S)  # the other thread is still detecting
    release.set()
    thread.join(10)
    assert sys.getswitchinterval() == before
    seen = []
    real = languages.detect
    try:
        languages.detect = lambda text: seen.append(sys.getswitchinterval()) or real(text)
        detections = languages.detect_all(["Guten Morgen, wie geht es Ihnen heute?"] * 3 + ["Good morning."])
    finally:
        languages.detect = real
    assert seen == pytest.approx([gil.HANDOFF_S] * 2)  # each distinct text read once, with the short interval
    assert [d.language for d in detections][:3] == ["de"] * 3 and sys.getswitchinterval() == before


@pytest.mark.parametrize("bad", ["\x00abc", "\x01 hello", "a\x7fb", "\ufffe", "\x0b\x0c hello world",
                                 "\x80\x9f text", "\U0010ffff"])
def test_text_cld2_refuses_is_read_with_the_refused_characters_as_spaces(bad):
    languages.detect(bad)  # no exception
    french = "Le président a déclaré mardi que le gouvernement présenterait un nouveau plan." + bad
    assert languages.detect(french).language == "fr"


def test_a_set_with_control_characters_is_checked_without_an_error():
    probe = [FR + "\x00\x07", "\x1b[31m\x7f"]
    report = _report([EN, "Red."], probe, [DE, "Rot."], references=False)
    assert _fires(report, "wrong_language", seg=0)
    checks.check_evidence(report, "probe", 1)


def test_language_codes_are_normalised_and_close_relatives_are_one_language():
    assert languages.normalise("zh-Hant") == "zh" and languages.normalise("iw") == "he"
    assert languages.normalise("un") is None and languages.normalise("xx-Hani") is None
    assert languages.same_language("no", "nn") and languages.same_language("en", "sco")
    assert not languages.same_language("de", "en") and not languages.same_language(None, None)
    assert languages.language_name("de") == "German"


# ------------------------------------------------------------------------------------------------ source copy


@both
def test_an_output_copied_from_the_source_is_flagged(references):
    report = _report([EN], ["  the government presented a new plan for the railway lines in the NORTH of the "
                            "country on Tuesday. "], [DE], references=references)
    assert _fires(report, "source_copy") and checks.critical(_flags(report)).at[("probe", 0)]
    assert not _fires(report, "source_copy", "clean")
    assert _findings(report, name="source_copy") == ["the output is the source, not translated"]
    assert _marked(report, "copied")[:2] == ["the", "government"]


def test_a_name_or_a_number_alone_may_stay_as_it_is():
    report = _report(["Volkswagen", "2020", "Mozart"], ["Volkswagen", "2020", "Mozart"],
                     ["Volkswagen", "2020", "Mozart"], references=False)
    assert not _flags(report)["source_copy"].any()


def test_a_copy_is_no_fault_where_source_and_target_are_the_same_language():
    report = _report([EN], [EN], [EN], references=False, lang_pair="en-en")
    assert not _fires(report, "source_copy")


def test_four_cjk_characters_are_long_enough_for_a_copy():
    src = ["我们明天去北京", "中国", *[f"这是第{i}个普通的句子，用来检查。" for i in range(6)]]
    ref = ["We are going to Beijing tomorrow", "China",
           *[f"This is ordinary sentence number {i}, used for checking." for i in range(6)]]
    probe = ["我们明天去北京", "中国", *ref[2:]]
    report = evaluate(evalset_from_lists({}, {"probe": probe, "clean": ref, "clean2": ref}, src=src,
                                         lang_pair="zh-en"))
    assert _fires(report, "source_copy", seg=0)
    assert not _fires(report, "source_copy", seg=1)  # two characters: a name


# ------------------------------------------------------------------------------------------------ LLM artefacts


@both
def test_an_llm_preamble_is_an_artefact(references):
    report = _report([EN], ["Here is the translation into German:\n" + DE], [DE], references=references)
    assert _fires(report, "llm_artefact") and checks.critical(_flags(report)).at[("probe", 0)]
    assert not _fires(report, "llm_artefact", "clean")
    assert _findings(report, name="llm_artefact")[0].startswith("preamble:")
    assert _marked(report, "artefact")[:4] == ["Here", "is", "the", "translation"]
    assert "Die" not in _marked(report, "artefact")


@pytest.mark.parametrize("output,kind", [
    ("Sure! Here's the German version: " + DE, "preamble"),
    ("Übersetzung: " + DE, "preamble"),
    ("Voici la traduction : " + DE, "preamble"),
    ("以下是翻译：" + DE, "preamble"),
    ("翻訳: " + DE, "preamble"),
    ("**German translation:** " + DE, "preamble"),
    (DE + " (Note: I kept the name of the railway as it is.)", "note"),
    (DE + "\n\nHinweis: Der Name wurde nicht übersetzt.", "note"),
    (DE + " I hope this helps!", "closing remark"),
    ("I'm sorry, but I can't translate this text.", "refusal"),
    ("As an AI language model, I cannot do that.", "refusal"),
    ("```\n" + DE + "\n```", "code fence"),
])
def test_each_kind_of_artefact(output, kind):
    report = _report([EN], [output], [DE], references=False)
    assert llm_artefact.artefacts(report)["probe"][kind][0], (kind, output)
    assert _fires(report, "llm_artefact")
    assert _marked(report, "artefact")


def test_a_note_the_source_has_is_translated_not_added():
    src = ["Note: the offices are closed on Monday because of the public holiday."]
    output = ["Hinweis: Die Büros sind am Montag wegen des Feiertags geschlossen."]
    report = _report(src, output, output, references=False)
    assert not _fires(report, "llm_artefact")


@both
def test_an_output_in_quotes_is_not_an_artefact(references):
    # a headline put in quotes whole (WMT23 zh-en: a correct headline so quoted was rated MQM -3.6), quotes the
    # source has, and a bracketed source line quoted in the output: none is a model's wrapper
    src = ["Firefighters gain ground on Lassen County blazes", '"We will win this election," he told his supporters.',
           "【编辑:陈海峰】"]
    probe = ["„Feuerwehr gewinnt an Boden bei den Bränden im Lassen County“",
             '„Wir werden diese Wahl gewinnen“, sagte er seinen Anhängern.', '"Redakteur: Chen Haifeng"']
    clean = ["Feuerwehr gewinnt an Boden bei den Bränden im Lassen County",
             '„Wir werden diese Wahl gewinnen“, sagte er seinen Anhängern.', "Redakteur: Chen Haifeng"]
    report = _report(src, probe, clean, references=references)
    assert not _flags(report)["llm_artefact"].any()
    assert "wrapping quotes" not in llm_artefact.KINDS
    assert (ranking.worst_first(report)["critical"] == "").all()  # nothing puts them ahead of worse outputs


def test_an_answer_instead_of_a_translation():
    src = ["Is it going to rain in Berlin tomorrow afternoon?"]
    report = _report(src, ["Yes, it is going to rain in Berlin tomorrow afternoon."],
                     ["Wird es morgen Nachmittag in Berlin regnen?"], references=False)
    assert llm_artefact.artefacts(report)["probe"]["answer instead of a translation"][0]
    assert not _fires(report, "llm_artefact", "clean")
    asked_back = _report(src, ["Ja, wird es morgen Nachmittag in Berlin regnen?"],
                         ["Wird es morgen Nachmittag in Berlin regnen?"], references=False)
    assert not _fires(asked_back, "llm_artefact")  # a question mark: still a question


@pytest.mark.parametrize("text", [
    "Note: " * 20_000, "(" * 100_000, "here is " * 12_500, "as an a" * 14_000, "Translation " * 8_000,
    "a" * 100_000, ". " * 50_000, "hier ist " * 11_000,
])
def test_artefact_patterns_are_linear_on_a_100k_character_output(text):
    series = pd.Series([text, text.upper()])
    start = time.perf_counter()
    llm_artefact._found(series)
    for kind in llm_artefact.KINDS:
        llm_artefact.artefact_spans(text, kind)
    assert time.perf_counter() - start < 1.0


# ------------------------------------------------------------------------------------------------ markup


MARKUP_SRC = "Click <b>Save</b> to keep {0} changes, or see https://example.com/help?id=7 for details."
MARKUP_DE = "Klicken Sie auf <b>Speichern</b>, um {0} Änderungen zu behalten, oder siehe https://example.com/help?id=7."


@both
@pytest.mark.parametrize("probe,missing,marked", [
    (MARKUP_DE.replace("{0} ", ""), "placeholder {0} is missing from the output", []),
    (MARKUP_DE.replace("example.com/help?id=7", "example.org/help?id=7"),
     "URL https://example.com/help?id=7 is missing from the output",
     ["https", ":", "/", "/", "example", ".", "org"]),
    (MARKUP_DE.replace("Speichern</b>", "Speichern"), "tag </b> is missing from the output", []),
], ids=["dropped {0}", "changed URL", "missing </b>"])
def test_placeholders_tags_and_urls_must_be_kept(references, probe, missing, marked):
    report = _report([MARKUP_SRC], [probe], [MARKUP_DE], references=references)
    assert _fires(report, "markup_mismatch")
    assert not _fires(report, "markup_mismatch", "clean")
    assert missing in _findings(report, name="markup_mismatch")
    assert _marked(report, "markup")[: len(marked)] == marked


def test_the_kinds_of_items_and_their_values():
    text = ("Hi %s, %1$d files in %(dir)s {{ user }} ${name} {} &amp; &#160; mail a.b@example.org, "
            "follow @mtdiag #MachineTranslation <br/> <a href='x'>y</a> www.example.com. 50 % der 50%igen")
    found = [(kind, value) for kind, value, _, _ in markup_mismatch.items(text)]
    assert found == [("placeholder", "%s"), ("placeholder", "%1$d"), ("placeholder", "%(dir)s"),
                     ("placeholder", "{{user}}"), ("placeholder", "${name}"), ("placeholder", "{}"),
                     ("entity", "&amp;"), ("entity", "&#160;"), ("e-mail address", "a.b@example.org"),
                     ("handle", "@mtdiag"), ("hashtag", "#MachineTranslation"), ("tag", "<br/>"),
                     ("tag", "<a>"), ("tag", "</a>"), ("URL", "www.example.com")]


def test_items_kept_in_another_order_and_translated_attributes_are_no_mismatch():
    src = ['Hello {name}, you have %d new <a title="messages">messages</a> from @anna #news.']
    out = ['Hallo {name}, Sie haben von @anna #news %d neue <a title="Nachrichten">Nachrichten</a>.']
    report = _report(src, out, out, references=False)
    assert not _fires(report, "markup_mismatch")


def test_an_added_item_is_marked_and_a_doubled_one_counted():
    report = _report(["Press {0} to start."], ["Drücken Sie {0} {0} zum Starten {1}."],
                     ["Drücken Sie {0} zum Starten."], references=False)
    findings = _findings(report, name="markup_mismatch")
    assert "placeholder {1} is not in the source" in findings
    assert "placeholder {0} is not in the source as often (2 × against 1)" in findings


@pytest.mark.parametrize("text", ["<a" + " a" * 50_000, "{" * 100_000, "a@" * 50_000, "%" * 100_000,
                                  "http://" + "a" * 100_000, "&" * 100_000, "#" * 100_000, "<" * 100_000,
                                  "x" * 64 + "@" * 99_999, "a." * 50_000 + "@", "{{" + "x" * 100_000])
def test_markup_patterns_are_linear_on_a_100k_character_segment(text):
    start = time.perf_counter()
    markup_mismatch.extract(pd.Series([text]))
    markup_mismatch.items(text)
    assert time.perf_counter() - start < 1.0


# ------------------------------------------------------------------------------------------------ unbalanced


@both
def test_an_unbalanced_quote_is_flagged(references):
    src = ['He called the plan "a good start" and left the room.']
    report = _report(src, ["Er nannte den Plan „einen guten Anfang und verließ den Raum."],
                     ["Er nannte den Plan „einen guten Anfang“ und verließ den Raum."], references=references)
    assert _fires(report, "unbalanced") and not _fires(report, "unbalanced", "clean")
    assert _findings(report, name="unbalanced") == ["unpaired double quotes; the source's are all paired"]
    assert _marked(report, "unbalanced") == ['"']  # the shown token: „ read as "


def test_brackets_are_paired_left_to_right_and_the_leftover_marked():
    assert unbalanced.unpaired_positions("a (b (c) d", "round brackets") == [2]
    assert unbalanced.unpaired_positions("a) b (c", "round brackets") == [1, 5]
    report = _report(["The plan (approved in May) is ready."], ["Der Plan (im Mai genehmigt ist fertig."],
                     ["Der Plan (im Mai genehmigt) ist fertig."], references=False)
    assert _fires(report, "unbalanced") and _marked(report, "unbalanced") == ["("]


def test_quotes_the_source_leaves_open_and_other_quote_styles_are_fine():
    report = _report(['"The quotation goes on in the next segment.', 'She said "yes".', "A (list) item."],
                     ["„Das Zitat geht im nächsten Segment weiter.", "Sie sagte 「はい」.",
                      "Ein Listen（Punkt) Eintrag."],
                     ["„Das Zitat geht im nächsten Segment weiter.", "Sie sagte „ja“.", "Ein (Listen) Eintrag."],
                     references=False)
    assert not _flags(report)["unbalanced"].any()


def test_quote_families_counted_on_code_points():
    texts = pd.Series(['He said “yes', 'Er sagte „ja“ (gut)', "x (a", "🙂 «oui»", '"a"', "It’s ‘fine’", "‚gut‘",
                       "‘oops", ""])
    found = {k: v.astype(int).tolist() for k, v in unbalanced.unpaired(unbalanced.char_counts(texts)).items()
             if v.any()}
    assert found == {"round brackets": [0, 0, 1, 0, 0, 0, 0, 0, 0], "double quotes": [1, 0, 0, 0, 0, 0, 0, 0, 0],
                     "single quotes": [0, 0, 0, 0, 0, 0, 0, 1, 0]}


# ------------------------------------------------------------------------------------------------ consistency


@both
def test_a_repeated_source_translated_two_ways_by_one_system(references):
    src = ["Press the red button.", "Wait a moment.", "Press the red button."]
    probe = ["Drücken Sie den roten Knopf.", "Warten Sie einen Moment.", "Drücken Sie die rote Taste."]
    clean = ["Drücken Sie den roten Knopf.", "Warten Sie einen Moment.", "Drücken Sie  den roten Knopf."]
    report = _report(src, probe, clean, references=references)
    flags = _flags(report)["inconsistent"]
    assert flags.loc["probe"].iloc[:3].tolist() == [True, False, True]
    assert not flags.loc["clean"].any()  # white space aside, the same translation
    assert _findings(report, name="inconsistent") == [
        "the same source is translated “Drücken Sie die rote Taste.” in segment(s) 3"]
    assert inconsistent.repeated_sources(report).iloc[:3].tolist()[1] == -1


# ------------------------------------------------------------------------------------------------ numbers


def test_a_changed_number_without_references_against_the_other_systems():
    src = ["The ticket costs 35 euros and is valid for 3 days."]
    good = ["Das Ticket kostet 35 Euro und ist 3 Tage gültig."]
    report = _report(src, ["Das Ticket kostet 53 Euro und ist 3 Tage gültig."], good, references=False)
    assert number_mismatch.basis(report) == "systems"
    assert _fires(report, "number_mismatch") and not _fires(report, "number_mismatch", "clean")
    assert set(_findings(report, name="number_mismatch")) == {
        "35 of the source is missing from the output", "53 is in neither the source nor most other systems' outputs"}
    assert _marked(report, "number") == ["53"]


def test_a_number_every_system_converts_is_not_required_without_references():
    # 5月 -> May: no system keeps the 5, so the source's 5 is not required; 2020 everywhere
    src = ["他们于2020年5月见面。", *[f"这是第{i}个普通的句子，用来检查。" for i in range(6)]]
    out = ["They met in May 2020.", *[f"This is ordinary sentence number {i}, used for checking." for i in range(6)]]
    wrong = ["They met in May 2021.", *out[1:]]
    report = evaluate(evalset_from_lists({}, {"a": out, "b": list(out), "wrong": wrong}, src=src,
                                         lang_pair="zh-en"))
    flags = _flags(report)["number_mismatch"]
    assert not flags.loc["a"].any() and not flags.loc["b"].any()
    assert flags.at[("wrong", 0)]


def test_with_one_system_and_no_reference_numbers_are_compared_with_the_source():
    report = _report(["It costs 3.5 euros."], ["Es kostet 35 Euro."], ["Es kostet 3,5 Euro."], references=False,
                     systems=1)
    assert number_mismatch.basis(report) == "source"
    assert _fires(report, "number_mismatch")
    assert "35 is not in the source" in _findings(report, name="number_mismatch")
    clean = _report(["It costs 3.5 euros."], ["Es kostet 3,5 Euro."], [], references=False, systems=1)
    assert not _fires(clean, "number_mismatch")


# ------------------------------------------------------------------------------------------------ untranslated


def test_source_script_left_in_the_output_without_references():
    src = ["我喜欢猫和狗。", *[f"这是第{i}个普通的句子，用来检查。" for i in range(6)]]
    out = ["I like cats and dogs.", *[f"This is ordinary sentence number {i}, used for checking." for i in range(6)]]
    left = ["I like 猫和狗 and dogs.", *out[1:]]
    report = evaluate(evalset_from_lists({}, {"left": left, "a": out, "b": list(out)}, src=src, lang_pair="zh-en"))
    assert untranslated.foreign_scripts(report) == ["Han"]
    assert _fires(report, "untranslated", "left") and not _flags(report)["untranslated"].loc["a"].any()
    assert "3 character(s) in the source's script (Han) beyond what the systems keep" in _findings(
        report, "left", name="untranslated")[0]


def test_copied_words_need_references():
    src = ["The quick brown fox jumps over the fence."]
    copied = ["Der quick brown fox springt über den Zaun."]
    clean = ["Der schnelle braune Fuchs springt über den Zaun."]
    assert _fires(_report(src, copied, clean, references=True), "untranslated")
    assert not _fires(_report(src, copied, clean, references=False), "untranslated")


# ------------------------------------------------------------------------------------------------ broken outputs


def test_the_critical_checks_work_without_references():
    src = ["The committee will meet again next week to discuss the budget for the coming year and beyond.",
           "This photography studio is really great, the staff were friendly and the prices fair.",
           "The government presented a new plan for the railway lines in the north on Tuesday.",
           "Thank you. Thank you."]
    probe = ["", "Dieses Fotostudio ist wirklich toll" + "!" * 30,
             "Die Regierung den Plan den Plan den Plan stellte am Dienstag vor.", "Vielen Dank. Vielen Dank."]
    clean = ["Der Ausschuss wird nächste Woche erneut zusammentreten, um den Haushalt zu beraten.",
             "Dieses Fotostudio ist wirklich toll, das Personal war freundlich und die Preise fair.",
             "Die Regierung stellte am Dienstag einen neuen Plan für die Bahnstrecken im Norden vor.",
             "Vielen Dank. Vielen Dank."]
    report = _report(src, probe, clean, references=False)
    flags = _flags(report)
    assert flags.at[("probe", 0), "empty"] and flags.at[("probe", 1), "flood"]
    assert flags.at[("probe", 2), "repetition"] and not flags.at[("probe", 3), "repetition"]
    assert not checks.critical(flags).loc["clean"].any()
    truncated = _report([src[0]], ["Haushalt."], [clean[0]], references=False)
    assert _fires(truncated, "truncated")

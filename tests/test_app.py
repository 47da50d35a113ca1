"""The dashboard under Streamlit's AppTest: every page on every sample set, uploads, bad uploads, segment detail,
escaping, long segments, ``--data`` and the no-recompute rule."""

from __future__ import annotations

import json

import re
import shutil
from pathlib import Path

import pandas as pd
import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from mtdiag import views
from mtdiag.ui import navigation

REPO = Path(__file__).resolve().parents[1]
SAMPLE = REPO / "sample_data"

APP = str(REPO / "app.py")
PAGES = list(views.REGISTRY)  # every page, in the navigation's order: one per view
SETS = sorted(p.name for p in SAMPLE.iterdir() if p.is_dir())
DE = SAMPLE / "wmt21.en-de"
N_DE = 117
SCRIPT = "<script>window.__xss=1</script>"
IMG = '<img src=x onerror="window.__xss=2">'


@pytest.fixture(autouse=True)
def clear_caches():
    st.cache_data.clear()
    st.cache_resource.clear()
    yield
    st.cache_data.clear()
    st.cache_resource.clear()


@pytest.fixture(autouse=True)
def no_data_argument(monkeypatch):
    monkeypatch.delenv("MTDIAG_DATA", raising=False)


def visit(at: AppTest, name: str) -> AppTest:
    """Open view ``name``'s page, as its link in the navigation does (run it next). A page with a layout of its own
    is its script, which ``AppTest.switch_page`` takes (relative to app.py); AppTest switches to scripts only, so
    a view drawn by the generic page (a function) is found among the pages ``st.navigation`` registered by its
    address, the view's name."""
    script = navigation.layout(name)
    if script is not None:
        return at.switch_page(str(script.relative_to(REPO)))
    at._page_hash = next(key for key, page in at._registered_pages.items() if page.get("url_pathname") == name)
    return at


def start() -> AppTest:
    at = AppTest.from_file(APP, default_timeout=30)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def shown(markdown: str) -> str:
    """The text a Markdown string escaped by ``highlight.escape_markdown`` shows (its backslashes and word joiners
    removed): what the viewer reads."""
    return re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", markdown).replace("\u2060", "")


def sidebar_text(at: AppTest) -> str:
    return "\n".join(shown(c.value) for c in at.sidebar.caption)


def html_bodies(at: AppTest) -> str:
    return "\n".join(h.value for h in at.get("html"))


def lines_file(name: str, lines: list[str]) -> tuple[str, bytes, str]:
    return name, ("\n".join(lines) + "\n").encode("utf-8"), "text/plain"


def de_lines(file: str) -> list[str]:
    return (DE / file).read_text(encoding="utf-8").split("\n")[:-1]


def table_with(at: AppTest, *columns: str) -> pd.DataFrame:
    """The first table on the page that has all these columns (read-only tables carry no key in AppTest)."""
    for frame in at.dataframe:
        value = frame.value
        if set(columns) <= set(value.columns):
            return value
    raise AssertionError(f"no table with columns {columns}")


def corpus_systems(at: AppTest) -> list[str]:
    visit(at, "overview").run()
    return list(table_with(at, "otem", "bleu").index)


# ------------------------------------------------------------------------------------------ every page


def test_opens_on_the_richest_sample_set_with_nothing_to_click():
    at = start()
    assert at.selectbox(key="data_set").value.endswith("wmt21.en-de")
    assert "wmt21.en-de" in sidebar_text(at)
    assert at.title[0].value == "Overview"
    assert sorted(corpus_systems(at)) == ["Facebook-AI", "Online-W", "UEdin", "VolcTrans-AT", "VolcTrans-GLAT",
                                          "eTranslation"]
    chrf = table_with(at, "otem", "bleu")["chrf"]
    assert chrf.is_monotonic_decreasing  # ranked by chrF (the default "Rank systems by"), never alphabetically


@pytest.mark.parametrize("sample", SETS)
def test_every_page_renders_on_every_sample_set(sample):
    at = start()
    path = next(p for p in at.selectbox(key="data_set").options if p.endswith(sample))
    at.selectbox(key="data_set").set_value(path).run()
    assert not at.exception
    for page in PAGES:
        visit(at, page).run()
        assert not at.exception, f"{page} on {sample}: {[e.value for e in at.exception]}"
        assert at.title, f"{page} on {sample} has no title"
        assert not at.error, f"{page} on {sample}: {[e.value for e in at.error]}"


def test_overview_marks_direction_best_and_significance():
    at = start()
    table = table_with(at, "otem", "bleu")
    spec = json.loads(at.get("plotly_chart")[0].proto.spec)  # parsed: JSON may escape the arrows (\u2193)
    titles = {a["text"] for a in spec["layout"].get("annotations", [])}
    assert "OTEM ↓" in titles and "BLEU ↑" in titles
    best = table_with(at, "metric", "best", "direction").set_index("metric")
    assert best.at["otem", "direction"] == "lower is better"
    sig = table_with(at, "system", "metric", "ci_lo", "p")
    assert set(sig["system"]) == set(table.index)


def test_the_signatures_are_drawn_only_while_their_panel_is_open():
    """Issue 37: the closed "Metric signatures" expander still sent eight code blocks that cost the browser 0.7 s of
    syntax highlighting on every Overview; its content is now drawn when it is opened (one block, every metric)."""
    at = start()
    assert len(at.code) == 0
    at.session_state["ov_signatures"] = True
    at.run()
    (code,) = at.code
    assert code.value.count("\n") == len(table_with(at, "otem", "bleu").columns) - 1
    assert "\nBLEU: bleu|nrefs:3|" in code.value


# ------------------------------------------------------------------------------------------ uploads


def test_upload_source_references_and_several_systems():
    at = start()
    at.radio(key="data_mode").set_value("Upload files").run()
    at.file_uploader(key="up_src").set_value(lines_file("src.txt", de_lines("src.txt")))
    at.file_uploader(key="up_refs").set_value([lines_file("ref.A.txt", de_lines("ref.A.txt")),
                                               lines_file("ref.C.txt", de_lines("ref.C.txt"))])
    at.file_uploader(key="up_hyps").set_value([
        lines_file("newstest2021.en-de.Online-W.txt", de_lines("newstest2021.en-de.Online-W.txt")),
        lines_file("newstest2021.en-de.UEdin.txt", de_lines("newstest2021.en-de.UEdin.txt")),
    ])
    at.run()
    assert not at.exception and not at.error
    assert "**uploaded files** (en-de)" in sidebar_text(at)
    assert "2 references" in sidebar_text(at)
    assert corpus_systems(at) == ["Online-W", "UEdin"]
    # system names come from the file names and are editable
    at.text_input(key="up_name_0_newstest2021.en-de.Online-W.txt").set_value("Mine").run()
    assert corpus_systems(at) == ["Mine", "UEdin"]


def test_add_a_system_output_to_the_sample_set():
    at = start()
    at.file_uploader(key="up_extra").set_value(lines_file("my-system.txt", de_lines("ref.D.txt"))).run()
    assert not at.exception and not at.error
    systems = corpus_systems(at)
    assert "my-system" in systems and len(systems) == 7  # ranked by chrF among the others
    assert "+ 1 uploaded" in sidebar_text(at)


def test_an_uploaded_system_that_outputs_nothing_is_kept_with_a_warning():
    at = start()
    at.file_uploader(key="up_extra").set_value(("silent.txt", b"\n" * N_DE, "text/plain")).run()
    assert not at.exception and not at.error
    assert "silent" in corpus_systems(at)
    assert "silent.txt: every line is empty" in sidebar_text(at)  # the input warnings


@pytest.mark.parametrize("name, data, expected", [
    ("short.txt", b"one line\ntwo lines\n", "short.txt: has 2 lines but the test set wmt21.en-de has 117 segments"),
    ("bytes.txt", b"fine\n\xc3\x28 broken\n", "bytes.txt: line 2: byte 0xC3 is not valid UTF-8"),
    ("nul.txt", b"\x00\x01\x02binary", "nul.txt: line 1: contains a NUL byte"),
])
def test_bad_system_upload_shows_the_problem_and_keeps_the_data(name, data, expected):
    at = start()
    before = corpus_systems(at)
    at.file_uploader(key="up_extra").set_value((name, data, "text/plain")).run()
    assert not at.exception
    errors = [shown(e.value) for e in at.error]
    assert any(expected in e for e in errors), errors
    assert any("data loaded before stays" in e for e in errors)
    assert corpus_systems(at) == before  # the previous data stays
    for page in ("segments", "over_under"):
        visit(at, page).run()
        assert not at.exception


def test_a_bad_file_next_to_a_good_upload_keeps_the_good_one():
    at = start()
    good = lines_file("mine.txt", de_lines("ref.D.txt"))
    at.file_uploader(key="up_extra").set_value(good).run()
    assert len(corpus_systems(at)) == 7
    at.file_uploader(key="up_extra").set_value([good, ("bad.txt", b"x\n", "text/plain")]).run()
    assert any("bad.txt: has 1 line but the test set" in shown(e.value) for e in at.error)
    assert "mine" in corpus_systems(at) and len(corpus_systems(at)) == 7


def test_bad_upload_in_upload_mode_names_the_file_and_line():
    at = start()
    at.radio(key="data_mode").set_value("Upload files").run()
    at.file_uploader(key="up_refs").set_value(lines_file("ref.A.txt", de_lines("ref.A.txt")))
    at.file_uploader(key="up_hyps").set_value(lines_file("sys.txt", de_lines("ref.A.txt")[:-3]))
    at.run()
    assert not at.exception
    assert any("sys.txt: has 114 lines but ref.A.txt has 117" in shown(e.value) for e in at.error)
    assert "wmt21.en-de" in sidebar_text(at)  # still the sample set
    at.file_uploader(key="up_human").set_value(("scores.tsv", b"system\tseg_id\tscore\nsys\t999\t1\n", "text/plain"))
    at.file_uploader(key="up_hyps").set_value(lines_file("sys.txt", de_lines("ref.A.txt")))
    at.run()
    assert any("scores.tsv: line 2: seg_id 999 is out of range" in shown(e.value) for e in at.error)


# ------------------------------------------------------------------------------------------ segments


def test_selecting_a_segment_shows_its_detail():
    at = start()
    visit(at, "segments").run()
    table = at.dataframe(key="seg_table").value
    assert len(table) == 6 * N_DE
    assert table["seg_id"].head(50).is_unique  # worst first, one pair per source on the first screen
    row = table.iloc[3]
    at.session_state["seg_table"] = {"selection": {"rows": [3], "columns": [], "cells": []}}
    at.run()
    assert not at.exception
    headers = [shown(m.value) for m in at.markdown if m.value.startswith("#### Segment")]
    assert headers == [f"#### Segment {row['seg_id']} · {row['system']}"]  # 1-based, like the file's lines
    body = html_bodies(at)
    ev_text = de_lines("src.txt")[row["seg_id"] - 1]
    assert "Hypothesis (" + row["system"] + ")" in body
    assert ev_text[:20].replace("&", "&amp;").replace('"', "&quot;")[:10] in body
    assert "mtd-align" in body  # the edit alignment


def test_segment_numbers_are_shown_from_1_like_the_file_lines():
    at = start()
    visit(at, "segments").run()
    table = at.dataframe(key="seg_table").value
    assert "seg" not in table.columns
    assert sorted(set(table["seg_id"])) == list(range(1, N_DE + 1))
    visit(at, "waft_neva").run()
    assert sorted(set(at.dataframe(key="wn_table").value["seg_id"])) == list(range(1, N_DE + 1))


@pytest.mark.parametrize("page, filter_key, table_columns, start_set", [
    ("segments", "seg_systems", ("system", "seg_id", "problem"), "wmt21.en-de"),
    ("waft_neva", "wn_systems", ("system", "seg_id", "neva_minus_waft"), "wmt21.en-de"),
    ("terminology", "tm_systems", ("system", "src_term", "missed_in"), "wmt21.en-ja"),
])
def test_switching_sets_resets_the_system_filters(page, filter_key, table_columns, start_set):
    """Issue 11: a "Systems" filter set on one test set must not hide every row of the next one."""
    at = start()
    at.selectbox(key="data_set").set_value(str(SAMPLE / start_set)).run()
    visit(at, page).run()
    first = at.multiselect(key=filter_key).value[0]
    at.multiselect(key=filter_key).set_value([first]).run()
    assert set(table_with(at, *table_columns)["system"]) == {first}
    at.selectbox(key="data_set").set_value(str(SAMPLE / "tico19.en-fr")).run()
    assert not at.exception and not at.error
    tico_systems = ["Fairseq"]
    assert at.multiselect(key=filter_key).value == tico_systems
    table = table_with(at, *table_columns)
    assert set(table["system"]) == set(tico_systems) and len(table) > 0
    if page == "segments":
        assert len(table) == 200 and sorted(table["seg_id"]) == list(range(1, 201))
        assert "200 of 200 rows, worst first" in [shown(c.value) for c in at.caption]


def test_segment_filters_and_flags():
    at = start()
    visit(at, "segments").run()
    at.multiselect(key="seg_flags").set_value(["over_translation"]).run()
    table = at.dataframe(key="seg_table").value
    assert len(table) and table["over_translation"].all()
    at.text_input(key="seg_text").set_value("Hund").run()
    table = at.dataframe(key="seg_table").value
    assert len(table) and table["over_translation"].all()
    assert at.get("download_button")  # CSV + Excel


def test_segment_text_is_escaped_and_shown_literally():
    at = start()
    lines = de_lines("ref.D.txt")
    lines[5] = f"Ein Test {SCRIPT} und {IMG} Ende"
    at.file_uploader(key="up_extra").set_value(lines_file("xss.txt", lines)).run()
    visit(at, "segments").run()
    at.text_input(key="seg_text").set_value("__xss").run()
    table = at.dataframe(key="seg_table").value
    assert list(zip(table["system"], table["seg_id"])) == [("xss", 6)]  # line 6 of the file
    body = html_bodies(at)
    text = re.sub(r"<[^>]+>", "", body)  # what the browser shows: highlights may wrap parts of the text
    assert "&lt;script&gt;window.__xss=1&lt;/script&gt;" in text
    assert "&lt;img src=x onerror=&quot;window.__xss=2&quot;&gt;" in text
    assert "<script>window" not in body and "<img src=x" not in body
    visit(at, "compare").run()
    at.selectbox(key="cmp_a").set_value("xss").run()
    assert "<script>window" not in html_bodies(at)


def test_long_segment_is_shortened_for_display():
    at = start()
    lines = de_lines("ref.D.txt")
    lines[7] = "marker " + " ".join(f"w{i}" for i in range(10_000))
    at.file_uploader(key="up_extra").set_value(lines_file("long.txt", lines)).run()
    visit(at, "segments").run()
    at.text_input(key="seg_text").set_value("marker w0 w1").run()
    assert not at.exception
    body = html_bodies(at)
    assert "shortened for display" in body
    assert len(body) < 200_000
    cell = at.dataframe(key="seg_table").value["hyp"].iloc[0]
    # a grid cell shows what its row's wrapped lines hold and says the text goes on (views.fit_lines)
    assert cell.startswith("marker w0 w1") and cell.endswith("…") and 20 < len(cell) < 400


# ------------------------------------------------------------------------------------------ other views


def test_over_under_ngram_opens_its_segments():
    at = start()
    visit(at, "over_under").run()
    grams = at.dataframe(key="ou_grams_otem").value
    at.session_state["ou_grams_otem"] = {"selection": {"rows": [0], "columns": [], "cells": []}}
    at.run()
    assert not at.exception
    assert any(f"Segments with “{grams.iloc[0]['ngram']}”" in shown(m.value) for m in at.markdown)
    assert "mtd-k-ngram" in html_bodies(at)


def test_ngram_table_opens_its_segments():
    at = start()
    visit(at, "ngrams").run()
    rows = at.dataframe(key="ng_table_ht_only").value
    at.session_state["ng_table_ht_only"] = {"selection": {"rows": [1], "columns": [], "cells": []}}
    at.run()
    assert not at.exception
    assert any(f"Segments with “{rows.iloc[1]['ngram']}”" in shown(m.value) for m in at.markdown)


def test_ngram_with_markup_is_shown_escaped_in_markdown():
    """Issue 11: an n-gram of uploaded text reaches st.markdown escaped (the browser test cannot select a row)."""
    from mtdiag.core.highlight import escape_markdown

    at = start()
    lines = de_lines("ref.D.txt")
    for i in (1, 2, 3):
        lines[i] = f"{lines[i]} ![x](http://127.0.0.1:9/i) [x](javascript:alert(1)) <img src=x onerror=alert(2)>"
    at.file_uploader(key="up_extra").set_value(lines_file("probe.txt", lines)).run()
    visit(at, "ngrams").run()
    at.selectbox(key="ng_system").set_value("probe")
    at.toggle(key="ng_hide").set_value(False)  # the markup n-grams are punctuation: shown only with the toggle off
    at.segmented_control(key="ng_kind").set_value("mt_only").run()
    rows = at.dataframe(key="ng_table_mt_only").value
    marked = [i for i, gram in enumerate(rows["ngram"]) if any(c in gram for c in "<[!(")]
    assert marked, list(rows["ngram"])
    at.session_state["ng_table_mt_only"] = {"selection": {"rows": [marked[0]], "columns": [], "cells": []}}
    at.run()
    assert not at.exception
    gram = rows["ngram"].iloc[marked[0]]
    headers = [m.value for m in at.markdown if m.value.startswith("**Segments with")]
    assert len(headers) == 1 and f"“{escape_markdown(gram)}”" in headers[0] and f"“{gram}”" not in headers[0]
    assert f"“{gram}”" in shown(headers[0])


def test_terminology_explains_without_terms_and_shows_terms_with_them():
    at = start()
    visit(at, "terminology").run()
    # the default sample has terms (the TICO-19 en-de glossaries matched in its sources): every page shows data
    assert table_with(at, "src_term", "occurrences")["occurrences"].sum() > 0
    at.radio(key="data_mode").set_value("Upload files").run()  # an upload without terms
    at.file_uploader(key="up_refs").set_value(lines_file("ref.A.txt", de_lines("ref.A.txt")))
    at.file_uploader(key="up_hyps").set_value(lines_file("sys.txt", de_lines("newstest2021.en-de.UEdin.txt")))
    at.run()
    assert any("no term annotations" in i.value for i in at.info)
    at.radio(key="data_mode").set_value("Test set folder").run()
    path = next(p for p in at.selectbox(key="data_set").options if p.endswith("tico19.en-fr"))
    at.selectbox(key="data_set").set_value(path).run()
    assert not at.exception
    assert table_with(at, "src_term", "occurrences")["occurrences"].sum() > 0
    assert "mtd-k-term_ok" in html_bodies(at) or "mtd-k-term_miss" in html_bodies(at)


def test_compare_two_systems():
    at = start()
    visit(at, "compare").run()
    metrics = table_with(at, "metric", "difference", "better")
    assert {"difference", "p", "significant", "better"} <= set(metrics.columns)
    segs = at.dataframe(key="cmp_segs").value
    assert segs["problem_difference"].abs().is_monotonic_decreasing  # ranking: tests/test_app_grids.py
    assert "mtd-k-diff" in html_bodies(at)


def test_human_likeness_and_human_scores_on_three_references():
    at = start()
    visit(at, "human").run()
    assert at.segmented_control(key="hl_section").value == "human"  # human scores loaded: the page opens on them
    at.segmented_control(key="hl_section").set_value("likeness").run()
    table = table_with(at, "metric", "orange", "king")
    assert set(table["metric"]) == {"waft", "neva", "bleu", "chrf"}
    assert table["orange"].between(0, 1).all()
    at.segmented_control(key="hl_section").set_value("queen").run()
    assert not at.exception
    queen = table_with(at, "system", "queen")
    assert len(queen) == 6 and queen["queen"].between(0, 1).all()
    at.segmented_control(key="hl_section").set_value("human").run()
    assert not at.exception
    agreement = table_with(at, "metric", "seg_pearson", "sys_kendall")
    assert set(agreement["metric"]) == set(table_with(at, "metric", "seg_pearson")["metric"])
    assert len(at.get("plotly_chart")) == 2  # segment and system scatter


def test_human_likeness_explains_what_is_missing():
    at = start()
    path = next(p for p in at.selectbox(key="data_set").options if p.endswith("tico19.en-fr"))
    at.selectbox(key="data_set").set_value(path).run()
    visit(at, "human").run()
    assert at.segmented_control(key="hl_section").value == "errors"  # what one reference without human scores has
    assert not any("needs at least" in i.value for i in at.info)
    assert table_with(at, "metric", "system", "critical", "major", "minor")["metric"].eq("mtdiag").all()
    at.segmented_control(key="hl_section").set_value("likeness").run()
    assert any("needs at least 2 references" in i.value for i in at.info)
    at.segmented_control(key="hl_section").set_value("queen").run()
    assert any("needs at least 3 references" in i.value for i in at.info)
    at.segmented_control(key="hl_section").set_value("human").run()
    assert any("no human scores" in i.value for i in at.info)
    assert not at.exception


# ------------------------------------------------------------------------------------------ caching, --data


def test_widget_clicks_never_recompute_metrics(monkeypatch):
    at = start()
    import mtdiag.ui.reports as ui_reports

    def refuse(*args, **kwargs):
        raise AssertionError("metrics recomputed on a widget click")

    monkeypatch.setattr(ui_reports, "evaluate", refuse)
    at.selectbox(key="ov_baseline").set_value("Online-W").run()
    visit(at, "segments").run()
    at.multiselect(key="seg_systems").set_value(["UEdin"]).run()
    visit(at, "waft_neva").run()
    assert not at.exception, [e.value for e in at.exception]
    # a different option is different numbers: that one does compute
    at.checkbox(key="opt_lowercase").uncheck().run()
    assert at.exception


def test_lower_case_says_beside_it_that_bleu_chrf_and_ter_are_not_affected():
    from mtdiag.ui.options import LOWERCASE_NOTE

    at = start()
    captions = [c.value for c in at.sidebar.caption]
    assert LOWERCASE_NOTE in captions and "BLEU, chrF and TER are not affected" in LOWERCASE_NOTE
    assert at.sidebar.checkbox(key="opt_lowercase").value is True


def test_data_argument_opens_that_folder(tmp_path, monkeypatch):
    folder = tmp_path / "mine.en-fr"
    shutil.copytree(SAMPLE / "tico19.en-fr", folder)
    monkeypatch.setenv("MTDIAG_DATA", str(folder))
    at = start()
    assert at.selectbox(key="data_set").value == str(folder)
    assert "mine.en-fr" in sidebar_text(at)
    assert any(p.endswith("wmt21.en-de") for p in at.selectbox(key="data_set").options)


def test_data_argument_parsing():
    from mtdiag.ui.offered_sets import data_argument

    assert data_argument(["--data", "/x"]) == "/x"
    assert data_argument(["--data=/y"]) == "/y"
    assert data_argument([]) is None


def test_table_exports():
    from mtdiag.report.export import to_csv, to_excel

    frame = pd.DataFrame({"seg": [0, 1], "hyp": ["a\x01b", "<c>"], "segments": [[1, 2], [3]]})
    assert to_csv(frame).decode().splitlines() == ["seg,hyp,segments", "0,a\x01b,1 2", "1,<c>,3"]
    workbook = to_excel(frame)
    back = pd.read_excel(__import__("io").BytesIO(workbook))
    assert list(back["hyp"]) == ["ab", "<c>"]


def test_folder_scan_uses_the_io_naming_rule(tmp_path):
    """The dashboard's folder scan counts what load_folder reads: README/LICENSE/notes are not systems, a prefixed
    ``testset.xx-yy.ref.B.txt`` is a reference; upload names and the language pair come from mtdiag.io too."""
    from mtdiag.ui import offered_sets, uploads

    for name in ("ref.txt", "newstest2021.en-de.ref.B.txt", "README.txt", "LICENSE.txt", "notes.txt",
                 "newstest2021.en-de.Sys.txt", "src.txt", "src.annotated.txt"):
        (tmp_path / name).write_text("a\n", encoding="utf-8")
    assert offered_sets._is_set(tmp_path) and offered_sets._richness(tmp_path) == (2, 1)
    (tmp_path / "ref.txt").unlink()
    (tmp_path / "newstest2021.en-de.ref.B.txt").unlink()
    assert offered_sets._is_set(tmp_path) and offered_sets._richness(tmp_path) == (0, 1)  # source + output: reference-free
    (tmp_path / "src.txt").unlink()
    assert not offered_sets._is_set(tmp_path)
    assert uploads._guess_lang_pair(["HW-TSC.txt", "generaltest2022.en-ja.X.txt"]) == "en-ja"
    assert uploads._guess_lang_pair(["HW-TSC.txt"]) == ""


# ------------------------------------------------------------------------------------------ memory


def test_report_store_drops_unused_reports_and_the_sweep_clears_what_derives_from_them(monkeypatch):
    from mtdiag.ui import state

    store = state._ReportStore(size=2, ttl=100.0)
    a, b, c = object(), object(), object()
    store.put("a", a)
    store.put("b", b)
    store.put("c", c)  # over the size: the least recently used ("a") goes
    assert store.get("a") is None and store.get("b") is b and len(store) == 2
    cleared = []
    monkeypatch.setattr(state, "_PER_UPLOAD", [])
    state.register_per_upload(lambda: cleared.append("uploads"))
    monkeypatch.setattr(st.cache_data, "clear", lambda: cleared.append("frames"))
    monkeypatch.setattr(state, "clear_caches", lambda: cleared.append("scoring caches"))
    now = __import__("time").monotonic()
    assert state.sweep(store, now + 50) == 0 and cleared == []  # both used < 100 s ago: nothing is dropped
    assert state.sweep(store, now + 150) == 2 and len(store) == 0
    assert cleared == ["frames", "uploads", "scoring caches"]


def test_clearing_the_scoring_caches_forgets_every_text():
    from mtdiag.scoring.evaluate import clear_caches
    from mtdiag.metrics.ter import _reference_set, reference_set
    from mtdiag.core.tokenize import TokenizeOptions, _tokenize_cased, _tokenize_lowered, tokenize_text

    assert tokenize_text("Hello, World!", TokenizeOptions(lowercase=True)) == ("hello", ",", "world", "!")
    reference_set([["Hello, World!"]])
    assert _tokenize_cased.cache_info().currsize > 0 and _tokenize_lowered.cache_info().currsize > 0
    assert _reference_set.cache_info().currsize > 0
    clear_caches()
    assert _tokenize_cased.cache_info().currsize == 0 and _tokenize_lowered.cache_info().currsize == 0
    assert _reference_set.cache_info().currsize == 0
    assert tokenize_text("Hello, World!", TokenizeOptions(lowercase=True)) == ("hello", ",", "world", "!")


def test_a_session_keeps_no_report_between_runs():
    """The session holds its Current weakly: the report store is the only owner of a report."""
    at = start()
    import weakref

    assert isinstance(at.session_state["_mtdiag_current"], weakref.ref)
    visit(at, "segments").run()  # the next run finds the report in the store
    assert not at.exception and len(at.dataframe(key="seg_table").value) == 6 * N_DE


def test_no_page_passes_a_lambda_as_format_func():
    """Streamlit keeps a widget's format_func in the session's widget state; a lambda defined in a page carries the
    page's globals (its report), so a closed session would keep the report alive (the memory benchmark found it)."""
    import ast

    offenders = []
    for path in sorted((REPO / "pages").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.keyword) and node.arg == "format_func" and isinstance(node.value, ast.Lambda):
                offenders.append(f"{path.name}:{node.value.lineno}")
    assert offenders == []


def test_one_cached_view_per_function_never_shared_and_not_recomputed():
    """state.view: each wrapped function has its own cache (Streamlit keys on the qualified name), and a second
    call with the same data, options and arguments is served from the cache."""
    from mtdiag.scoring.evaluate import evaluate
    from mtdiag.io import load_folder
    from mtdiag.ui import state

    calls = []

    def first(report, n):
        calls.append(("first", n))
        return f"first {n}"

    def second(report, n):
        calls.append(("second", n))
        return f"second {n}"

    report = evaluate(load_folder(SAMPLE / "tico19.en-fr"), __import__("mtdiag.scoring.evaluate").scoring.evaluate.Options(metrics=("bleu",)))
    current = state.Current(state.Dataset(report.evalset, "k", "folder", "tico"), report.options, report)
    assert state.view(first)(current, 1) == "first 1" and state.view(second)(current, 1) == "second 1"
    assert state.view(first)(current, 1) == "first 1" and state.view(second)(current, n=1) == "second 1"
    assert calls == [("first", 1), ("second", 1), ("second", 1)]  # keyword and positional are different keys
    assert state.view(first) is not state.view(second)


def test_an_upload_over_the_session_budget_is_refused_before_parsing(monkeypatch):
    from mtdiag.ui import state, uploads

    at = start()
    monkeypatch.setattr(state, "SESSION_BUDGET_MB", 0.25)  # a sample reference + system: 42 KB of text
    parsed = []
    monkeypatch.setattr(uploads.mio, "load_files", lambda *args, **kwargs: parsed.append(args) or None)
    at.radio(key="data_mode").set_value("Upload files").run()
    at.file_uploader(key="up_refs").set_value(lines_file("ref.A.txt", de_lines("ref.A.txt")))
    at.file_uploader(key="up_hyps").set_value(lines_file("sys.txt", de_lines("ref.C.txt"))).run()
    assert not at.exception and parsed == []  # refused from the bytes: nothing was parsed
    size = sum(len(line.encode()) + 1 for f in ("ref.A.txt", "ref.C.txt") for line in de_lines(f)) / 2**20
    lines = 2 * (len(de_lines("ref.A.txt")) + 1)  # line breaks + 1 per file: an upper bound of the segments
    expected = (f"These uploads are too large for the dashboard: {size:,.2f} MB of text in 2 files of {lines:,} lines "
                f"needs about {state.footprint_megabytes(size, lines // 2, 2):,.0f} MB with every page drawn, over this "
                "session's memory budget of 0.25 MB (set by the server's MTDIAG_SESSION_BUDGET_MB).")
    errors = [shown(e.value) for e in at.error]
    assert any(e.startswith(expected) and "--dask local:2" in e for e in errors), errors


def test_a_loaded_set_over_the_session_budget_is_not_scored():
    """The check before scoring (a folder set, or one with added systems): SESSION_MB, text x FOOTPRINT_FACTOR,
    SEGMENT_BYTES per segment, PAIR_BYTES per (system, segment) and SYSTEM_BYTES per system (issue 39: systems x
    segments, measured on every page)."""
    from mtdiag.io import load_folder
    from mtdiag.ui import state

    evalset = load_folder(DE)
    data = state.Dataset(evalset, "k", "folder", "de")
    size = state.text_megabytes(evalset)
    need = (state.SESSION_MB + size * state.FOOTPRINT_FACTOR + (evalset.n_segments * state.SEGMENT_BYTES
                                                                 + evalset.n_segments * 6 * state.PAIR_BYTES
                                                                 + 6 * state.SYSTEM_BYTES) / 2**20)
    assert state.over_budget(data, budget_mb=need + 0.01) is None
    message = state.over_budget(data, budget_mb=need - 0.01)
    assert message.startswith(f"This data is too large for the dashboard: {size:,.2f} MB of text (6 systems, "
                              f"3 references, 117 segments) needs about {need:,.0f} MB with every page drawn")

"""A view added through the views registry alone — one declaration and one registry entry, no layout, no other edit
— reaches every surface: the dashboard's navigation and its generic page (its option widgets, its tables with their
downloads, its chart), ``mtdiag view`` (``--list``, its options as flags, its tables as JSON and TSV) and the HTML
report (its section and the table of contents)."""

from __future__ import annotations

import json
import re

import pandas as pd
import pytest

from mtdiag import views
from mtdiag.scoring.evaluate import evaluate
from mtdiag.cli import main
from mtdiag.core.evalset import evalset_from_lists
from mtdiag.io import load_folder
from mtdiag.report.html_report import html_report
from mtdiag.ui.navigation import layout
from mtdiag.views import Chart, Table, View, ViewOption
from mtdiag.views.base import systems
from tests.conftest import SAMPLE
from tests.test_app import start, table_with, visit  # noqa: F401  (the dashboard tests' autouse fixtures too)
from tests.test_cli import run_cli

DE = SAMPLE / "wmt21.en-de"


def word_counts(report) -> pd.DataFrame:
    """Words (whitespace-separated) of every output: index segment, one column per system."""
    return report.evalset.hyps.astype(str).apply(lambda texts: texts.str.split().str.len())


def per_system(report, chosen) -> pd.DataFrame:
    counts = word_counts(report)
    kept = counts[counts >= chosen["min_words"]]
    return pd.DataFrame({"system": counts.columns, "outputs": kept.count().to_numpy(),
                         "mean_words": kept.mean().to_numpy()})


def longest(report, chosen) -> pd.DataFrame:
    counts = word_counts(report)[chosen["system"]]
    return pd.DataFrame({"seg": counts.index, "words": counts.to_numpy()}).nlargest(3, "words", keep="first")


def bars(report, chosen):
    import plotly.graph_objects as go

    frame = per_system(report, chosen)
    return go.Figure(go.Bar(x=frame["system"], y=frame["mean_words"]))


LENGTHS = View(
    name="lengths", title="Lengths", help="how many words each system writes",
    options=(ViewOption("system", "System", "the system whose longest outputs are listed", choices=systems),
             ViewOption("min_words", "Minimum words", "outputs shorter than this are left out of the means",
                        type=int, default=1, minimum=0, maximum=1000)),
    tables=(Table("per_system", "Words per system", per_system), Table("longest", "Longest outputs", longest)),
    charts=(Chart("bars", "Mean words per output", bars),),
)


@pytest.fixture
def lengths():
    with views.registered(LENGTHS):
        yield LENGTHS


def expected(report, min_words: int = 1) -> dict[str, float]:
    """Mean words per output of every system, counted here by hand."""
    return {system: sum(n for n in (len(t.split()) for t in report.evalset.hyps[system].astype(str)) if n >= min_words)
            / sum(1 for t in report.evalset.hyps[system].astype(str) if len(t.split()) >= min_words)
            for system in report.evalset.systems}


def test_a_registered_view_has_a_page_with_its_widgets_tables_downloads_and_chart(lengths):
    whole = evaluate(load_folder(DE))
    at = start()
    assert layout("lengths") is None  # no page of its own: the generic page draws it
    visit(at, "lengths").run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.title[0].value == "Lengths"
    assert [s.value for s in at.main.subheader] == ["Mean words per output", "Words per system", "Longest outputs"]
    means = table_with(at, "outputs", "mean_words").set_index("system")["mean_words"]
    assert means.to_dict() == pytest.approx(expected(whole))
    assert at.selectbox(key="lengths_system").value == whole.evalset.systems[0]  # the declared default: the first
    at.number_input(key="lengths_min_words").set_value(20).run()
    means = table_with(at, "outputs", "mean_words").set_index("system")["mean_words"]
    assert means.to_dict() == pytest.approx(expected(whole, 20))
    at.selectbox(key="lengths_system").set_value("UEdin").run()
    longest_outputs = table_with(at, "words")
    assert longest_outputs["words"].tolist() == sorted(word_counts(whole)["UEdin"], reverse=True)[:3]
    downloads = {b.proto.id for b in at.get("download_button")}
    for table in ("per_system", "longest"):
        assert any(f"dl_csv_lengths_{table}" in d for d in downloads), downloads
        assert any(f"dl_xlsx_lengths_{table}" in d for d in downloads), downloads
    assert len(at.get("plotly_chart")) == 1


def test_a_registered_view_is_a_command(lengths, capsys):
    code, out, _ = run_cli(capsys, "view", "--list", "--format", "json")
    assert code == 0 and "lengths" in [v["name"] for v in json.loads(out)]
    with pytest.raises(SystemExit):
        main(["view", "lengths", "--help"])
    out = capsys.readouterr().out
    assert "options of view lengths" in out and "--min-words MIN_WORDS" in out and "--system SYSTEM" in out
    code, out, err = run_cli(capsys, "view", "lengths", "--testset", str(DE), "--metrics", "bleu", "--min-words", "20",
                             "--system", "UEdin", "--format", "json")
    assert code == 0, err
    printed = json.loads(out)
    assert printed["options"] == {"system": "UEdin", "min_words": 20}
    whole = evaluate(load_folder(DE))
    means = {row["system"]: row["mean_words"] for row in printed["tables"]["per_system"]}
    assert means == pytest.approx(expected(whole, 20))
    code, out, _ = run_cli(capsys, "view", "lengths", "--testset", str(DE), "--metrics", "bleu", "--table",
                           "per_system", "--format", "tsv")
    lines = out.splitlines()
    assert code == 0 and lines[0] == "system\toutputs\tmean_words" and len(lines) == 1 + len(whole.evalset.systems)
    code, _, err = run_cli(capsys, "view", "lengths", "--testset", str(DE), "--metrics", "bleu", "--system", "nope")
    assert code == 1 and err.startswith("mtdiag: error: --system 'nope': choose one of ") and err.count("\n") == 1


def test_a_registered_view_has_a_report_section_and_an_entry_in_its_contents(lengths):
    refs = {"A": ["a b c d", "e f", "g h i"]}
    report = evaluate(evalset_from_lists(refs, {"short": ["a b", "e", "g"], "long": ["a b c d e", "e f g", "g h i j"]}))
    page = html_report(report, top=2, n=50)
    contents = re.search(r"<nav>(.*?)</nav>", page).group(1)
    anchors = re.findall(r'href="#(\w+)"', contents)
    assert anchors[:2] == ["overview", "worst"] and anchors[-1] == "signatures"  # what the report leads and ends with
    assert "lengths" in anchors and 'id="lengths"' in page  # the new view's section, wherever the registry puts it
    section = page[page.index('<h2 id="lengths">'):page.index('<h2 id="signatures">')]
    assert "Words per system" in section and "Longest outputs" in section and section.count("plotly-graph-div") == 1
    assert re.search(r"<td>short</td>\s*<td>3</td>\s*<td>1\.3333</td>", section)  # (2 + 1 + 1) / 3 words
    assert re.search(r"<td>long</td>\s*<td>3</td>\s*<td>4\.0000</td>", section)   # (5 + 3 + 4) / 3 words


def test_without_the_entry_no_surface_has_it():
    report = evaluate(evalset_from_lists({"A": ["a b"]}, {"s": ["a"]}))
    assert "lengths" not in views.REGISTRY
    assert 'id="lengths"' not in html_report(report, top=1, n=20)


# ------------------------------------------------------------------------------------------ every view's command


@pytest.fixture(scope="module")
def sample_report():
    return evaluate(load_folder(DE))


def test_the_list_names_every_view(capsys):
    code, out, _ = run_cli(capsys, "view", "--list", "--format", "tsv")
    rows = [line.split("\t") for line in out.splitlines()[1:]]
    assert code == 0 and [(row[0], row[1]) for row in rows] == [(v.name, v.title) for v in views.REGISTRY.values()]


@pytest.mark.parametrize("name", list(views.REGISTRY))
def test_every_view_prints_the_tables_of_its_page(name, capsys, sample_report):
    """``mtdiag view NAME --format json`` on the sample set: the options the page starts from and exactly the tables
    the view computes from them (the tables the data cannot give are named on stderr)."""
    from mtdiag.report.export import to_json_records

    code, out, err = run_cli(capsys, "view", name, "--testset", str(DE), "--format", "json")
    assert code == 0, err
    printed, view = json.loads(out), views.REGISTRY[name]
    chosen = view.resolve(sample_report)
    assert printed["view"] == name and printed["options"] == json.loads(json.dumps(chosen))
    frames = view.frames(sample_report, chosen)
    assert list(printed["tables"]) == list(frames) and frames
    for table, frame in frames.items():
        assert printed["tables"][table] == json.loads(json.dumps(to_json_records(frame), ensure_ascii=False)), table
    assert all(f"table {t.name}" in err for t in view.tables if t.name not in frames)


def test_likeness_is_the_human_views_earlier_name(capsys):
    """``mtdiag view likeness`` (the view's name before issue 38) is the Human view, documented as such."""
    args = ["--testset", str(DE), "--metrics", "bleu", "--table", "queen", "--format", "json"]
    code, out, err = run_cli(capsys, "view", "likeness", *args)
    assert code == 0, err
    code, human, _ = run_cli(capsys, "view", "human", *args)
    assert json.loads(out) == json.loads(human) and json.loads(out)["view"] == "human"
    with pytest.raises(SystemExit):
        main(["view", "--help"])
    assert "likeness: the human view" in " ".join(capsys.readouterr().out.split())  # however argparse wraps it


# ------------------------------------------------------------------------- segment ids on slices, the one way


def _first_words(report, chosen, *, fill_from_the_set: bool) -> pd.DataFrame:
    """The first word of every output of the first system, its segment named by position (``seg``) — or, the trap,
    its ``seg_id`` filled from ``EvalSet.seg_ids``."""
    system = report.evalset.systems[0]
    words = report.evalset.hyps[system].astype(str).str.split().str[0].to_numpy()
    if fill_from_the_set:
        return pd.DataFrame({"seg_id": report.evalset.seg_ids, "word": words})
    return pd.DataFrame({"seg": range(report.evalset.n_segments), "word": words})


def test_a_view_names_the_segments_of_a_slice_by_their_ids_in_the_set():
    """Rendered on a slice, a view that names segments by position shows their ids in the whole set; one that
    fills ``seg_id`` from ``EvalSet.seg_ids`` gets one line naming the table and the rule, not a raw IndexError
    (:func:`test_a_view_that_fills_seg_id_itself_is_refused_on_the_whole_set_too`: on any report)."""
    from mtdiag.slices import slice_report

    right = View(name="first_words", title="First words", help="the first word of each output",
                 tables=(Table("words", "First words", lambda r, c: _first_words(r, c, fill_from_the_set=False)),))
    trap = View(name="first_words_trap", title="First words", help="the first word of each output",
                tables=(Table("words", "First words", lambda r, c: _first_words(r, c, fill_from_the_set=True)),))
    whole = evaluate(load_folder(DE))
    sliced = slice_report(whole, [4, 16, 39])  # segments 5, 17 and 40 of the set
    with views.registered(right), views.registered(trap):
        shown = views.REGISTRY["first_words"].frames(sliced, {})["words"]
        assert shown["seg_id"].tolist() == [5, 17, 40]
        first = whole.evalset.hyps[whole.evalset.systems[0]].astype(str).str.split().str[0]
        assert shown["word"].tolist() == [first.iat[4], first.iat[16], first.iat[39]]
        with pytest.raises(ValueError, match=TRAP):
            views.REGISTRY["first_words_trap"].frames(sliced, {})


TRAP = (r"^table 'words': a builder names segments by their 0-based position, as seg \(a column or an index level\), "
        r"never as seg_id — the set's ids are added for you \(mtdiag\.views\.with_set_ids\)$")
"""The one line a view that fills ``seg_id`` itself gets, on any report."""


def test_a_view_that_fills_seg_id_itself_is_refused_on_the_whole_set_too():
    """The trap shows on the first run on any data: a builder's ``seg_id`` filled from ``EvalSet.seg_ids`` (right
    by chance on a whole set, whose ids are the positions from 1) is refused on the whole set as on a slice, in one
    line naming the table and the rule — also as an index level."""
    trap = View(name="first_words_trap", title="First words", help="the first word of each output",
                tables=(Table("words", "First words", lambda r, c: _first_words(r, c, fill_from_the_set=True)),))
    indexed = View(name="first_words_indexed", title="First words", help="the first word of each output",
                   tables=(Table("words", "First words", lambda r, c: _first_words(
                       r, c, fill_from_the_set=True).set_index("seg_id")),))
    whole = evaluate(load_folder(DE))
    with views.registered(trap), views.registered(indexed):
        for name in ("first_words_trap", "first_words_indexed"):
            with pytest.raises(ValueError, match=TRAP):
                views.REGISTRY[name].frames(whole, {})

"""The shareable HTML report (mtdiag.report.html_report, ``mtdiag report``): every system, the clusters, escaped user text,
nothing that points outside the file."""

from __future__ import annotations

import re

import pytest

from mtdiag.report import html_report as html
from mtdiag.analysis import significance
from mtdiag import views
from mtdiag.scoring.evaluate import evaluate
from mtdiag.core.evalset import evalset_from_lists
from tests.conftest import SAMPLE
from tests.test_cli import run_cli

EVIL = "</script><script>alert(1)</script>"
REFS = {"A": ["the cat sat on the mat .", "a dog runs in the park .", "it rains today .", "we like <b>tea</b> ."] * 5}
HYPS = {
    "good": list(REFS["A"]),
    EVIL: ["the cat cat cat sat .", "a dog in park .", "rain today .", "we like <script>alert(2)</script> ."] * 5,
    "mid": ["the cat sat on a mat .", "a dog runs in a park .", "it rains .", "we like tea ."] * 5,
}
SRC = ["le chat .", "un chien .", "il pleut .", "<img src=x onerror=alert(3)>"] * 5


@pytest.fixture(scope="module")
def page():
    report = evaluate(evalset_from_lists(REFS, HYPS, src=SRC))
    return report, html.html_report(report, top=10, n=200)


def _outside_scripts(text: str) -> str:
    return re.sub(r"<script>.*?</script>", "", text, flags=re.S)


def test_every_system_and_section_is_there(page):
    report, text = page
    markup = _outside_scripts(text)
    for system in ("good", "mid", "&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;"):
        assert system in markup
    for anchor in ("overview", "significance", "buckets", "worst", "signatures"):
        assert f'id="{anchor}"' in markup
    clusters = significance.ranked_clusters(report, significance.pairwise_significance(report, "bs", 200))
    assert clusters[clusters["metric"] == "chrf"].iloc[0]["system"] == "good"
    assert markup.count('class="seg"') == 10


def test_user_text_is_escaped_never_markup(page):
    _, text = page
    markup = _outside_scripts(text)
    assert "<script>alert" not in markup and "<img src=x" not in markup and "<b>tea</b>" not in markup
    assert "&lt;script&gt;" in markup  # the output with a script element, shown as text
    assert "&lt;img src=x onerror=alert(3)&gt;" in markup
    # nowhere, not even inside plotly's figure JSON, does the system name close a script element
    assert EVIL not in text
    assert text.count("<script>") == text.count("</script>")


def test_nothing_points_outside_the_file(page):
    _, text = page
    markup = _outside_scripts(text)
    links = re.findall(r'(?:src|href)\s*=\s*"([^"]*)"', markup)
    assert links and all(link.startswith(("#", "data:")) for link in links)  # data: a long table's rows, in the file
    assert "Content-Security-Policy" in text and "default-src 'none'" in text
    assert text.count("plotly.js v") >= 1 and text.count("<script>") >= 2  # plotly inlined once, figures after


def test_cli_writes_the_report(capsys, tmp_path):
    out = tmp_path / "report.html"
    code, stdout, err = run_cli(capsys, "report", "--testset", str(SAMPLE / "wmt21.en-de"), "-o", str(out),
                                "--top", "5")
    assert code == 0 and stdout == ""
    assert f"wrote {out}" in err
    text = out.read_text(encoding="utf-8")
    for system in ("UEdin", "Online-W", "VolcTrans-GLAT"):
        assert system in text
    assert _outside_scripts(text).count('class="seg"') == 5


def test_cli_report_errors_are_one_line(capsys, tmp_path):
    code, _, err = run_cli(capsys, "report", "--testset", str(tmp_path / "missing"), "-o", str(tmp_path / "r.html"))
    assert code == 1 and err.startswith("mtdiag: error: ") and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "r.html").exists()


def test_overview_offers_the_report_download():
    from tests.test_app import start

    at = start()
    assert not at.exception
    buttons = at.get("download_button")
    assert any("Download HTML report" in str(b.proto.label) for b in buttons)


def test_the_report_opens_with_the_scores_then_the_worst_segments_and_ranks_by_people_when_it_can():
    """A 315-segment set made a 38,000-pixel page whose worst segments came after 8,500 pixels of tables, ranked by
    chrF although human scores were loaded. Now: the corpus scores, then the worst segments (the first ten open, the
    others behind one fold), long tables cut with every row as a CSV in the file, the systems ranked by the human
    score when there is one, and a legend of only the marks shown."""
    import base64

    from mtdiag.io import load_folder

    report = evaluate(load_folder(SAMPLE / "wmt21.en-de"))
    text = html.html_report(report, top=20, n=100)
    headings = re.findall(r'<h2 id="([^"]+)"', text)
    assert headings[:2] == ["overview", "worst"] and headings[-1] == "signatures"
    assert "Systems ranked by the human score" in text
    ranking = re.search(r"human ↑.*?</table>", text, flags=re.S).group(0)
    means = report.evalset.human.groupby("system")["score"].mean().reindex(report.evalset.systems)
    best_first = list(means.sort_values(ascending=False).index)
    assert [s for s in re.findall(r"<th>([^<]+)</th>\s*<td>", ranking) if s in best_first] == best_first
    worst = text[text.index('<h2 id="worst"'):text.index("<h2", text.index('<h2 id="worst"') + 5)]
    opened, folded = worst.split("<details><summary>The next 10 segments</summary>")
    assert opened.count('<div class="seg">') == 10 and folded.count('<div class="seg">') == 10
    legend = re.search(r'<div class="mtd-legend">(.*?)</div>', worst).group(1)
    shown_kinds = set(re.findall(r"mtd-k-(\w+)", worst.replace(legend, "")))
    assert set(re.findall(r"mtd-k-(\w+)", legend)) == shown_kinds
    # a table longer than ROWS_SHOWN rows: its first rows, and every row as a CSV inside the file
    long = html._table(report.segments.reset_index().head(60), name="segments")
    assert long.count("<tr>") == html.ROWS_SHOWN and "The first 25 of 60 rows" in long  # the header row is styled
    data = re.search(r'download="segments.csv" href="data:text/csv;charset=utf-8;base64,([^"]+)"', long).group(1)
    assert base64.b64decode(data).decode("utf-8").count("\r\n") == 61  # the header and every row


def test_the_reports_bar_charts_rank_the_systems_like_its_table():
    """Issue 37: the Overview's table ranked the systems (by the human score here) while every bar chart under it
    listed them in the set's (alphabetical) order; the bars now follow the table."""
    import json

    from mtdiag.io import load_folder

    report = evaluate(load_folder(SAMPLE / "wmt21.en-de"))
    writing = html.Writing(top=0, method="bs", n=200, seed=0, say=lambda step: None)
    section = html._overview_sections(report, views.REGISTRY["overview"], writing)[0].html
    table = re.search(r"human ↑.*?</table>", section, flags=re.S).group(0)
    ranked = [s for s in re.findall(r"<th>([^<]+)</th>\s*<td>", table) if s in report.evalset.systems]
    assert ranked != sorted(ranked)  # the human ranking is not the alphabetical order, so the test can tell them apart
    traces = json.loads(re.search(r"Plotly\.newPlot\(\s*\"[^\"]+\",\s*(\[.*?\]),\s*\{", section, flags=re.S).group(1))
    assert len(traces) == len(report.metrics)
    assert all(trace["x"] == ranked for trace in traces)


def test_the_worst_segments_are_bounded_and_their_size_estimated_before_they_are_built(page, monkeypatch, capsys,
                                                                                         tmp_path):
    report, _ = page
    built = html._worst(report, 20)
    assert html.worst_megabytes(report, 20) >= len(built.encode()) / 2**20  # an upper bound of what is written
    code, _, err = run_cli(capsys, "report", "--testset", str(SAMPLE / "wmt21.en-de"), "-o", str(tmp_path / "r.html"),
                           "--top", "1001")
    assert (code, err) == (1, "mtdiag: error: --top 1,001: from 1 to 1,000 worst segments\n")
    monkeypatch.setattr(html, "MAX_WORST_MB", 0.01)
    monkeypatch.setattr(html, "_worst", lambda *args: pytest.fail("built before its size was known"))
    with pytest.raises(ValueError, match=r"^--top 20: the worst segments would take about 0 MB of the report; "
                                         r"at most 0.01 MB: show fewer$"):
        html.html_report(report, top=20)

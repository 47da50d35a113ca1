"""A shareable report: one self-contained HTML file with a section for every view of :data:`mtdiag.views.REGISTRY`
that declares one (``View.in_report``), in the registry's order, and a table of contents of them: the overview and
the ranked significance, the worst segments with their evidence — human and metric error spans marked — and the
user's tags, buckets, and, when error annotations are loaded, the human error statistics per category and rater
(:mod:`mtdiag.errorstats`); then the metric signatures (``docs/report.md``). A view without a section of its own
here (:data:`SECTIONS`) gets the generic one: its named tables and its charts, with the options its page starts
from.

For a colleague who won't run a server (compare-mt's HTML report is the model): everything is in the file —
plotly's JavaScript inlined once, the CSS inline — and nothing is fetched: the page carries a Content-Security-Policy
that forbids every network request (``default-src 'none'``), and no ``src``/``href`` points outside the file.

Every user-derived string (test-set name, system and reference names, texts, file names) is HTML-escaped
(:func:`mtdiag.highlight.escape`; tables through pandas' escaping ``to_html``); texts with evidence are drawn by
:mod:`mtdiag.highlight`, which escapes too; plotly figures come from :mod:`mtdiag.charts`, which escapes names and
never puts one into a hover template. Nothing here computes a metric: the numbers are the report's, the
significance :func:`mtdiag.significance.pairwise_significance`'s, the tables the views' (:mod:`mtdiag.views`).
"""

from __future__ import annotations

import base64
import datetime as _dt
from dataclasses import dataclass
from typing import Callable

import pandas as pd

from mtdiag import __version__, charts, significance, errorstats, highlight, triage, views
from mtdiag import human as human_scores
from mtdiag.metrics import metric_info
from mtdiag.spans import DEFAULT_THRESHOLD, predict_spans
from mtdiag.tags import tag_labels, tag_summary
from mtdiag.views import buckets, human, overview, segments
from mtdiag.views.detail import segment_detail

DEFAULT_TOP = 50  # worst segments shown
WORST_OPEN = 10  # of them, shown open; the others behind one "the next …" fold
ROWS_SHOWN = 25  # rows of a table shown; a longer one says so and links its every row as a CSV inside the file
LEAD = ("overview", "worst")
"""The sections the report opens with, in this order — the corpus scores, then the worst segments — before the
others in the registry's order: a reader looks for the worst outputs first, not at the 27th bucket table."""
CSP = ("default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; "
       "font-src data:; connect-src 'none'; form-action 'none'; base-uri 'none'")
PAGE_STYLE = """<style>
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0 auto;max-width:1200px;padding:1rem 2rem;
color:#111;background:#fff;}
h1{font-size:1.6rem;margin-bottom:0.2rem;} h2{margin-top:2.2rem;border-bottom:1px solid #ddd;padding-bottom:0.2rem;}
h3{margin-bottom:0.3rem;} .meta{color:#555;font-size:0.9rem;}
table.mtd{border-collapse:collapse;font-size:0.85rem;margin:0.4rem 0 1rem 0;}
table.mtd th,table.mtd td{border:1px solid #ddd;padding:2px 6px;text-align:right;vertical-align:top;}
table.mtd th{background:#f5f5f5;} table.mtd td:first-child,table.mtd th:first-child{text-align:left;}
.seg{border:1px solid #ddd;border-radius:6px;padding:0.5rem 0.8rem;margin:0.8rem 0;}
.seg h3{font-size:1rem;} .flags{color:#b91c1c;font-size:0.85rem;} .small{font-size:0.8rem;color:#555;}
nav a{margin-right:1rem;}
</style>"""


def _table(frame: pd.DataFrame, places: int = 4, index: bool = False, *, name: str = "table") -> str:
    """A frame as an escaped HTML table (numbers with ``places`` decimals, blanks for undefined values). A frame of
    more than :data:`ROWS_SHOWN` rows shows its first ones and links every row as a CSV carried in the file
    (``name.csv``, safe for spreadsheets: :func:`mtdiag.export.to_csv`) — no table fills thousands of pixels."""
    shown = frame.head(ROWS_SHOWN) if len(frame) > ROWS_SHOWN else frame
    out = shown.to_html(index=index, escape=True, na_rep="", border=0, classes="mtd",
                        float_format=lambda v: f"{v:.{places}f}")
    if len(shown) < len(frame):
        from mtdiag.export import to_csv

        whole = frame.reset_index() if index else frame
        data = base64.b64encode(to_csv(whole)).decode("ascii")
        out += (f'<p class="small">The first {len(shown):,} of {len(frame):,} rows. <a download='
                f'"{highlight.escape(name)}.csv" href="data:text/csv;charset=utf-8;base64,{data}">Every row (CSV)'
                "</a></p>")
    return out


def _figure(fig) -> str:
    """A plotly figure as a ``<div>`` and its drawing script (plotly.js itself is inlined once in the page)."""
    return fig.to_html(full_html=False, include_plotlyjs=False, include_mathjax=False,
                       config={"displaylogo": False, "responsive": True})


def _header(report, title: str, contents: list[tuple[str, str]]) -> str:
    """The title, the test set's facts, and the table of contents: ``(anchor, label)`` of every section."""
    ev = report.evalset
    facts = [f"{ev.n_segments:,} segments", f"{len(ev.systems)} systems", f"{len(ev.ref_names)} reference(s)"]
    if ev.lang_pair:
        facts.insert(0, ev.lang_pair)
    created = _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    links = "".join(f'<a href="#{anchor}">{highlight.escape(label)}</a>' for anchor, label in contents)
    return (f"<h1>{highlight.escape(title)}</h1>"
            f'<p class="meta">{highlight.escape(" · ".join(facts))} · made with mtdiag {highlight.escape(__version__)}'
            f" on {created}</p>"
            f'<p class="meta">Systems: {highlight.escape(", ".join(ev.systems))}. '
            f'References: {highlight.escape(", ".join(ev.ref_names))}.</p>'
            f"<nav>{links}</nav>")


def _primary(report) -> str | None:
    """The metric systems are ranked and buckets drawn by (:func:`mtdiag.views.default_metric` among the metrics
    with a direction)."""
    return views.default_metric(overview.ranking_metrics(report))


def _overview(report) -> str:
    """The corpus scores, the systems ranked by the human score when there is one, else by the primary metric; the
    bar charts in the table's order (they were in the set's order while the table was ranked, issue 37)."""
    corpus = overview.corpus_table(report)
    primary = _primary(report)
    shown = overview.ranked_by_people(report, primary)
    ranked = corpus.reindex(shown.index)
    for metric in shown.columns:
        shown[metric] = ([human_scores.format_score(v) for v in shown[metric]] if metric == "human"
                         else [metric_info(metric, report).format(v) for v in shown[metric]])
    best = overview.best_systems(corpus, report)
    by = ("the human score (each system's mean over its rated outputs; higher is better)" if "human" in shown
          else highlight.escape(metric_info(primary, report).label if primary else "name"))
    return ("<h2 id=\"overview\">Overview: corpus scores</h2>"
            f"<p>Systems ranked by {by}. Best per metric:</p>"
            + _table(best, index=False, name="best_per_metric")
            + _table(shown.rename(columns=lambda m: "human ↑" if m == "human" else metric_info(m, report).arrow_label),
                     index=True, name="corpus_scores")
            + _figure(charts.corpus_bars(ranked, overview.best_mask(ranked, report), within=report)))


def _significance(report, method: str, n: int | None, seed: int | None) -> str:
    if len(report.evalset.systems) < 2:
        return "<h2 id=\"significance\">Ranked significance</h2><p>One system: nothing to compare.</p>"
    pairwise = significance.pairwise_significance(report, method, n, seed)
    clusters = significance.ranked_clusters(report, pairwise)
    attrs = pairwise.attrs
    parts = ["<h2 id=\"significance\">Ranked significance</h2>",
             f"<p>Per metric, systems best first; a system opens a new cluster when it is significantly worse than "
             f"the one above it (paired {'bootstrap' if method == 'bs' else 'approximate randomisation'}, "
             f"{attrs['n']:,} samples, p &lt; {attrs['alpha']}). The matrix gives the p-value of each pair.</p>"]
    from mtdiag.export import pairwise_matrix

    matrix = pairwise_matrix(pairwise)
    for metric, rows in clusters.groupby("metric", sort=False):
        info = metric_info(metric, report)
        rows = rows.assign(score=[info.format(v) for v in rows["score"]])
        parts.append(f"<h3>{highlight.escape(info.arrow_label)}</h3>")
        parts.append(_table(rows.drop(columns="metric"), places=3, name=f"clusters_{metric}"))
        parts.append('<details><summary class="small">p-values, system × system</summary>'
                     + _table(matrix.loc[metric], places=3, index=True, name=f"pvalues_{metric}") + "</details>")
    return "".join(parts)


def _buckets(report) -> str:
    parts = ["<h2 id=\"buckets\">Buckets</h2>",
             "<p>Every metric per group of segments, by its corpus formula inside the group.</p>"]
    metric = _primary(report)
    dimensions = ["src_length"] if "src" in report.evalset.segments.columns else ["ref_length"]
    if "doc" in report.evalset.segments.columns:
        dimensions.append("label:doc")
    for by in dimensions:
        table = buckets.bucket_table(report, by)
        parts.append(f"<h3>By {highlight.escape(by.replace('label:', '').replace('_', ' '))}</h3>")
        parts.append(_table(table, places=2, name=f"buckets_{by.replace(':', '_')}"))
        if metric is not None:
            parts.append(_figure(charts.bucket_bars(table, metric, within=report)))
    return "".join(parts)


def _errors(report) -> str:
    """The human error statistics (:mod:`mtdiag.errorstats`) when annotations are loaded: errors per system and
    top-level category, per rater, and the categories where two systems differ significantly."""
    ev = report.evalset
    counts = errorstats.category_counts(ev, "top")
    raters = errorstats.rater_table(ev)
    category_tests = errorstats.category_significance(ev, "top")
    attrs = category_tests.attrs
    shown = category_tests[category_tests["significant"]]
    note = f" Note: {raters.attrs['note']}." if raters.attrs.get("note") else ""
    return ('<h2 id="errors">Human errors per category and rater</h2>'
            "<p>Errors of every rater per system and top-level category; per_100: errors per 100 rated segments.</p>"
            + _table(counts, places=2, name="errors_per_category")
            + f"<h3>Per rater</h3><p>Mean MQM score: minus the summed error weights of each rated output.{highlight.escape(note)}</p>"
            + _table(raters, places=2, name="errors_per_rater")
            + "<h3>Significant differences per category</h3>"
            f"<p>Exact paired permutation test (sign flip) of the per-segment error count, Holm-corrected over "
            f"{attrs['tests']:,} tests; "
            f"{len(shown)} pair(s) differ at p_holm &lt; {attrs['alpha']}.</p>"
            + (_table(shown, places=4, name="significant_categories") if len(shown) else "")
            + '<details><summary class="small">every pair and category</summary>'
            + _table(category_tests, places=4, name="category_tests") + "</details>")


def _worst(report, top: int, threshold: float = DEFAULT_THRESHOLD) -> str:
    """The ``top`` worst segments with their evidence marked: the human and metric error spans, and the error
    spans mtdiag predicts with a confidence of at least ``threshold``."""
    queue = segments.queue(report).head(top)
    predict_spans(report, threshold)  # every output's at once: then each segment below reads its rows from them
    ev = report.evalset
    score_metrics = segments.score_columns(report)
    labels = (tag_labels(ev.tags, queue["seg_id"].to_numpy(), queue["system"].astype(str).to_numpy())
              if _has_tags(report) else None)  # the report's own segment numbers, as its (maybe sliced) tags
    boxes, kinds = [], set()
    for i, (_, row) in enumerate(queue.iterrows()):
        system, seg = str(row["system"]), int(row["seg_id"]) - 1
        detail = segment_detail(report, system, seg, threshold)
        kinds.update(span.kind for span in detail.hyp_spans)
        kinds.update(span.kind for spans in detail.ref_spans.values() for span in spans)
        scores = ", ".join(f"{metric_info(m, report).label} {metric_info(m, report).format(row[m])}"
                           for m in score_metrics
                           if pd.notna(row[m]))
        human = f" · human {human_scores.format_score(row['human'])}" if pd.notna(row.get("human")) else ""
        flags = f'<div class="flags">flags: {highlight.escape(row["flags"])}</div>' if row.get("flags") else ""
        if row.get("critical"):
            flags += (f'<div class="flags">critical: {highlight.escape(row["critical"])} (ahead of outputs with a '
                      "higher problem score)</div>")
        if labels is not None and labels[i]:
            flags += f'<div class="flags">tags: {highlight.escape(labels[i])}</div>'
        texts = [highlight.render_text(ev.src.iat[seg], label="Source")] if str(ev.src.iat[seg]).strip() else []
        for name, tokens in detail.refs.items():
            texts.append(highlight.render_marked_text(ev.refs.at[seg, name], tokens.shown, detail.ref_spans[name],
                                                      label=f"Reference {name}"))
        texts.append(highlight.render_marked_text(ev.hyps.at[seg, system], detail.hyp.shown, detail.hyp_spans,
                                                  label=f"Output ({system})"))
        boxes.append(f'<div class="seg"><h3>Segment {ev.seg_ids[seg]} · {highlight.escape(system)} · problem '
                     f"{row['problem']:.3f}{highlight.escape(human)}</h3>{flags}"
                     f'<div class="small">{highlight.escape(scores)}</div>{"".join(texts)}</div>')
    rest = boxes[WORST_OPEN:]
    return (f"<h2 id=\"worst\">The {len(queue)} worst segments</h2>"
            f"<p>Worst first, in the order of <code>mtdiag triage</code> (one pair per source first) — the "
            f"{highlight.escape(triage.PROBLEM_TEXT)} — with the evidence marked; the error spans mtdiag predicts "
            f"(a dotted line over the words) at a confidence of at least {threshold:.2f}.</p>"
            + highlight.render_legend([kind for kind in highlight.KINDS if kind in kinds])
            + "".join(boxes[:WORST_OPEN])
            + (f'<details><summary>The next {len(rest)} segments</summary>{"".join(rest)}</details>' if rest else ""))


def _span_counts(report, threshold: float) -> str:
    """Error spans per system and severity: predicted by mtdiag at ``threshold`` and by imported metrics."""
    return ('<h2 id="spans">Error spans per system and severity</h2>'
            f"<p>Critical, major and minor error spans per system: those mtdiag predicts (metric mtdiag, confidence "
            f"at least {threshold:.2f}), those the raters marked (human, over the rated outputs) and those each "
            "imported metric predicted (e.g. xCOMET). mqm: the predicted MQM of mtdiag's spans (minus the "
            "confidence-weighted count, minor 1, major 5, critical 10, and the missing reference words, per output) "
            "beside the human MQM score.</p>"
            + _table(human.span_counts(report, threshold), name="span_counts"))


def _has_tags(report) -> bool:
    return report.evalset.tags is not None and len(report.evalset.tags) > 0


def _tags(report) -> str:
    """The user's tags (:mod:`mtdiag.tags`): per tag, the whole segments and the outputs it marks, and their ids."""
    summary = tag_summary(report.evalset.tags, report.evalset.seg_ids).rename(
        columns={"segments": "whole segments", "seg_ids": "segment ids"})
    return ("<h2 id=\"tags\">Tags</h2><p>The tags given in the dashboard; a slice <code>tag == \"NAME\"</code> "
            "finds their segments again.</p>" + _table(summary))


def _signatures(report) -> str:
    rows = pd.DataFrame({"metric": list(report.metrics),
                         "signature": [str(report.result(m, report.evalset.systems[0]).sig) for m in report.metrics]})
    return "<h2 id=\"signatures\">Signatures</h2>" + _table(rows)


# ------------------------------------------------------------------------------------------------ the sections


@dataclass(frozen=True)
class Section:
    """One section of the report: its anchor, its label in the table of contents, and its HTML."""

    anchor: str
    label: str
    html: str


@dataclass(frozen=True)
class Writing:
    """What the report is asked for: ``top`` worst segments, the paired test (``method``, ``n`` samples, ``seed``),
    ``say``, told each step, and the confidence threshold of the predicted error spans (``span_threshold``)."""

    top: int
    method: str
    n: int | None
    seed: int | None
    say: Callable[[str], None]
    span_threshold: float = DEFAULT_THRESHOLD


def _overview_sections(report, view, writing: Writing) -> list[Section]:
    writing.say("overview")
    sections = [Section("overview", "Overview", _overview(report))]
    writing.say("ranked significance")
    return sections + [Section("significance", "Significance",
                               _significance(report, writing.method, writing.n, writing.seed))]


def _segments_sections(report, view, writing: Writing) -> list[Section]:
    writing.say(f"the {writing.top} worst segments")
    sections = [Section("worst", "Worst segments", _worst(report, writing.top, writing.span_threshold))]
    return sections + ([Section("tags", "Tags", _tags(report))] if _has_tags(report) else [])


def _buckets_sections(report, view, writing: Writing) -> list[Section]:
    writing.say("buckets")
    return [Section("buckets", "Buckets", _buckets(report))]


def _span_agreement(report, threshold: float) -> str:
    """mtdiag's predicted spans at ``threshold`` measured against the human error spans of the rated outputs
    (:func:`mtdiag.views.human.span_agreement`)."""
    return ('<h2 id="span-agreement">Predicted spans against the human spans</h2>'
            f"<p>The error spans mtdiag predicts (confidence at least {threshold:.2f}) measured against the human "
            "error spans of the rated outputs, per system and over all: precision (share of predicted spans that "
            "overlap a human span), major recall, character precision, recall and F1, the share of characters "
            "marked, the WMT23 character F1 with severity (sev_*), and the predicted MQM of those outputs beside "
            "their human score. Where the annotators saw mtdiag's spans "
            "pre-filled (a Pearmut campaign of mtdiag's), a kept span counts as agreement: an upper bound of what "
            "independent annotators would confirm.</p>"
            + _table(human.span_agreement(report, threshold), places=3, name="span_agreement"))


def _human_sections(report, view, writing: Writing) -> list[Section]:
    sections = []
    if errorstats.has_annotations(report.evalset):
        writing.say("human error statistics")
        sections.append(Section("errors", "Human errors", _errors(report)))
        writing.say("predicted spans against the human spans")
        sections.append(Section("span-agreement", "Spans vs humans", _span_agreement(report, writing.span_threshold)))
    writing.say("error spans per severity")
    return sections + [Section("spans", "Error spans", _span_counts(report, writing.span_threshold))]


def _view_sections(report, view, writing: Writing) -> list[Section]:
    """The generic section of a view: its help, then each named table and chart the data allows, with the options
    its page starts from; nothing when the data lacks what the view needs."""
    if view.missing(report):
        return []
    writing.say(view.title)
    chosen = view.resolve(report)
    parts = [f'<h2 id="{highlight.escape(view.name)}">{highlight.escape(view.title)}</h2>',
             f"<p>{highlight.escape(view.help[0].upper() + view.help[1:])}.</p>"]
    frames = view.frames(report, chosen)
    for table in view.tables:
        if table.name in frames:
            parts.append(f"<h3>{highlight.escape(table.title)}</h3>"
                         + _table(frames[table.name], name=f"{view.name}_{table.name}"))
    titles = {chart.name: chart.title for chart in view.charts}
    for name, figure in view.figures(report, chosen).items():
        parts.append(f"<h3>{highlight.escape(titles[name])}</h3>" + _figure(figure))
    return [Section(view.name, view.title, "".join(parts))]


SECTIONS: dict[str, Callable[..., list[Section]]] = {
    "overview": _overview_sections, "segments": _segments_sections, "buckets": _buckets_sections,
    "human": _human_sections,
}
"""The views whose sections the report writes in a form of its own (the others get :func:`_view_sections`)."""


def sections(report, writing: Writing) -> list[Section]:
    """Every section of the report: those of each view in the report (``View.in_report``) — the :data:`LEAD` ones
    first, the others in the registry's order — then the metric signatures."""
    out: list[Section] = []
    for view in views.REGISTRY.values():
        if view.in_report:
            out += SECTIONS.get(view.name, _view_sections)(report, view, writing)
    lead = sorted((s for s in out if s.anchor in LEAD), key=lambda s: LEAD.index(s.anchor))
    return lead + [s for s in out if s.anchor not in LEAD] + [Section("signatures", "Signatures",
                                                                        _signatures(report))]


def html_report(report, *, top: int = DEFAULT_TOP, title: str | None = None, method: str = "bs",
                n: int | None = None, seed: int | None = significance.DEFAULT_SEED,
                progress: Callable[[str], None] | None = None, span_threshold: float = DEFAULT_THRESHOLD) -> str:
    """The whole report as one HTML document (see the module docstring): the header with the table of contents,
    every section (:func:`sections`; the ranked significance by ``method`` ``bs``/``ar`` with ``n`` samples, the
    ``top`` worst segments, the error spans mtdiag predicts at a confidence of at least ``span_threshold``)."""
    import plotly.offline

    title = title or f"mtdiag report: {report.evalset.name}"
    parts = sections(report, Writing(top, method, n, seed, progress or (lambda _: None), span_threshold))
    body = [_header(report, title, [(part.anchor, part.label) for part in parts]), *(part.html for part in parts)]
    return ("<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">"
            f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
            f'<meta name="viewport" content="width=device-width, initial-scale=1"><title>{highlight.escape(title)}'
            f"</title>{PAGE_STYLE}{highlight.STYLE}"
            f"<script>{plotly.offline.get_plotlyjs()}</script></head><body>{''.join(body)}</body></html>")

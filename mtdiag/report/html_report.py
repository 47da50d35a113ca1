"""A shareable report: one self-contained HTML file with a section for every view of :data:`mtdiag.views.REGISTRY`
that declares one (``View.in_report``), in the registry's order, and a table of contents of them: the overview and
the ranked significance, the worst segments with their evidence — human and metric error spans marked — and the
user's tags, buckets, and, when error annotations are loaded, the human error statistics per category and rater
(:mod:`mtdiag.analysis.errorstats`); then the metric signatures (``docs/report.md``). A view without a section of its own
here (:data:`SECTIONS`) gets the generic one: its named tables and its charts, with the options its page starts
from.

For a colleague who won't run a server (compare-mt's HTML report is the model): everything is in the file —
plotly's JavaScript inlined once, the CSS inline — and nothing is fetched: the page carries a Content-Security-Policy
that forbids every network request (``default-src 'none'``), and no ``src``/``href`` points outside the file.

Every user-derived string (test-set name, system and reference names, texts, file names) is HTML-escaped
(:func:`mtdiag.core.highlight.escape`; tables through pandas' escaping ``to_html``); texts with evidence are drawn by
:mod:`mtdiag.core.highlight`, which escapes too; plotly figures come from :mod:`mtdiag.views.charts`, which escapes names and
never puts one into a hover template. Nothing here computes a metric: the numbers are the report's, the
significance :func:`mtdiag.analysis.significance.pairwise_significance`'s, the tables the views' (:mod:`mtdiag.views`).
"""

from __future__ import annotations

import base64
import datetime as _dt
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

import numpy as np
import pandas as pd

from mtdiag import __version__, views
from mtdiag.analysis import errorstats, significance
from mtdiag.core import highlight
from mtdiag.triage import ranking
from mtdiag.metrics import metric_info
from mtdiag.spans import DEFAULT_THRESHOLD, predict_spans
from mtdiag.core.tags import tag_labels, tag_summary
from mtdiag.views import human, overview, segments
from mtdiag.views.detail import segment_detail

DEFAULT_TOP = 50  # worst segments shown
MAX_TOP = 1_000
"""Worst segments a report may show (``--top``): each costs ~45 ms of CPU and ~20 KB (sample sets, 200 of them)."""
MAX_WORST_MB = 100
"""Megabytes the worst segments' part may take, estimated before it is built (:func:`worst_megabytes`)."""
MARKUP_FACTOR = 30
"""Bytes of the report per byte of the texts a worst segment shows (16.7-24.3 in all measured on WMT21 en-de and
TED zh-en, 200 segments each: the marks around the words)."""
BOX_BYTES = 4_096
"""Bytes of a worst segment's box besides its texts: heading, scores, flags (2.4 KB on 20-byte texts)."""
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
.warning{border-left:4px solid #d97706;background:#fffbeb;padding:0.5rem 0.8rem;}
</style>"""


def _table(frame: pd.DataFrame, places: int = 4, index: bool = False, *, name: str = "table") -> str:
    """A frame as an escaped HTML table (numbers with ``places`` decimals, blanks for undefined values). A frame of
    more than :data:`ROWS_SHOWN` rows shows its first ones and links every row as a CSV carried in the file
    (``name.csv``, safe for spreadsheets: :func:`mtdiag.report.export.to_csv`) — no table fills thousands of pixels."""
    shown = frame.head(ROWS_SHOWN) if len(frame) > ROWS_SHOWN else frame
    out = shown.to_html(index=index, escape=True, na_rep="", border=0, classes="mtd",
                        float_format=lambda v: f"{v:.{places}f}")
    if len(shown) < len(frame):
        from mtdiag.report.export import to_csv

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


# ------------------------------------------------------------------------------------------------ what a section holds


@dataclass(frozen=True)
class Declared:
    """One table or chart a view declares (``view``, ``name``), as a section shows it.

    With the options ``given`` over the view's defaults (and the report's paired-test choices), under ``title``
    (default: its declared title), its caption, and — ``fold`` — behind a fold of that name; ``rows``: the column whose
    values head the rows."""

    view: str
    name: str
    given: Mapping[str, Any] = field(default_factory=dict)
    title: str | None = None
    fold: str | None = None
    rows: str | None = None


Prose = Callable[["Any", "Writing"], str]
"""A piece of a section that is no table: HTML made from the report (escaped there)."""


def _chosen(report, view, given: Mapping[str, Any], writing: "Writing") -> dict:
    """The options a section shows ``view`` with: ``given``, then the report's paired-test choices for the view's
    options named so, then the view's defaults."""
    asked = {"method": writing.method, "samples": writing.n, "seed": writing.seed,
             "span_threshold": writing.span_threshold}
    return view.resolve(report, {**{k: v for k, v in asked.items() if k in {o.name for o in view.options}
                                    and v is not None}, **given})


def _shown(report, item: Declared, writing: "Writing") -> str:
    """A declared table or chart as HTML: its title, its caption, the table (:func:`_frame`) or the figure; nothing
    when the data or the options give none."""
    view = views.REGISTRY[item.view]
    piece = next(p for p in (*view.tables, *view.charts) if p.name == item.name)
    if views.missing(report, piece.needs):
        return ""
    chosen = _chosen(report, view, item.given, writing)
    built = piece.make(report, chosen)
    if built is None:
        return ""
    caption = piece.describe(report, chosen, built)
    body = (_frame(report, built, name=f"{item.view}_{item.name}", rows=item.rows) if isinstance(built, pd.DataFrame)
            else _figure(built))
    html = (f"<h3>{highlight.escape(item.title or piece.title)}</h3>"
            + (f"<p>{highlight.escape(caption)}</p>" if caption else "") + body)
    return (f'<details><summary class="small">{highlight.escape(item.fold)}</summary>{html}</details>'
            if item.fold else html)


def _frame(report, frame: pd.DataFrame, *, name: str, rows: str | None = None) -> str:
    """A view's table as the report shows it (:func:`_table`): each metric's scores with its places under its
    label and arrow (:class:`mtdiag.metrics.MetricInfo`), human scores with two places, other numbers with four; the
    values of column ``rows`` as row headers."""
    shown = frame.copy()
    headers = {}
    for column in shown.columns:
        if views.is_metric(column, report) and pd.api.types.is_numeric_dtype(shown[column]):
            info = metric_info(column, report)
            shown[column] = [info.format(v) if pd.notna(v) else "" for v in shown[column]]
            headers[column] = info.arrow_label
        elif column == "human" and pd.api.types.is_numeric_dtype(shown[column]):
            shown[column] = [views.format_score(v) for v in shown[column]]
            headers[column] = "human ↑"
    shown = shown.rename(columns=headers)
    if rows is not None:
        return _table(shown.set_index(rows), index=True, name=name)
    return _table(shown, name=name)


def _part(report, items, writing: "Writing") -> str:
    return "".join(_shown(report, item, writing) if isinstance(item, Declared) else item(report, writing)
                   for item in items)


def _significance_intro(report, writing: "Writing") -> str:
    if len(report.evalset.systems) < 2:
        return "<p>One system: nothing to compare.</p>"
    method = "bootstrap" if writing.method == "bs" else "approximate randomisation"
    samples = writing.n if writing.n is not None else significance.DEFAULT_SAMPLES[writing.method]
    return (f"<p>Per metric, systems best first; a system opens a new cluster when it is significantly worse than the "
            f"one above it (paired {method}, {samples:,} samples, p &lt; {significance.ALPHA}). The matrix gives the "
            "p-value of each pair.</p>")


def _significance_items(report, writing: "Writing") -> list:
    if len(report.evalset.systems) < 2:
        return [_significance_intro]
    return [_significance_intro, *(item for metric in overview.ranking_metrics(report) for item in (
        Declared("overview", "clusters", {"rank_by": metric}, title=metric_info(metric, report).arrow_label),
        Declared("overview", "pvalues", {"rank_by": metric}, fold="p-values, system × system")))]


def _bucket_items(report, writing: "Writing") -> list:
    dimensions = ["src_length"] if "src" in report.evalset.segments.columns else ["ref_length"]
    if "doc" in report.evalset.segments.columns:
        dimensions.append("label:doc")
    metric = _primary(report)
    items: list = [lambda report, writing: "<p>Every metric per group of segments, by its corpus formula inside "
                                           "the group.</p>"]
    for by in dimensions:
        items.append(Declared("buckets", "buckets", {"by": by},
                              title=f"By {by.replace('label:', '').replace('_', ' ')}"))
        if metric is not None:
            items.append(Declared("buckets", "bucket_bars", {"by": by, "metric": metric}))
    return items


def _errors_summary(report, writing: "Writing") -> str:
    """The Human page's sentence on the error significance table, at the page's default level."""
    view = views.REGISTRY["human"]
    tests = view.table("error_significance").make(report, _chosen(report, view, {}, writing))
    return f"<p>{highlight.escape(human.significance_summary(tests))} Every pair and category below.</p>"


def worst_megabytes(report, top: int) -> float:
    """The estimated size of the ``top`` worst segments' part in MB (an upper bound on the sets measured).

    :data:`BOX_BYTES` per segment and :data:`MARKUP_FACTOR` times the UTF-8 bytes of the texts they show (the source,
    every reference and the output, each at most what a segment's display shows, :data:`mtdiag.core.highlight.MAX_CHARS`
    characters of 4 bytes)."""
    view = views.REGISTRY["segments"]
    queue = view.table("queue").make(report, view.resolve(report)).head(top)
    positions = views.positions(report, queue["seg_id"])
    ev, cap = report.evalset, highlight.MAX_CHARS * 4

    def shown(column) -> np.ndarray:
        return np.minimum(column.astype(str).str.encode("utf-8").str.len().to_numpy(), cap)

    per_segment = shown(ev.src) + sum(shown(ev.refs[name]) for name in ev.ref_names)
    outputs = {system: shown(ev.hyps[system]) for system in ev.systems}
    total = per_segment[positions].sum() + sum(outputs[str(s)][p] for s, p in zip(queue["system"], positions))
    return (len(queue) * BOX_BYTES + float(total) * MARKUP_FACTOR) / 2**20


def check_top(report, top: int) -> None:
    """Refuse a ``top`` the report cannot hold, before anything is built.

    ``ValueError`` in one line when ``top`` is not 1 to :data:`MAX_TOP` or its worst segments' part would pass
    :data:`MAX_WORST_MB` (:func:`worst_megabytes`)."""
    if not 1 <= top <= MAX_TOP:
        raise ValueError(f"--top {top:,}: from 1 to {MAX_TOP:,} worst segments")
    size = worst_megabytes(report, top)
    if size > MAX_WORST_MB:
        raise ValueError(f"--top {top:,}: the worst segments would take about {size:,.0f} MB of the report; at most "
                         f"{MAX_WORST_MB} MB: show fewer")


def _worst(report, top: int, threshold: float = DEFAULT_THRESHOLD, tags=None) -> str:
    """The ``top`` worst segments with their evidence marked: the human and metric error spans, the error spans
    mtdiag predicts with a confidence of at least ``threshold``, and the user's ``tags`` of each."""
    view = views.REGISTRY["segments"]
    queue = view.table("queue").make(report, view.resolve(report)).head(top)  # the Segments page's queue
    predict_spans(report, threshold)  # every output's at once: then each segment below reads its rows from them
    ev = report.evalset
    score_metrics = segments.score_columns(report)
    positions = views.positions(report, queue["seg_id"])
    labels = (tag_labels(tags, queue["seg_id"].to_numpy(), queue["system"].astype(str).to_numpy())
              if _has_tags(tags) else None)  # the set's ids, as the tags name them
    boxes, kinds = [], set()
    for i, (_, row) in enumerate(queue.iterrows()):
        system, seg = str(row["system"]), int(positions[i])
        detail = segment_detail(report, system, seg, threshold)
        kinds.update(span.kind for span in detail.hyp_spans)
        kinds.update(span.kind for spans in detail.ref_spans.values() for span in spans)
        scores = ", ".join(f"{metric_info(m, report).label} {metric_info(m, report).format(row[m])}"
                           for m in score_metrics
                           if pd.notna(row[m]))
        human = f" · human {views.format_score(row['human'])}" if pd.notna(row.get("human")) else ""
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
            f"{highlight.escape(ranking.PROBLEM_TEXT)} — with the evidence marked; the error spans mtdiag predicts "
            f"(a dotted line over the words) at a confidence of at least {threshold:.2f}.</p>"
            + highlight.render_legend([kind for kind in highlight.KINDS if kind in kinds])
            + "".join(boxes[:WORST_OPEN])
            + (f'<details><summary>The next {len(rest)} segments</summary>{"".join(rest)}</details>' if rest else ""))


def _has_tags(tags) -> bool:
    return tags is not None and len(tags) > 0


def _tags(report, tags) -> str:
    """The user's tags (:mod:`mtdiag.core.tags`) of the report's segments: per tag, the whole segments and the
    outputs it marks, and their ids."""
    summary = tag_summary(tags, report.evalset.seg_ids).rename(
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
    """What the report is asked for: worst segments, paired test, progress, span threshold and tags.

    ``top`` worst segments, the paired test (``method``, ``n`` samples, ``seed``), ``say``, told each step, the
    confidence threshold of the predicted error spans (``span_threshold``) and the user's tags (``tags``,
    :mod:`mtdiag.core.tags`: whole-set segments)."""

    top: int
    method: str
    n: int | None
    seed: int | None
    say: Callable[[str], None]
    span_threshold: float = DEFAULT_THRESHOLD
    tags: pd.DataFrame | None = None


def _section(anchor: str, label: str, heading: str, items, report, writing: Writing) -> Section:
    """A section of a heading and its items: declared tables and charts (:class:`Declared`) and prose."""
    writing.say(label.lower())
    return Section(anchor, label, f'<h2 id="{anchor}">{highlight.escape(heading)}</h2>' + _part(report, items, writing))


def _bias_warning(report, writing: Writing) -> str:
    """The systems a reference favours, said above the scores it distorts (:mod:`mtdiag.analysis.reference_bias`);
    nothing when none is."""
    text = views.REGISTRY["overview"].details["bias_warning"](report)
    return f'<p class="warning">{highlight.escape(text)}</p>' if text else ""


def _overview_sections(report, view, writing: Writing) -> list[Section]:
    return [_section("overview", "Overview", "Overview: corpus scores",
                     [_bias_warning, Declared("overview", "bias_rankings", rows="system"),
                      Declared("overview", "by_people", rows="system"), Declared("overview", "best"),
                      Declared("overview", "people_bars"),
                      Declared("overview", "reference_bias", rows="system", fold="Reference bias: near copies of "
                                                                                  "the reference per system")],
                     report, writing),
            _section("significance", "Significance", "Ranked significance", _significance_items(report, writing),
                     report, writing)]


def _segments_sections(report, view, writing: Writing) -> list[Section]:
    writing.say(f"the {writing.top} worst segments")
    sections = [Section("worst", "Worst segments", _worst(report, writing.top, writing.span_threshold, writing.tags))]
    return sections + ([Section("tags", "Tags", _tags(report, writing.tags))] if _has_tags(writing.tags) else [])


def _buckets_sections(report, view, writing: Writing) -> list[Section]:
    return [_section("buckets", "Buckets", "Buckets", _bucket_items(report, writing), report, writing)]


def _human_sections(report, view, writing: Writing) -> list[Section]:
    sections = []
    if errorstats.has_annotations(report.evalset):
        sections.append(_section(
            "errors", "Human errors", "Human errors per category and rater",
            [Declared("human", "error_counts"), Declared("human", "error_raters"), _errors_summary,
             Declared("human", "error_significance", fold="every pair and category")],
            report, writing))
        sections.append(_section("span-agreement", "Spans vs humans", "Predicted spans against the human spans",
                                 [Declared("human", "span_agreement")], report, writing))
    return sections + [_section("spans", "Error spans", "Error spans per system and severity",
                                [Declared("human", "span_counts", title="Predicted by mtdiag, marked by the raters and "
                                                                        "predicted by imported metrics")],
                                report, writing)]


def _view_sections(report, view, writing: Writing) -> list[Section]:
    """The generic section of a view: its help, then each named table and chart the data allows, with the options
    its page starts from; nothing when the data lacks what the view needs."""
    if view.missing(report):
        return []
    about = f"<p>{highlight.escape(view.introduction)}</p>"
    return [_section(view.name, view.title, view.title,
                     [lambda report, writing: about, *(Declared(view.name, t.name) for t in view.tables),
                      *(Declared(view.name, c.name) for c in view.charts)], report, writing)]


SECTIONS: dict[str, Callable[..., list[Section]]] = {
    "overview": _overview_sections, "segments": _segments_sections, "buckets": _buckets_sections,
    "human": _human_sections,
}
"""The views whose sections the report writes in a form of its own (the others get :func:`_view_sections`)."""


def sections(report, writing: Writing) -> list[Section]:
    """Every section of the report: those of each view in the report, then the metric signatures.

    The views in the report are those with ``View.in_report``: the :data:`LEAD` ones first, the others in the registry's
    order."""
    out: list[Section] = []
    for view in views.REGISTRY.values():
        if view.in_report:
            out += SECTIONS.get(view.name, _view_sections)(report, view, writing)
    lead = sorted((s for s in out if s.anchor in LEAD), key=lambda s: LEAD.index(s.anchor))
    return lead + [s for s in out if s.anchor not in LEAD] + [Section("signatures", "Signatures",
                                                                        _signatures(report))]


def html_report(report, *, top: int = DEFAULT_TOP, title: str | None = None, method: str = "bs",
                n: int | None = None, seed: int | None = significance.DEFAULT_SEED,
                progress: Callable[[str], None] | None = None, span_threshold: float = DEFAULT_THRESHOLD,
                tags: pd.DataFrame | None = None) -> str:
    """The whole report as one HTML document (see the module docstring).

    The header with the table of contents, every section (:func:`sections`; the ranked significance by ``method``
    ``bs``/``ar`` with ``n`` samples, the ``top`` worst segments, the error spans mtdiag predicts at a confidence of at
    least ``span_threshold``, the user's ``tags``)."""
    import plotly.offline

    title = title or f"mtdiag report: {report.evalset.name}"
    check_top(report, top)
    parts = sections(report, Writing(top, method, n, seed, progress or (lambda _: None), span_threshold, tags))
    body = [_header(report, title, [(part.anchor, part.label) for part in parts]), *(part.html for part in parts)]
    return ("<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">"
            f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
            f'<meta name="viewport" content="width=device-width, initial-scale=1"><title>{highlight.escape(title)}'
            f"</title>{PAGE_STYLE}{highlight.STYLE}"
            f"<script>{plotly.offline.get_plotlyjs()}</script></head><body>{''.join(body)}</body></html>")

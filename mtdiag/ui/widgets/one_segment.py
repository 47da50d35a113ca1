"""One segment on a page: its source, references and every system's output highlighted, and its evidence tabs."""

from __future__ import annotations

from typing import Callable, Sequence

import pandas as pd
import streamlit as st

from mtdiag import views
from mtdiag.core import highlight
from mtdiag.ui import state
from mtdiag.ui.widgets.blocks import explain, html
from mtdiag.ui.widgets.column_settings import _info, metric_label, segment_number
from mtdiag.ui.widgets.grids import table
from mtdiag.ui.widgets.pickers import select
from mtdiag.views import SegmentDetail, flag_columns

def evidence_tabs(detail: SegmentDetail, *, key: str) -> None:
    """The evidence tables of one output, one tab each.

    Edit alignment, over/under-matched n-grams, terms, human errors."""
    if not detail.tables:
        return
    names = list(detail.tables)
    for name, tab in zip(names, st.tabs([detail.tables[n].title for n in names])):
        evidence = detail.tables[name]
        with tab:
            if evidence.frame is None or evidence.frame.empty:
                explain(highlight.escape_markdown(evidence.empty or "Nothing to show for this segment."))
                continue
            if evidence.caption:
                st.caption(highlight.escape_markdown(evidence.caption))  # it names references: user text
            if evidence.alignment:
                html(highlight.render_legend(["match", "substitute", "insert", "delete"]))
                html(highlight.render_alignment(evidence.frame[["op", "hyp", "ref"]].itertuples(index=False)))
            evidence_table(detail, name, key=f"{key}_{name}")


def evidence_table(detail: SegmentDetail, name: str, *, key: str) -> None:
    """One evidence table of one output with its downloads, named for the table, the system and the segment.

    The tables: ``alignment``, ``over``, ``terms``, … (:class:`mtdiag.views.SegmentDetail`)."""
    table(detail.table(name), key=key, name=f"{name}_{detail.system}_{segment_number(detail.seg)}", max_height=260)


def sort_label(key: str) -> str:
    """A sort key of :func:`mtdiag.views.segments.sort_keys` as people read it."""
    return {"problem": "problem score", "human": "human score"}.get(key, metric_label(key))


def _output_label(row: pd.Series, sort_by: str, flags: Sequence[str], selected: bool) -> str:
    """``Hypothesis (system) ◀ selected · problem 0.930 · chrF ↑ 41.2 · human -5.00 · flags: a, b`` — the problem
    score, the score the outputs are sorted by, the human score and the flags (every score is in the table above
    the outputs); plain text, escaped by :mod:`mtdiag.core.highlight`."""
    parts = [f"Hypothesis ({row['system']}){' ◀ selected' if selected else ''}", f"problem {row['problem']:.3f}"]
    if sort_by not in ("problem", "human") and pd.notna(row[sort_by]):
        parts.append(f"{metric_label(sort_by)} {_info(sort_by).format(row[sort_by])}")
    if "human" in row.index and pd.notna(row["human"]):
        parts.append(f"human {views.format_score(row['human'])}")
    fired = [views.flag_label(f) for f in flags if bool(row[f])]
    if fired:
        parts.append("flags: " + ", ".join(fired))
    return " · ".join(parts)


def source_view(page, seg: int, selected: str | None = None, *, key: str, threshold: float) -> None:
    """One source with every system's output, sorted worst first by a chosen score, the ``selected`` system first.

    ``page``: the Segments page's :class:`~mtdiag.ui.page.Page` (its view's ``source``, ``sort_keys`` and
    ``score_columns`` details). Drawn: the source and every reference, then every system's output stacked — each
    labelled with its problem score, sort score, human score and flags, its evidence (and the human error spans, when
    loaded) highlighted — sorted worst first by a chosen score; the ``selected`` system first and marked, its
    under-matched n-grams marked in the references, followed by its evidence tables (:func:`evidence_tabs`). The
    error spans mtdiag predicts are drawn when their confidence is at least ``threshold`` (the view option
    :data:`mtdiag.views.SPAN_THRESHOLD`). ``seg`` is the segment's 0-based position."""
    ev = page.current.evalset
    seg = int(seg)
    sort_by = select("Sort systems by", page.detail("sort_keys"), key=f"{key}_sort", format_func=sort_label,
                     help="worst first by this score (direction-aware)")
    rows = page.detail("source", seg, sort_by)
    if selected in set(rows["system"]):
        rows = pd.concat([rows[rows["system"] == selected], rows[rows["system"] != selected]], ignore_index=True)
    else:
        selected = str(rows["system"].iloc[0])
    st.markdown(f"#### Segment {segment_number(seg)} · {highlight.escape_markdown(selected)}")
    st.caption(f"The source, every reference and all {len(rows)} systems' outputs, sorted by "
               f"{highlight.escape_markdown(sort_label(sort_by))} (worst first); the selected system comes first.")
    flags = flag_columns(rows)
    table(rows.drop(columns="hyp"), key=f"{key}_systems", name=f"segment_{segment_number(seg)}_systems",
          column_order=[c for c in ["system", "flags", "problem", "human", *page.detail("score_columns"), *flags]
                        if c in rows.columns])
    details = {s: page.segment_detail(s, seg, threshold) for s in rows["system"]}
    legend = list(dict.fromkeys(k for d in details.values() for k in d.legend))
    html(highlight.render_legend(legend))
    parts = [highlight.render_text(ev.src.iat[seg], label="Source")] if str(ev.src.iat[seg]).strip() else []
    chosen = details[selected]
    best_ref = chosen.facts.get("best_ref")
    for name, tokens in chosen.refs.items():
        best = ", closest for WAFT" if name == best_ref and len(chosen.refs) > 1 else ""
        parts.append(highlight.render_marked_text(ev.refs.at[seg, name], tokens.shown, chosen.ref_spans[name],
                                                  label=f"Reference {name} (marked: what {selected} misses{best})"))
    html("".join(parts))
    blocks = []
    for _, row in rows.iterrows():
        detail = details[row["system"]]
        blocks.append(highlight.render_marked_text(
            ev.hyps.at[seg, row["system"]], detail.hyp.shown, detail.hyp_spans,
            label=_output_label(row, sort_by, flags, row["system"] == selected)))
    html("<hr style='margin:0.3rem 0;opacity:0.3'>".join(blocks))
    st.markdown(f"##### Evidence of {highlight.escape_markdown(selected)}")
    evidence_tabs(details[selected], key=key)


def segment_list(current: state.Current, system: str, segments: Sequence[int], *, spans_for: Callable | None = None,
                 limit: int = 20, ref: str | None = None) -> None:
    """Several segments of one system (source, first reference, hypothesis), e.g. the segments an n-gram opens.

    ``spans_for(seg) -> (hyp_spans, ref_spans)`` adds highlights. ``ref`` may also name another system (shown in
    the reference's place, for system-vs-system views)."""
    ev = current.evalset
    segments = list(segments)
    if not segments:
        explain("No segment.")
        return
    if len(segments) > limit:
        st.caption(f"Showing the first {limit} of {len(segments):,} segments.")
    ref = ref or ev.ref_names[0]
    parts = []
    for seg in segments[:limit]:
        hyp_spans, ref_spans = spans_for(seg) if spans_for else ([], [])
        hyp_tokens = views.side_tokens(current.report, system, seg).shown
        ref_tokens = views.side_tokens(current.report, ref, seg).shown
        block = [f'<div class="mtd-note">segment {segment_number(seg)}</div>']
        if str(ev.src.iat[seg]).strip():
            block.append(highlight.render_text(ev.src.iat[seg], label="Source", max_chars=600))
        is_ref = ref in ev.ref_names
        block.append(highlight.render_marked_text(ev.refs.at[seg, ref] if is_ref else ev.hyps.at[seg, ref], ref_tokens,
                                                  ref_spans, label=f"Ref {ref}" if is_ref else ref, max_tokens=120))
        block.append(highlight.render_marked_text(ev.hyps.at[seg, system], hyp_tokens, hyp_spans,
                                                  label=system, max_tokens=120))
        parts.append("".join(block) + "<hr style='margin:0.4rem 0;opacity:0.3'>")
    html("".join(parts))

"""One (system, segment) as the segment detail shows it: texts, tokens, every metric's evidence, why the checks
fired, the human error spans, the error spans a metric predicted and those mtdiag predicts (the Segments page's
one-source view, the WAFT vs NEVA alignment, the report).

Error spans are drawn on the output's tokens they overlap (offsets are characters of the output;
:func:`mtdiag.core.highlight.char_span_tokens`): human spans (MQM/ESA) with a wavy underline coloured by severity —
``human_critical``, ``human_major`` (or any error weighing 5 or more, e.g. a Non-translation), ``human_minor`` —,
titled ``severity category (rater)``; metric spans (xCOMET, ``EvalSet.metric_spans``) with a dashed bottom border
— ``metric_critical``, ``metric_major``, ``metric_minor`` —, titled ``metric: severity, confidence c``; the spans
mtdiag predicts (:func:`mtdiag.spans.predict_spans`, at a confidence threshold) with a dotted line over the words —
``predicted_critical``, ``predicted_major``, ``predicted_minor`` —, titled ``mtdiag: kind, severity, confidence
c``. Each has its table: "Human errors", "Metric errors" and "Predicted errors"."""

from __future__ import annotations

from dataclasses import dataclass, replace

import pandas as pd

from mtdiag.triage import checks
from mtdiag.core.highlight import HUMAN_KINDS, METRIC_KINDS, PREDICTED_KINDS, Span
from mtdiag.metrics import EvidenceTable, SegmentEvidence
from mtdiag.spans import DEFAULT_THRESHOLD, METRIC_NAME, predict_spans
from mtdiag.spans.protocol import default_threshold
from mtdiag.views.base import ViewOption, with_set_ids
from mtdiag.views.reference_notes import reference_evidence

SPAN_THRESHOLD = ViewOption(
    "span_threshold", "Predicted spans: confidence at least",
    "the error spans mtdiag predicts (a dotted line over the words) are drawn and counted when their confidence — "
    "the measured chance that a human rater marked an error there — is at least this; the default is the operating "
    "point of the protocol of the loaded human scores (MQM, also without any: about the chance that a random output "
    "word is in a human error span; ESA raters mark fewer, so fewer, surer spans); higher shows fewer, surer spans "
    "(docs/spans.md)", default=default_threshold, type=float, minimum=0.0, maximum=1.0)


@dataclass(frozen=True)
class SideTokens:
    """One text of a segment as tokens: ``shown`` and ``matched``, of the same length.

    ``shown``: the user's tokeniser, original case when it lines up; ``matched``: exactly the tokens the metrics
    saw."""

    name: str
    shown: list[str]
    matched: list[str]


def side_tokens(report, side: str, seg: int) -> SideTokens:
    """The tokens of a reference or system for one segment, for display."""
    shown, matched = report.context.display_tokens(side, seg)
    return SideTokens(side, shown, matched)


@dataclass(frozen=True)
class SegmentDetail:
    """Everything the dashboard shows for one (system, segment).

    Texts, tokens, highlight spans, the legend of their kinds, and every metric's evidence tables (keyed by name, in
    the report's metric order)."""

    system: str
    seg: int
    src: str
    hyp: SideTokens
    refs: dict[str, SideTokens]
    hyp_spans: list[Span]
    ref_spans: dict[str, list[Span]]
    legend: list[str]
    tables: dict[str, EvidenceTable]
    facts: dict[str, object]
    scores: pd.Series

    def table(self, name: str) -> pd.DataFrame | None:
        """One evidence table's frame (``over``, ``under``, ``alignment``, ``terms``, …), None when absent."""
        return self.tables[name].frame if name in self.tables else None


def segment_detail(report, system: str, seg: int, threshold: float = DEFAULT_THRESHOLD) -> SegmentDetail:
    """Source, references and hypothesis of one segment, with every computed metric's evidence and the error spans.

    The metrics' evidence (:meth:`~mtdiag.metrics.Metric.segment_evidence`: over-matched n-grams in the hypothesis,
    under-matched ones in each reference, the edit alignment, term occurrences, …) is merged in the report's metric
    order, then why the triage checks fired (:func:`mtdiag.triage.checks.check_evidence`), the human error spans and
    a metric's error spans when loaded, and the error spans mtdiag predicts with a confidence of at least
    ``threshold`` (computed once per report, threshold and segment — for this segment's outputs alone unless every
    output's are computed already: :func:`mtdiag.spans.predict_spans`). Its tables name the segment by its id in the
    set, as every table does (:func:`mtdiag.views.base.with_set_ids`)."""
    evalset = report.evalset
    seg = int(seg)
    hyp_spans: list[Span] = []
    ref_spans: dict[str, list[Span]] = {r: [] for r in evalset.ref_names}
    legend: list[str] = []
    tables: dict[str, EvidenceTable] = {}
    facts: dict[str, object] = {}
    for name in report.metrics:
        evidence = report.metric(name).segment_evidence(report.context, system, seg)
        if evidence is None:
            continue
        hyp_spans += evidence.hyp_spans
        for ref, spans in evidence.ref_spans.items():
            ref_spans[ref] += spans
        legend += [k for k in evidence.legend if k not in legend]
        tables |= evidence.tables
        facts |= evidence.facts
    for extra in (checks.check_evidence(report, system, seg), human_error_evidence(report, system, seg),
                  metric_error_evidence(report, system, seg), reference_evidence(report, system, seg),
                  predicted_error_evidence(report, system, seg, predict_spans(report, threshold, segments=(seg,)))):
        if extra is not None:
            hyp_spans += extra.hyp_spans
            legend += [k for k in extra.legend if k not in legend]
            tables |= extra.tables
    tables = {name: replace(t, frame=with_set_ids(report, t.frame, f"evidence table {name!r}"))
              for name, t in tables.items()}
    return SegmentDetail(system=system, seg=seg, src=str(evalset.src.iat[seg]), hyp=side_tokens(report, system, seg),
                         refs={r: side_tokens(report, r, seg) for r in evalset.ref_names}, hyp_spans=hyp_spans,
                         ref_spans=ref_spans, legend=legend, tables=tables, facts=facts,
                         scores=report.segments.loc[(system, seg)])


def _spans_of_output(report, spans: pd.DataFrame, system: str, seg: int):
    """The span rows of one output, its text, and ``tokens_of(start, end)``: the shown tokens a character span
    covers (:func:`mtdiag.core.highlight.char_span_tokens`; None when the tokens do not line up with the text)."""
    from mtdiag.core.highlight import char_span_tokens, token_offsets

    rows = spans[(spans["system"] == system) & (spans["seg"] == seg)].reset_index(drop=True)
    text = str(report.evalset.hyps.at[seg, system])
    shown, _ = report.context.display_tokens(system, seg)
    offsets = token_offsets(text, shown)

    def tokens_of(start: int, end: int) -> tuple[int, int] | None:
        return None if offsets is None else char_span_tokens(offsets, start, end)

    return rows, text, tokens_of


def human_error_evidence(report, system: str, seg: int) -> SegmentEvidence | None:
    """The human error spans (MQM/ESA annotations) of one output; None when the data has no annotations.

    They are marked in the hypothesis (major/minor) and listed with rater, severity, category and the marked text."""
    spans = report.evalset.annotations
    if spans is None:
        return None
    rows, text, tokens_of = _spans_of_output(report, spans, system, seg)
    marks = []
    for row in rows.itertuples(index=False):
        tokens = tokens_of(row.start, row.end) if row.side == "target" else None
        if tokens is not None:
            marks.append(Span(tokens[0], tokens[1], human_kind(row.severity, row.weight),
                              f"{row.severity} {row.category} ({row.rater or 'rater'})"))
    listed = rows.assign(text=[text[r.start:r.end] if r.side == "target" else "" for r in rows.itertuples()])
    listed = listed[["rater", "severity", "category", "side", "text", "weight"]]
    return SegmentEvidence(hyp_spans=tuple(marks), legend=HUMAN_KINDS,
                           tables={"human_errors": EvidenceTable("Human errors", listed,
                                                                 empty="The raters marked no error in this output.")})


def human_kind(severity: str, weight: float) -> str:
    """The highlight kind of a human error: critical, major or minor.

    Critical by its severity, major by its severity or a weight of 5 or more (a Non-translation), else minor."""
    severity = str(severity).strip().lower()
    if severity == "critical":
        return "human_critical"
    return "human_major" if severity == "major" or weight >= 5 else "human_minor"


def metric_error_evidence(report, system: str, seg: int) -> SegmentEvidence | None:
    """The error spans a metric predicted for one output (``EvalSet.metric_spans``, xCOMET); None without them.

    They are marked in the hypothesis by severity (``metric_critical``/``metric_major``/``metric_minor``, titled with
    the metric, severity and confidence) and listed with metric, severity, confidence, offsets and text."""
    spans = report.evalset.metric_spans
    if spans is None:
        return None
    rows, _, tokens_of = _spans_of_output(report, spans, system, seg)
    marks = []
    for row in rows.itertuples(index=False):
        tokens = tokens_of(row.start, row.end)
        if tokens is not None:
            confidence = f", confidence {row.confidence:.2f}" if pd.notna(row.confidence) else ""
            marks.append(Span(tokens[0], tokens[1], f"metric_{row.severity}", f"{row.metric}: {row.severity}{confidence}"))
    listed = rows[["metric", "severity", "confidence", "start", "end", "text"]]
    return SegmentEvidence(hyp_spans=tuple(marks), legend=METRIC_KINDS,
                           tables={"metric_errors": EvidenceTable("Metric errors", listed,
                                                                  empty="The metric predicted no error in this output.")})


def predicted_error_evidence(report, system: str, seg: int, spans: pd.DataFrame) -> SegmentEvidence:
    """The error spans mtdiag predicts for one output, among ``spans`` (:func:`mtdiag.spans.predict_spans`'s frame).

    They are marked in the hypothesis by severity (``predicted_critical``/``predicted_major``/``predicted_minor``,
    titled ``mtdiag: kind, severity, confidence c``) and listed with kind, severity, confidence, offsets and text, the
    most confident first."""
    rows, _, tokens_of = _spans_of_output(report, spans, system, seg)
    marks = []
    for row in rows.itertuples(index=False):
        tokens = tokens_of(row.start, row.end)
        if tokens is not None:
            marks.append(Span(tokens[0], tokens[1], f"predicted_{row.severity}",
                              f"{METRIC_NAME}: {row.kind}, {row.severity}, confidence {row.confidence:.2f}"))
    listed = rows.sort_values("confidence", ascending=False, kind="stable")[
        ["kind", "severity", "confidence", "start", "end", "text"]].reset_index(drop=True)
    return SegmentEvidence(hyp_spans=tuple(marks), legend=PREDICTED_KINDS,
                           tables={"predicted_errors": EvidenceTable(
                               "Predicted errors", listed,
                               empty="mtdiag predicts no error in this output at this confidence threshold.")})

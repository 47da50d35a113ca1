"""Predicted error spans: where in an output the error is, measured against human error spans (``docs/spans.md``).

:func:`predict_spans` gives, per (system, segment) of a report, character spans of the output as written with a
``severity`` (minor / major / critical), a ``confidence`` (0–1, an estimate of the span's precision) and the
``kind`` of evidence behind it; :func:`span_records` and :func:`write_span_records` turn them into the
xCOMET-style records that :mod:`mtdiag.io.metric_spans` reads back (``mtdiag score --metric-spans``);
:func:`severity_counts` counts them per system and severity beside the spans of imported metrics (xCOMET).

Modules: :mod:`~mtdiag.spans.support` (how well the references and the other systems support each word),
:mod:`~mtdiag.spans.phrases` (runs of unsupported words), :mod:`~mtdiag.core.offsets` (tokens located in the
text as written), :mod:`~mtdiag.spans.confidence` (measured confidences and severities),
:mod:`~mtdiag.spans.predict`, :mod:`~mtdiag.spans.records`, :mod:`~mtdiag.spans.counts`,
:mod:`~mtdiag.spans.mqm` (the statistics of the ``predicted_mqm`` metric) and :mod:`~mtdiag.spans.agreement` (spans
and scores measured against human judgements).
"""

from mtdiag.spans.confidence import DEFAULT_THRESHOLD, SEVERITIES
from mtdiag.spans.counts import COUNT_COLUMNS, severity_counts
from mtdiag.spans.predict import SPAN_COLUMNS, predict_spans
from mtdiag.spans.records import METRIC_NAME, span_records, write_span_records

__all__ = ["COUNT_COLUMNS", "DEFAULT_THRESHOLD", "METRIC_NAME", "SEVERITIES", "SPAN_COLUMNS", "predict_spans",
           "severity_counts", "span_records", "write_span_records"]

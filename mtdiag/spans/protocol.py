"""The spans' operating point per human-evaluation protocol: ``mtdiag spans --protocol mqm|esa``
(``docs/spans.md``, "Protocols").

MQM raters mark every error they see; ESA raters (Kocmi et al. 2024, "Error Span Annotation") judge the whole
output on 0–100 and mark far fewer spans, mostly in the outputs they score low: on the ESA dev set (WMT24 en-hi) a
rated output has 0.64 spans, on the MQM dev sets 0.6–2.7. So an operating point is two numbers
(:data:`OPERATING_POINTS`): the spans' confidence ``threshold``, and the ``share`` of the set's outputs that get
spans at all — the worst by the learned judge's score on the protocol's scale (:mod:`mtdiag.spans.judge`), 1 for
every output. Both are chosen on the dev sets as the ones that maximise the WMT23 character F1 with severity (MQM:
every output, 0.10, as before; ESA: on WMT24 en-hi); the held-out sets never enter
(``benchmarks/judge_vs_human.py``).
"""

from __future__ import annotations

import pandas as pd

from mtdiag.core.needs import human_protocol
from mtdiag.triage.checks import critical, flag_frame
from mtdiag.spans.confidence import DEFAULT_THRESHOLD
from mtdiag.spans.judge import judged
from mtdiag.spans.predict import predict_spans

PROTOCOLS = ("mqm", "esa")
DEFAULT_PROTOCOL = "mqm"
OPERATING_POINTS: dict[str, dict[str, float]] = {"mqm": {"threshold": DEFAULT_THRESHOLD, "share": 1.0},
                                                  "esa": {"threshold": 0.70, "share": 0.20}}


def operating_point(protocol: str = DEFAULT_PROTOCOL) -> dict[str, float]:
    """``threshold`` and ``share`` of ``protocol`` (``mqm`` or ``esa``)."""
    if protocol not in OPERATING_POINTS:
        raise ValueError(f"protocol {protocol!r}: choose one of {', '.join(PROTOCOLS)}")
    return dict(OPERATING_POINTS[protocol])


def protocol_spans(report, protocol: str = DEFAULT_PROTOCOL, scores: pd.DataFrame | None = None) -> pd.DataFrame:
    """The predicted spans (:func:`mtdiag.spans.predict_spans`) at ``protocol``'s operating point.

    Confidence at least its ``threshold``, in the outputs among the worst ``share`` of the set by the judge's score on
    the protocol's scale (``scores``: :func:`mtdiag.spans.judge.judged`'s frame, default the shipped model's; an output
    tied with the cut-off is kept) and in every plainly broken output (a critical check fired: empty, truncated, a loop,
    …, which any rater marks)."""
    point = operating_point(protocol)
    spans = predict_spans(report, point["threshold"])
    if point["share"] >= 1.0:
        return spans
    scores = judged(report) if scores is None else scores
    score = scores[protocol] if protocol in scores else scores["relative"]
    worst = (score <= score.quantile(point["share"])) | critical(flag_frame(report)).reindex(score.index, fill_value=False)
    chosen = worst.index[worst.to_numpy()]
    return spans[pd.MultiIndex.from_arrays([spans["system"], spans["seg"]]).isin(chosen)].reset_index(drop=True)


def protocol_of(report) -> str:
    """The protocol the loaded human scores follow, else :data:`DEFAULT_PROTOCOL`.

    The protocol is read by :func:`mtdiag.core.needs.human_protocol`; None (no report yet: a command checking its flags)
    gives the default."""
    found = human_protocol(report.evalset) if report is not None else None
    return found or DEFAULT_PROTOCOL


def default_threshold(report, chosen=None) -> float:
    """The spans' confidence threshold at the operating point of :func:`protocol_of` ``report``.

    It is the default of the span threshold wherever it is offered."""
    return operating_point(protocol_of(report))["threshold"]

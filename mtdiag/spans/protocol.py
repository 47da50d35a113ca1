"""The spans' operating point per human-evaluation protocol: ``mtdiag spans --protocol mqm|esa``
(``docs/spans.md``, "Protocols").

MQM raters mark every error they see; ESA raters (Kocmi et al. 2024, "Error Span Annotation") judge the whole
output on 0–100 and mark far fewer, mostly the errors that matter: on the ESA dev set (WMT24 en-hi) a rated output
has 0.64 spans, on the MQM dev sets 0.6–2.7. The same evidence therefore needs a stricter operating point to match
an ESA rater: only the spans whose confidence reaches :data:`OPERATING_POINTS` ``["esa"]``. The thresholds are
chosen on the dev sets (the ESA one for ESA) as the ones that maximise the WMT23 character F1 with severity; the
held-out sets never enter (``benchmarks/judge_vs_human.py``).
"""

from __future__ import annotations

from mtdiag.core.needs import human_protocol
from mtdiag.spans.confidence import DEFAULT_THRESHOLD

PROTOCOLS = ("mqm", "esa")
DEFAULT_PROTOCOL = "mqm"
OPERATING_POINTS: dict[str, dict[str, float]] = {"mqm": {"threshold": DEFAULT_THRESHOLD},
                                                  "esa": {"threshold": 0.30}}


def operating_point(protocol: str = DEFAULT_PROTOCOL) -> dict[str, float]:
    """The keyword arguments of :func:`mtdiag.spans.predict_spans` for ``protocol`` (``mqm`` or ``esa``)."""
    if protocol not in OPERATING_POINTS:
        raise ValueError(f"protocol {protocol!r}: choose one of {', '.join(PROTOCOLS)}")
    return dict(OPERATING_POINTS[protocol])


def protocol_of(report) -> str:
    """The protocol the loaded human scores follow (:func:`mtdiag.core.needs.human_protocol`), else
    :data:`DEFAULT_PROTOCOL`; None (no report yet: a command checking its flags) gives the default."""
    found = human_protocol(report.evalset) if report is not None else None
    return found or DEFAULT_PROTOCOL


def default_threshold(report, chosen=None) -> float:
    """The spans' confidence threshold at the operating point of :func:`protocol_of` ``report`` (the default of
    the span threshold wherever it is offered)."""
    return operating_point(protocol_of(report))["threshold"]

"""The statistics of predicted MQM and predicted ESA (:mod:`mtdiag.metrics.predicted_mqm`): per (system, segment)
the predicted error spans of each severity, their expected MQM penalty, ``Σ confidence · weight`` with the weights
of :data:`mtdiag.metrics.predicted_mqm.SEVERITY_WEIGHTS`, the reference words the output lacks
(:mod:`mtdiag.spans.omissions`) and the learned judge's score on the metric's scale (:mod:`mtdiag.spans.judge`;
``docs/spans.md``)."""

from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd

from mtdiag.metrics.predicted_mqm import SEVERITY_WEIGHTS, STAT_NAMES
from mtdiag.spans.judge import judged
from mtdiag.spans.omissions import missing_reference_words
from mtdiag.spans.predict import predict_spans

COUNTED = ("critical", "major", "minor")  # the first statistics, in STAT_NAMES' order


def penalty_statistics(spans: pd.DataFrame, systems: Sequence[str], n_segments: int,
                       omitted: np.ndarray | None = None) -> np.ndarray:
    """The statistics of the spans of ``systems`` and of the reference words their outputs miss.

    Shape ``(len(systems), n_segments, len(STAT_NAMES))``. The spans have ``system``, ``seg``, ``severity``,
    ``confidence``; spans of other systems are left out. ``omitted``: ``(len(systems), n_segments)`` missing reference
    words (none when not given)."""
    systems = list(systems)
    stats = np.zeros((len(systems), n_segments, len(STAT_NAMES)))
    stats[..., STAT_NAMES.index("segments")] = 1.0
    if omitted is not None:
        stats[..., STAT_NAMES.index("omitted")] = omitted
    spans = spans[spans["system"].isin(systems)]
    system = spans["system"].map({s: i for i, s in enumerate(systems)}).to_numpy(dtype=np.int64)
    seg = spans["seg"].to_numpy(dtype=np.int64)
    severity = spans["severity"].to_numpy()
    for column, name in enumerate(COUNTED):
        chosen = severity == name
        np.add.at(stats[..., column], (system[chosen], seg[chosen]), 1.0)
    weight = spans["severity"].map(SEVERITY_WEIGHTS).to_numpy(dtype=float)
    np.add.at(stats[..., STAT_NAMES.index("penalty")], (system, seg),
              spans["confidence"].to_numpy(dtype=float) * weight)
    return stats


def report_statistics(report, threshold: float) -> np.ndarray:
    """The statistics of every system of ``report`` (its order).

    They are computed from the spans predicted at ``threshold`` and the reference words each output lacks."""
    return penalty_statistics(predict_spans(report, threshold), list(report.evalset.systems),
                              report.evalset.n_segments, missing_reference_words(report))


def predicted_mqm_statistics(report, metric) -> dict[str, np.ndarray]:
    """The provider of :class:`~mtdiag.metrics.predicted_mqm.PredictedMQM` and of predicted ESA.

    Predicted ESA is the judge's score on the metric's ``protocol`` scale. Per system of ``report``: its
    ``(n_segments, len(STAT_NAMES))`` statistics at the metric's ``threshold``."""
    stats = report_statistics(report, metric.options["threshold"])
    scores = judged(report)[metric.protocol].to_numpy(dtype=float)
    stats[..., STAT_NAMES.index("judged")] = scores.reshape(len(report.evalset.systems), report.evalset.n_segments)
    return {s: stats[i] for i, s in enumerate(report.evalset.systems)}

"""The statistics of predicted MQM (:class:`mtdiag.metrics.predicted_mqm.PredictedMQM`) from predicted error spans:
per (system, segment) the spans of each severity and their expected MQM penalty, ``Σ confidence · weight`` with
the weights of :data:`mtdiag.metrics.predicted_mqm.SEVERITY_WEIGHTS` (``docs/spans.md``)."""

from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd

from mtdiag.metrics.predicted_mqm import SEVERITY_WEIGHTS, STAT_NAMES
from mtdiag.spans.predict import predict_spans

COUNTED = ("critical", "major", "minor")  # the first statistics, in STAT_NAMES' order


def penalty_statistics(spans: pd.DataFrame, systems: Sequence[str], n_segments: int) -> np.ndarray:
    """``(len(systems), n_segments, 5)`` statistics (``STAT_NAMES``) of the spans (``system``, ``seg``,
    ``severity``, ``confidence``) of those systems; spans of other systems are left out."""
    systems = list(systems)
    stats = np.zeros((len(systems), n_segments, len(STAT_NAMES)))
    stats[..., STAT_NAMES.index("segments")] = 1.0
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


def predicted_mqm_statistics(report, metric) -> dict[str, np.ndarray]:
    """The provider of :class:`~mtdiag.metrics.predicted_mqm.PredictedMQM`: per system of ``report``, its
    ``(n_segments, 5)`` statistics from the spans predicted at the metric's ``threshold``."""
    systems = list(report.evalset.systems)
    stats = penalty_statistics(predict_spans(report, metric.options["threshold"]), systems,
                               report.evalset.n_segments)
    return {s: stats[i] for i, s in enumerate(systems)}

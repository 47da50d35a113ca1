"""Predicted MQM: an MQM-like score of each output from the error spans mtdiag predicts (``docs/spans.md``).

MQM scores a segment by the severity-weighted count of the errors raters mark, negated (Freitag et al. 2021,
"Experts, Errors, and Context", TACL: minor 1, major 5; a segment scores 0 when clean). Predicted MQM applies the
same sum to the *predicted* spans of an output (:func:`mtdiag.spans.predict_spans` at the option ``threshold``), with
the weights of :data:`SEVERITY_WEIGHTS` — minor 1, major 5, critical 10 (critical as WMT22/23's MQM weighs it,
Freitag et al. 2022) — each span's weight taken with its confidence (its measured probability of being on a human
error): the segment score is minus the *expected* MQM penalty of its predicted spans, ``−Σ confidence · weight``.

Computed by default on sets of up to :data:`DEFAULT_MAX_PAIRS` (system, segment) pairs, on request above.

Sufficient statistics per segment: ``critical``, ``major``, ``minor`` (the spans of each severity), ``penalty``
(the expected penalty) and ``segments`` (1). The corpus score is ``−Σ penalty / Σ segments`` — the mean segment
score, as a system's MQM score is the mean over its segments — so significance, buckets and slices re-aggregate it
like any metric. Higher is better; 0 = no predicted error.

The statistics come from the spans, a layer above the metrics: this is a :class:`~mtdiag.metrics.base.
DerivedMetric`, whose statistics :func:`mtdiag.api.evaluate` derives from the report of the other metrics through
:attr:`PredictedMQM.provider` (``mtdiag.spans.mqm``; ``docs/architecture.md``).
"""

from __future__ import annotations

import numpy as np

from mtdiag.metrics.base import DerivedMetric, MetricInfo, OptionSpec, ScoringContext

# the one table of the weights of predicted severities (docs/spans.md: how they relate to the human MQM weights)
SEVERITY_WEIGHTS: dict[str, float] = {"minor": 1.0, "major": 5.0, "critical": 10.0}
STAT_NAMES = ("critical", "major", "minor", "penalty", "segments")
# by default on sets of at most this many (system, segment) pairs; above, on request (--metrics): its spans are
# predicted on the whole set, not slice by slice — 100k segments x 4 systems took 3,010 MiB and 141 s of CPU with
# it (docs/scaling.md), 10k x 2 1.7x the CPU of the other default metrics
DEFAULT_MAX_PAIRS = 100_000


class PredictedMQM(DerivedMetric):
    """Minus the expected severity-weighted count of an output's predicted error spans; higher is better."""

    info = MetricInfo(
        name="predicted_mqm", label="Predicted MQM", scale=25, higher_is_better=True, needs_references=False,
        min_systems_without_references=3,  # without a reference, the other systems are the evidence (consensus)
        compares_systems=True,  # a word's support counts the other systems
        default_max_pairs=DEFAULT_MAX_PAIRS,
        range_text="≤ 0 (0: no predicted error)",
        description="Minus the severity-weighted count (minor 1, major 5, critical 10) of the error spans mtdiag "
                    "predicts in the output, each weighted by its confidence; 0 = no predicted error. A system's "
                    "score is the mean over its segments, as MQM's.",
        paper="MQM scoring of Freitag et al. 2021 (TACL) applied to mtdiag's predicted spans (docs/spans.md)",
        options=(OptionSpec("threshold", 0.10, "confidence from which a predicted span counts", minimum=0.0,
                            maximum=1.0),),
    )
    provider = "mtdiag.spans.mqm:predicted_mqm_statistics"
    stat_names = STAT_NAMES

    def corpus_score(self, stats_sum: np.ndarray) -> np.ndarray:
        stats_sum = np.asarray(stats_sum, dtype=float)
        penalty, segments = stats_sum[..., 3], stats_sum[..., 4]
        return np.where(segments > 0, -penalty / np.maximum(segments, 1), np.nan) + 0.0

    def segment_scores(self, stats: np.ndarray) -> np.ndarray:
        return -np.asarray(stats, dtype=float)[..., 3] + 0.0

    def signature_fields(self, ctx: ScoringContext) -> tuple[tuple[str, str], ...]:
        weights = "/".join(f"{w:g}" for w in SEVERITY_WEIGHTS.values())
        return (("spans", "mtdiag"), ("weights", weights), *super().signature_fields(ctx))

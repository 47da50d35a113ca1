"""The evidence the learned judge reads, one row per (system, segment) of a report (``docs/spans.md``, "The
learned judge").

Everything is computed from what the report already has — its tokens, chrF's statistics and chrF consensus's
(:mod:`mtdiag.metrics.chrf_consensus`, counted with chrF's: predicted MQM has the scoring compute it), the words' support of the spans (:mod:`mtdiag.spans.support`), the missing reference words
(:mod:`mtdiag.spans.omissions`), the predicted spans and the checks — vectorised over every output at once, and
memoised per report (no text is tokenised again):

- **against the references**: sentence chrF (Popović 2015, the best reference), the share of the output's words
  no reference has (``ρ = 0``) and the missing reference words per reference word (clipped counts);
- **against the other systems** (consensus, Kumar & Byrne 2004; DeNero et al. 2009): character consensus — chrF's
  F-score (β = 2, orders 1–6) of the output against the other outputs of the source pooled (per order, the matches
  clipped against each other output summed, precision over ``(k − 1)`` times the output's n-grams, recall over
  the other outputs' n-grams) — and the words' mean system support σ;
- **trust in the reference, by evidence**: the reference's own character consensus against the outputs minus the
  outputs' mean consensus among themselves (a reference the outputs agree on scores high; a reference far from
  outputs that agree with each other is a paraphrase or a damaged line, and its claims count less: the model
  learns by how much), and the same gap per output (its chrF minus its consensus);
- **lengths**: the output's characters (log), and its length relative to the reference, to the other outputs
  (their median) and to the source (relative to the set's median ratio, which absorbs the scripts);
- **the checks and the spans**: how many checks fired, whether a critical one did, and the expected penalty of the
  predicted spans (the severity-weighted confidences of :mod:`mtdiag.spans.mqm`).

Features a set cannot have are NaN (no reference: every reference feature; fewer than three systems: every
consensus feature); the model treats NaN as missing (gradient boosting's default direction).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from mtdiag.core.tokenize import characters_without_spaces
from mtdiag.metrics.chrf_consensus import CHRF_ORDER, ChrfConsensus
from mtdiag.metrics.predicted_mqm import SEVERITY_WEIGHTS
from mtdiag.metrics.standard import CHRF, chrf_from_stats
from mtdiag.scoring.evaluate import metric_statistics
from mtdiag.spans.confidence import DEFAULT_THRESHOLD
from mtdiag.spans.omissions import missing_reference_words
from mtdiag.spans.phrases import word_flags
from mtdiag.spans.predict import predict_spans
from mtdiag.spans.support import MIN_SYSTEMS, word_support
from mtdiag.triage import checks

FEATURES = (
    "chrf", "consensus", "ref_consensus", "ref_trust", "chrf_over_consensus",
    "unsupported_share", "candidate_share", "sigma_mean", "rho_mean", "missing_share",
    "log_chars", "len_vs_ref", "len_vs_peers", "len_vs_source",
    "checks_fired", "critical_fired", "span_penalty_per_word",
)


def judge_features(report) -> pd.DataFrame:
    """:data:`FEATURES` per (system, seg) of the report; memoised per report.

    The index is as ``report.segments`` (systems in the report's order, then segments)."""
    return report.context.memo(("judge", "features"), lambda: _features(report))


def character_consensus(report) -> tuple[np.ndarray, np.ndarray]:
    """The character consensus ``(outputs, reference)`` of each output and of each segment's first reference.

    Per (system, segment) the output's character consensus against the other outputs (chrF consensus,
    :mod:`mtdiag.metrics.chrf_consensus`), and per segment the first reference's against all outputs — chrF's F-score
    with the reference's character n-grams as the hypothesis and every output's as references, pooled; NaN with fewer
    than :data:`MIN_SYSTEMS` systems (the reference's: without a reference or with fewer than two systems). With one
    reference, the reference's counts are chrF's statistics of the outputs turned round (no n-gram is counted again);
    with several, they are counted against the first, as the judge was fitted (:func:`_first_reference_consensus`)."""
    systems = report.evalset.systems
    outputs = np.full((len(systems), report.evalset.n_segments), np.nan)
    reference = np.full(report.evalset.n_segments, np.nan)
    if len(systems) >= MIN_SYSTEMS:
        outputs = chrf_from_stats(metric_statistics(report, ChrfConsensus()))
    if report.evalset.has_references and len(systems) >= 2:
        if len(report.evalset.ref_names) == 1:
            pooled = metric_statistics(report, CHRF()).sum(axis=0).reshape(report.evalset.n_segments, -1, 3)
            reference = chrf_from_stats(pooled[..., [1, 0, 2]].reshape(report.evalset.n_segments, -1))
        else:
            reference = _first_reference_consensus(report)
    return outputs, reference


def _first_reference_consensus(report) -> np.ndarray:
    """Per segment, chrF's F-score of the first reference (as the hypothesis) against every output pooled: from the
    report's character n-gram index (chrF's orders), the reference's counts clipped by each output's, summed."""
    index = report.context.char_ngrams(CHRF_ORDER)
    hyps = [("hyp", s) for s in report.evalset.systems]
    ref = ("ref", report.evalset.ref_names[0])
    orders = range(1, CHRF_ORDER + 1)
    totals = np.stack([index.segment_totals(hyps, n) for n in orders], axis=-1)  # (system, segment, order)
    match = np.stack([index.segment_sums(np.minimum(index.rows([ref], n).astype(np.int32), index.rows(
        hyps, n).astype(np.int32)).sum(axis=0, keepdims=True), n)[0] for n in orders], axis=-1)
    own = np.stack([index.segment_totals([ref], n)[0] for n in orders], axis=-1)
    stats = np.stack([own * len(hyps), totals.sum(axis=0), match], axis=-1)  # chrF's [hyp, ref, match] per order
    return chrf_from_stats(stats.reshape(stats.shape[0], -1))


def _sentence_chrf(report) -> np.ndarray:
    """Sentence chrF of every output, ``(n_systems, n_segments)``, from chrF's statistics (the report's when it
    computed chrF with its defaults: the same numbers)."""
    return chrf_from_stats(metric_statistics(report, CHRF()))


def _per_output(support, values: np.ndarray, n_systems: int, n_seg: int) -> np.ndarray:
    """Sum of per-token ``values`` per (system, segment), shape ``(n_systems, n_seg)``."""
    flat = support.system * n_seg + support.seg
    return np.bincount(flat, weights=values, minlength=n_systems * n_seg).reshape(n_systems, n_seg)


def _lengths(report) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Characters without whitespace of the outputs ``(n_systems, n_seg)``, the references (mean, per segment;
    NaN without one) and the source (per segment; NaN without one)."""
    evalset = report.evalset
    hyp = np.stack([characters_without_spaces(evalset.hyps[s]) for s in evalset.systems])
    refs = [characters_without_spaces(evalset.refs[r]) for r in evalset.ref_names]
    ref = np.mean(refs, axis=0) if refs else np.full(hyp.shape[1], np.nan)
    source = characters_without_spaces(evalset.src) if evalset.src is not None else np.full(hyp.shape[1], np.nan)
    return hyp, ref, source


def _word_evidence(report, n_systems: int, n_seg: int) -> dict[str, np.ndarray]:
    support = word_support(report)
    candidate, unsupported = word_flags(support)
    words = _per_output(support, support.word.astype(float), n_systems, n_seg)
    per_word = np.maximum(words, 1.0)
    evidence = {"words": words,
                "unsupported_share": _per_output(support, unsupported.astype(float), n_systems, n_seg) / per_word,
                "candidate_share": _per_output(support, candidate.astype(float), n_systems, n_seg) / per_word}
    for name, values in (("sigma_mean", support.sigma), ("rho_mean", support.rho)):
        defined = not np.isnan(values).all() if len(values) else False
        evidence[name] = (_per_output(support, np.where(support.word, np.nan_to_num(values), 0.0), n_systems, n_seg)
                          / per_word) if defined else np.full((n_systems, n_seg), np.nan)
    return evidence


def _span_penalty(report, n_systems: int, n_seg: int) -> np.ndarray:
    """Per output, the expected MQM penalty of its predicted spans at the default threshold: ``Σ confidence ·
    weight`` (the weights of :data:`mtdiag.metrics.predicted_mqm.SEVERITY_WEIGHTS`)."""
    spans = predict_spans(report, DEFAULT_THRESHOLD)
    penalty = np.zeros((n_systems, n_seg))
    system = spans["system"].map({s: i for i, s in enumerate(report.evalset.systems)}).to_numpy(dtype=np.int64)
    weight = spans["severity"].map(SEVERITY_WEIGHTS).to_numpy(dtype=float) * spans["confidence"].to_numpy(dtype=float)
    np.add.at(penalty, (system, spans["seg"].to_numpy(dtype=np.int64)), weight)
    return penalty


def _features(report) -> pd.DataFrame:
    evalset = report.evalset
    systems, n_seg = list(evalset.systems), evalset.n_segments
    k = len(systems)
    nan = np.full((k, n_seg), np.nan)
    has_refs = evalset.has_references
    chrf = _sentence_chrf(report) if has_refs else nan
    consensus, reference = character_consensus(report)
    words = _word_evidence(report, k, n_seg)
    hyp_len, ref_len, src_len = _lengths(report)
    ref_words = np.mean([side.lengths for side in report.context.tokens.refs.values()], axis=0) if has_refs else None
    missing = missing_reference_words(report) / np.maximum(ref_words, 1.0) if has_refs else nan
    log_hyp = np.log1p(hyp_len)
    to_source = log_hyp - np.log1p(src_len)[None, :]
    flags = checks.flag_frame(report)
    fired = flags.to_numpy(dtype=float).sum(axis=1).reshape(k, n_seg) if flags.shape[1] else np.zeros((k, n_seg))
    broken = checks.critical(flags).to_numpy(dtype=float).reshape(k, n_seg)
    penalty = _span_penalty(report, k, n_seg)
    columns = {
        "chrf": chrf, "consensus": consensus,
        "ref_consensus": np.broadcast_to(reference, (k, n_seg)),
        "ref_trust": np.broadcast_to(reference - np.nanmean(consensus, axis=0) if k >= MIN_SYSTEMS
                                     else np.full(n_seg, np.nan), (k, n_seg)),
        "chrf_over_consensus": chrf - consensus,
        "unsupported_share": words["unsupported_share"], "candidate_share": words["candidate_share"],
        "sigma_mean": words["sigma_mean"], "rho_mean": words["rho_mean"], "missing_share": missing,
        "log_chars": log_hyp, "len_vs_ref": log_hyp - np.log1p(ref_len)[None, :],
        "len_vs_peers": log_hyp - np.median(log_hyp, axis=0),
        "len_vs_source": to_source - (np.nanmedian(to_source) if np.isfinite(to_source).any() else 0.0),
        "checks_fired": fired, "critical_fired": broken,
        "span_penalty_per_word": penalty / np.maximum(words["words"], 1.0),
    }
    frame = pd.DataFrame({name: np.asarray(columns[name], dtype=float).reshape(-1) for name in FEATURES},
                         index=report.segments.index)
    return frame

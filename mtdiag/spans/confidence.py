"""How a predicted span's evidence becomes a confidence and a severity — measured on human error spans, not set
by hand (``docs/spans.md``, "Confidence"; the numbers below are printed by ``benchmarks/spans_vs_human.py --fit``
on the WMT21 TED zh-en dev set, and its leave-one-talk-out figures are in the docs).

**Confidence** is an estimate of the span's *precision*: the probability that it overlaps an error a human rater
marked.

- A phrase of words the references and the other systems do not support (:mod:`mtdiag.spans.phrases`): a
  logistic model of two features, ``P = 1 / (1 + exp(-(b0 + b1 · (1 − σ_min) + b2 · log(1 + words))))`` — how
  few other systems use its least-shared word (``σ_min``; 0 when the set has no consensus) and how many candidate
  words it holds. One coefficient triple per kind of evidence (:data:`LEXICAL_MODELS`), fitted by maximum
  likelihood; more features (the phrase's reference support, rare words, the output's overall agreement) did not
  lower the held-out log-loss.
- A span a triage check marks (``mtdiag.checks``: a loop, a copied source word, a wrong number, markup, an LLM
  artefact, …): the check's measured precision, smoothed by Laplace's rule of succession — ``(hits + 1) / (spans
  + 2)`` with the counts of :data:`CHECK_EVIDENCE` — so a check the dev set never saw fire gets 0.5 and one that
  fired often gets its observed precision.

**Severity** is the severity a human error under such a span most often has on the dev set (major for the
phrases, :data:`LEXICAL_SEVERITY`); a *critical* check (a plainly broken output) gives ``critical``; word-order
and bracket marks are ``minor`` (fluency). Severity says what an error there would be, not how sure the span is:
confidence does that.

:data:`DEFAULT_THRESHOLD` — a span is predicted by default when its confidence is at least the chance that a
randomly chosen output word lies in a human error span: about one in ten (11.4 % of the dev set's output words).
"""

from __future__ import annotations

import numpy as np

DEFAULT_THRESHOLD = 0.10

# kind -> (b0, b1 for 1 - σ_min, b2 for log(1 + words)); benchmarks/spans_vs_human.py --fit
LEXICAL_MODELS: dict[str, tuple[float, float, float]] = {
    "no_consensus": (-3.006, 1.446, 0.752),
    "no_reference": (-2.309, 0.000, 0.918),
    "unsupported": (-2.778, 1.253, 0.773),
}
LEXICAL_SEVERITY: dict[str, str] = {"unsupported": "major", "no_reference": "major", "no_consensus": "major"}

# check -> (spans that overlapped a human error, spans) on the dev set; benchmarks/spans_vs_human.py --fit
CHECK_EVIDENCE: dict[str, tuple[int, int]] = {"number_mismatch": (18, 37), "repetition": (0, 1),
                                               "word_order": (8, 147)}
CHECK_SEVERITY: dict[str, str] = {"word_order": "minor", "unbalanced": "minor"}  # fluency; others: major
SEVERITIES = ("minor", "major", "critical")


def lexical_features(min_sigma: np.ndarray, words: np.ndarray) -> np.ndarray:
    """The model's features per phrase, shape (n, 2): ``1 − σ_min`` (0 without consensus) and
    ``log(1 + words)``."""
    unshared = 1.0 - np.nan_to_num(np.asarray(min_sigma, dtype=np.float64), nan=1.0)
    return np.column_stack([unshared, np.log1p(np.asarray(words, dtype=np.float64))])


def lexical_confidence(kind: str, min_sigma: np.ndarray, words: np.ndarray,
                       models: dict[str, tuple[float, float, float]] = LEXICAL_MODELS) -> np.ndarray:
    """The confidence of phrases of one evidence kind (the module docstring), vectorised; ``models``: the
    coefficients (default the measured ones)."""
    b0, b1, b2 = models[kind]
    features = lexical_features(min_sigma, words)
    return 1.0 / (1.0 + np.exp(-(b0 + features @ np.array([b1, b2]))))


def check_confidence(check: str, evidence: dict[str, tuple[int, int]] = CHECK_EVIDENCE) -> float:
    """A check's span confidence: its dev-set precision by Laplace's rule (0.5 when it never fired there);
    ``evidence``: the counts (default the measured ones)."""
    hits, spans = evidence.get(check, (0, 0))
    return (hits + 1) / (spans + 2)


def check_severity(check: str, critical: bool) -> str:
    """``critical`` for a critical check, else :data:`CHECK_SEVERITY` (``major`` by default)."""
    return "critical" if critical else CHECK_SEVERITY.get(check, "major")

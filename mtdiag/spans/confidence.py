"""How a predicted span's evidence becomes a confidence and a severity — measured on human error spans, not set
by hand (``docs/spans.md``, "Confidence"; the numbers below are printed by ``benchmarks/spans_vs_human.py --fit``
on the TED zh-en and en-de dev sets, and their leave-one-talk-out figures are in the docs).

**Confidence** is an estimate of the span's *precision*: the probability that it overlaps an error a human rater
marked.

- A phrase of words the references and the other systems do not support (:mod:`mtdiag.spans.phrases`): a
  logistic model of two features, ``P = 1 / (1 + exp(-(b0 + b1 · (1 − σ_min) + b2 · log(1 + words))))`` — how
  few other systems use its least-shared word (``σ_min``; 0 when the set has no consensus) and how many candidate
  words it holds. One coefficient triple per kind of evidence (:data:`LEXICAL_MODELS`), fitted by maximum
  likelihood; more features (the phrase's reference support, rare words, the output's overall agreement) did not
  lower the held-out log-loss.
- A span a triage check marks (``mtdiag.triage.checks``: a loop, a copied source word, a wrong number, markup, an LLM
  artefact, …): the check's measured precision, smoothed by Laplace's rule of succession — ``(hits + 1) / (spans
  + 2)`` with the counts of :data:`CHECK_EVIDENCE` — so a check the dev set never saw fire gets 0.5 and one that
  fired often gets its observed precision.

- A *critical* check (a plainly broken output: empty, truncated, a loop, a flood, another language, a copy of the
  source, an LLM artefact): the measured share of the critical tier's firings on rated outputs that carry a major
  error on the dev sets (``docs/triage.md``, "Critical checks, measured": 18 of 20, :data:`CRITICAL_EVIDENCE`),
  by the same rule — a claim about the whole output, which no one set fires often enough to measure per check.

**Severity** is measured too (``docs/spans.md``, "Severity"): a phrase of one word is ``minor``, a longer one
``major`` (:func:`phrase_severity`) — on both dev sets with error rows, with and without references, one-word
phrases overlap a human error less often and, when they do, a minor one more often; a *critical* check gives
``critical``; word-order and bracket marks are ``minor`` (fluency), other marks ``major``.

:data:`DEFAULT_THRESHOLD` — a span is predicted by default when its confidence is at least the chance that a
randomly chosen output word lies in a human error span: about one in ten (11.4 % of the dev set's output words).
"""

from __future__ import annotations

import numpy as np

DEFAULT_THRESHOLD = 0.10

# kind -> (b0, b1 for 1 - σ_min, b2 for log(1 + words)); benchmarks/spans_vs_human.py --fit (TED zh-en, en-de)
LEXICAL_MODELS: dict[str, tuple[float, float, float]] = {
    "no_consensus": (-2.768, 1.200, 0.686),
    "no_reference": (-2.336, 0.000, 0.915),
    "unsupported": (-2.661, 1.115, 0.758),
}
MINOR_PHRASE_WORDS = 1  # a phrase of at most this many candidate words is minor, a longer one major

# check -> (spans that overlapped a human error, spans) on the dev sets (critical checks: CRITICAL_EVIDENCE)
CHECK_EVIDENCE: dict[str, tuple[int, int]] = {"number_mismatch": (18, 40), "unbalanced": (0, 3),
                                               "untranslated": (1, 5)}
CHECK_SEVERITY: dict[str, str] = {"word_order": "minor", "unbalanced": "minor"}  # fluency; others: major
# critical checks' firings on rated outputs of the dev sets, (with a major error, rated); docs/triage.md
CRITICAL_EVIDENCE: tuple[int, int] = (18, 20)
SEVERITIES = ("minor", "major", "critical")


def lexical_features(min_sigma: np.ndarray, words: np.ndarray) -> np.ndarray:
    """The model's features per phrase, shape (n, 2).

    The features are ``1 − σ_min`` (0 without consensus) and ``log(1 + words)``."""
    unshared = 1.0 - np.nan_to_num(np.asarray(min_sigma, dtype=np.float64), nan=1.0)
    return np.column_stack([unshared, np.log1p(np.asarray(words, dtype=np.float64))])


def lexical_confidence(kind: str, min_sigma: np.ndarray, words: np.ndarray,
                       models: dict[str, tuple[float, float, float]] = LEXICAL_MODELS) -> np.ndarray:
    """The confidence of phrases of one evidence kind (the module docstring), vectorised.

    ``models``: the coefficients (default the measured ones)."""
    b0, b1, b2 = models[kind]
    features = lexical_features(min_sigma, words)
    return 1.0 / (1.0 + np.exp(-(b0 + features @ np.array([b1, b2]))))


def check_confidence(check: str, evidence: dict[str, tuple[int, int]] = CHECK_EVIDENCE,
                     critical: bool = False) -> float:
    """A check's span confidence: its dev-set precision by Laplace's rule (0.5 when it never fired there).

    ``evidence``: the counts (default the measured ones). A ``critical`` check: the critical tier's measured rate
    (:data:`CRITICAL_EVIDENCE`)."""
    hits, spans = CRITICAL_EVIDENCE if critical else evidence.get(check, (0, 0))
    return (hits + 1) / (spans + 2)


def phrase_severity(words: np.ndarray) -> np.ndarray:
    """Per phrase, from its number of candidate words: ``minor`` up to :data:`MINOR_PHRASE_WORDS`, else ``major``."""
    return np.where(np.asarray(words) <= MINOR_PHRASE_WORDS, "minor", "major").astype(object)


def check_severity(check: str, critical: bool) -> str:
    """``critical`` for a critical check, else :data:`CHECK_SEVERITY` (``major`` by default)."""
    return "critical" if critical else CHECK_SEVERITY.get(check, "major")

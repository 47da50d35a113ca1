"""Phrases of an output that the references and the other systems do not support (``docs/spans.md``).

From the support of each word (:mod:`mtdiag.spans.support`: ``ρ``, the share of the references that have it;
``α``, the share whose word alignment with the output matches it in place; ``σ``, the share of the other systems'
outputs that have it):

- the word's **support** is the mean of the supports the set has (``(α + σ) / 2``; ``α`` alone with fewer than
  three systems; ``σ`` alone without a reference) — the references together weigh as much as the other systems
  together;
- a **candidate** is a word (not punctuation) with support below one half: most of the evidence lacks it where
  it stands;
- a candidate is **unsupported** when no reference has it anywhere (``ρ = 0``, with references) and fewer than
  half of the other systems do (``σ < 1/2``, with three or more systems); the other candidates — a word the
  references have elsewhere (moved) or only one of two references aligns, a word no reference has that half or
  more (not all) of the other systems use — only extend a phrase;
- a **phrase** is a run of candidates in which at most :data:`GAP` other tokens separate two candidates (a
  function word or a comma between two unsupported words belongs to the error a reader sees), kept when it holds
  an unsupported word. The gap is the one that maximises character F1 against human error spans
  (``docs/spans.md``).

Vectorised over every token of every output at once (runs by cumulative sums; per-phrase minima and counts by
``np.minimum.reduceat`` and ``np.bincount``).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from mtdiag.spans.support import WordSupport

GAP = 2  # tokens that may separate two candidate words of one phrase
PHRASE_COLUMNS = ["system", "seg", "first", "last", "words", "min_sigma", "kind"]


def evidence_kind(support: WordSupport) -> str | None:
    """The kind of evidence a set's phrases rest on, or None when there is nothing to compare an output with.

    ``unsupported`` (references and other systems), ``no_reference`` (references, fewer than three systems),
    ``no_consensus`` (other systems, no reference), None (one or two systems and no reference: nothing to compare an
    output with)."""
    if support.has_references:
        return "unsupported" if support.has_consensus else "no_reference"
    return "no_consensus" if support.has_consensus else None


def word_flags(support: WordSupport) -> tuple[np.ndarray, np.ndarray]:
    """``(candidate, unsupported)`` per token (the module docstring)."""
    levels = ([support.aligned] if support.has_references else []) + ([support.sigma] if support.has_consensus
                                                                       else [])
    if not levels:
        empty = np.zeros(len(support.token), dtype=bool)
        return empty, empty
    candidate = support.word & (np.mean(levels, axis=0) < 0.5)
    unsupported = candidate.copy()
    if support.has_references:
        unsupported &= support.rho == 0
    if support.has_consensus:
        unsupported &= support.sigma < 0.5
    return candidate, unsupported


def phrases(support: WordSupport, gap: int = GAP) -> pd.DataFrame:
    """One row per phrase of the outputs (:data:`PHRASE_COLUMNS`).

    Its ``system`` and ``seg``, its ``first`` and ``last`` token positions (inclusive), ``words`` (its candidate words),
    ``min_sigma`` (the least system support among its unsupported words; NaN without consensus) and its evidence
    ``kind``."""
    kind = evidence_kind(support)
    candidate, unsupported = word_flags(support)
    at = np.flatnonzero(candidate)
    if kind is None or len(at) == 0:
        return pd.DataFrame({c: pd.Series(dtype=object if c in ("system", "kind") else np.float64 if c == "min_sigma"
                                          else np.int64) for c in PHRASE_COLUMNS})
    same_output = (support.system[at[1:]] == support.system[at[:-1]]) & (support.seg[at[1:]] == support.seg[at[:-1]])
    close = support.pos[at[1:]] - support.pos[at[:-1]] - 1 <= gap
    starts = np.flatnonzero(np.concatenate([[True], ~(same_output & close)]))
    ends = np.concatenate([starts[1:], [len(at)]]) - 1
    phrase = np.repeat(np.arange(len(starts)), np.diff(np.concatenate([starts, [len(at)]])))
    held = np.bincount(phrase, weights=unsupported[at], minlength=len(starts)) > 0
    sigma = np.where(unsupported[at], support.sigma[at], np.inf)
    min_sigma = np.minimum.reduceat(sigma, starts) if len(starts) else np.zeros(0)
    first, last = at[starts], at[ends]
    frame = pd.DataFrame({
        "system": np.asarray(support.systems, dtype=object)[support.system[first]],
        "seg": support.seg[first],
        "first": support.pos[first],
        "last": support.pos[last],
        "words": np.bincount(phrase, minlength=len(starts)),
        "min_sigma": np.where(np.isfinite(min_sigma), min_sigma, np.nan),
        "kind": kind,
    })
    return frame[held].reset_index(drop=True)

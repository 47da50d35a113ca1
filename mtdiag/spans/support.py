"""How well each word of each output is supported: by the references and by the other systems' outputs.

For the token at position ``pos`` of system ``s``'s output of segment ``g`` (the report's tokens: sacrebleu's
tokeniser, case-folded, typography normalised):

- **reference support** ``ρ`` = the share of the references whose segment ``g`` contains the token. A word that
  is in a reference is one an edit alignment with block shifts can match (TER, Snover et al. 2006, with shifts of
  any length and distance); ``ρ = 0`` is the baseline notion "a word of the output that is not in the reference",
  taken against every reference at once;
- **aligned support** ``α`` = the share of the references whose word-level Levenshtein alignment with the
  output matches the token in place — WAFT's edit operations (Forsbom 2003; :mod:`mtdiag.metrics.waft_neva`,
  rapidfuzz opcodes on token ids). ``α ≤ ρ``: a word the reference has elsewhere (moved) is in ``ρ``, not in
  ``α``;
- **system support** ``σ`` = the share of the *other* systems whose output of segment ``g`` contains the token:
  the other outputs as pseudo-references, the agreement minimum-Bayes-risk decoding maximises (Kumar & Byrne
  2004; the unigram case of the consensus metric, :mod:`mtdiag.metrics.consensus`). Defined with at least
  :data:`MIN_SYSTEMS` systems (two others), as consensus is.

``ρ`` and ``σ`` are computed for every token of every system at once: each side's distinct ``(segment, token)``
keys are sorted once, and a token's support is a count of the sides that have its key (``np.unique`` and
``np.searchsorted``, no loop over tokens); ``α`` takes one rapidfuzz alignment per (system, segment, reference),
its matched blocks added up by a difference array. ``NaN`` where the set has no reference, or too few systems.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from rapidfuzz.distance import Levenshtein

from mtdiag.triage.checks.tokens import word_ids
from mtdiag.metrics.consensus import Consensus
from mtdiag.metrics.waft_neva import token_strings
from mtdiag.core.tokenize import TokenSide, concat_ranges

MIN_SYSTEMS = Consensus.info.min_systems  # with fewer, each output is the other's only pseudo-reference


@dataclass(frozen=True)
class WordSupport:
    """The reference, aligned and system support of every token of every output, one row per token.

    Rows: systems in the report's order, then segments, then positions. Columns: ``system`` (index into ``systems``),
    ``seg``, ``pos``, ``token`` (vocabulary id), ``word`` (not punctuation), ``rho``, ``aligned`` and ``sigma`` (``ρ``,
    ``α``, ``σ`` of the module docstring; NaN when not defined); ``n_refs`` references."""

    systems: tuple[str, ...]
    n_refs: int
    system: np.ndarray
    seg: np.ndarray
    pos: np.ndarray
    token: np.ndarray
    word: np.ndarray
    rho: np.ndarray
    aligned: np.ndarray
    sigma: np.ndarray

    @property
    def has_references(self) -> bool:
        """True when the set has at least one reference."""
        return self.n_refs > 0

    @property
    def has_consensus(self) -> bool:
        """System support is defined (:data:`MIN_SYSTEMS` systems or more)."""
        return len(self.sigma) > 0 and not np.isnan(self.sigma).all()


def token_keys(side, n_vocab: int) -> np.ndarray:
    """One int64 key per token of a side: ``seg * n_vocab + token``."""
    seg = np.repeat(np.arange(side.n_segments, dtype=np.int64), side.lengths)
    return seg * n_vocab + side.ids


def _count_sides(keys: np.ndarray, sides: list[np.ndarray]) -> np.ndarray:
    """Per key of ``keys``: how many of the sides (arrays of keys) contain it."""
    distinct = [np.unique(k) for k in sides]
    values, counts = np.unique(np.concatenate(distinct), return_counts=True) if distinct else (np.zeros(0, np.int64),
                                                                                              np.zeros(0, np.int64))
    at = np.minimum(np.searchsorted(values, keys), max(len(values) - 1, 0))
    found = values[at] == keys if len(values) else np.zeros(len(keys), dtype=bool)
    return np.where(found, counts[at] if len(values) else 0, 0)


def _aligned_counts(hyps: list, refs: list) -> np.ndarray:
    """Per token of the systems' sides (concatenated): how many references' Levenshtein alignments match it."""
    total = sum(len(side.ids) for side in hyps)
    delta = np.zeros(total + 1, dtype=np.int64)
    ref_strings = [token_strings(side) for side in refs]
    base = 0
    for side in hyps:
        starts = side.offsets[:-1] + base
        for seg, hyp in enumerate(token_strings(side)):
            for column in ref_strings:
                for block in Levenshtein.opcodes(column[seg], hyp):
                    if block.tag == "equal":
                        delta[starts[seg] + block.dest_start] += 1
                        delta[starts[seg] + block.dest_end] -= 1
        base += len(side.ids)
    return np.cumsum(delta[:-1])


def word_support(report, segments: tuple[int, ...] | None = None) -> WordSupport:
    """Reference and system support of every output token of the report, or of the outputs of ``segments`` only.

    ``segments`` are 0-based; the support of a word depends on its segment's references and outputs alone, so the rows
    are those of the whole report's for these segments. Memoised per report and segments."""
    return report.context.memo(("spans", "support", segments), lambda: _word_support(report, segments))


def _segments_of(side: TokenSide, segments: np.ndarray) -> TokenSide:
    """The tokens of ``segments`` of a side, as a side of their own (its segment ``i`` is ``segments[i]``)."""
    lengths = side.lengths[segments]
    offsets = np.zeros(len(segments) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    return TokenSide(ids=side.ids[concat_ranges(side.offsets[:-1][segments], lengths)], offsets=offsets)


def _word_support(report, segments: tuple[int, ...] | None = None) -> WordSupport:
    tokens = report.context.tokens
    systems = tuple(report.evalset.systems)
    n_vocab = max(len(tokens.vocab), 1)
    chosen = None if segments is None else np.asarray(segments, dtype=np.int64)
    sides = [tokens.hyps[s] if chosen is None else _segments_of(tokens.hyps[s], chosen) for s in systems]
    ref_sides = [side if chosen is None else _segments_of(side, chosen) for side in tokens.refs.values()]
    keys = [token_keys(side, n_vocab) for side in sides]
    flat = np.concatenate(keys) if keys else np.zeros(0, np.int64)
    system = np.repeat(np.arange(len(systems), dtype=np.int64), [len(k) for k in keys])
    seg = flat // n_vocab if chosen is None else chosen[flat // n_vocab]
    token = flat % n_vocab
    pos = np.concatenate([np.arange(len(k)) - np.repeat(side.offsets[:-1], side.lengths)
                          for k, side in zip(keys, sides)]) if keys else np.zeros(0, np.int64)
    refs = [token_keys(side, n_vocab) for side in ref_sides]
    rho = _count_sides(flat, refs) / len(refs) if refs else np.full(len(flat), np.nan)
    aligned = (_aligned_counts(sides, ref_sides) / len(refs) if refs
               else np.full(len(flat), np.nan))
    if len(systems) >= MIN_SYSTEMS:
        sigma = (_count_sides(flat, keys) - 1) / (len(systems) - 1)
    else:
        sigma = np.full(len(flat), np.nan)
    return WordSupport(systems=systems, n_refs=len(refs), system=system, seg=seg, pos=pos.astype(np.int64),
                       token=token, word=word_ids(report)[token] if len(token) else np.zeros(0, dtype=bool),
                       rho=rho, aligned=aligned, sigma=sigma)

"""Translation Edit Rate (TER) — an exact, compiled port of sacrebleu's ``metrics/lib_ter.py``.

TER (Snover, Dorr, Schwartz, Micciulla, Makhoul 2006, "A Study of Translation Edit Rate with Targeted Human
Annotation", AMTA) is the number of edits — insertions, deletions, substitutions and shifts of word blocks — that
turn the hypothesis into the reference, divided by the reference length. This module reproduces, decision for
decision, the Tercom re-implementation in sacrebleu 2.x (Post 2018; ``sacrebleu/metrics/lib_ter.py``, Memsource):

- the *beam* edit distance (``BeamEditDistance``): only a band of ``BEAM_WIDTH`` = 25 cells on either side of the
  pseudo-diagonal ``floor(i * len_ref / len_hyp)`` is filled (widened when the length ratio exceeds 50), the last row
  is filled completely, cells outside the band are "infinite" (10^16), and ties prefer match/substitution, then
  deletion, then insertion (sacrebleu's order, chosen because the trace is flipped);
- the greedy shift search (``_shift`` / ``_find_shifted_pairs``): block pairs of up to ``MAX_SHIFT_SIZE`` = 10
  words whose start positions differ by at most ``MAX_SHIFT_DIST`` = 50, the error/alignment filters taken from the
  flipped trace, every target position ``align[r] + 1`` of the block's reference span (and 0), candidates ranked by
  (gain, length, earliest start, earliest target), at most ``MAX_SHIFT_CANDIDATES`` = 1000 evaluated per segment —
  and, as in sacrebleu, when that budget runs out the best shift of the current round is *not* applied;
- ``translation_edit_rate``: shift while the best shift strictly lowers the edit distance; edits = shifts + final
  edit distance; an empty reference gives (len(hyp), 0).

What is different (and why results are still identical):

- **Compiled kernel.** Words are encoded as integer ids once (every hypothesis word that is not in the reference
  vocabulary gets the id -1 — the algorithm depends on a hypothesis word only through the reference words it
  equals, so this cannot change a result) and the whole per-segment algorithm runs in a numba
  ``@njit(cache=True)`` kernel (:mod:`mtdiag.metrics.ter_kernel`). numba is imported lazily, on the first
  computation, so importing :mod:`mtdiag` stays fast.
- **No trie cache.** sacrebleu caches edit-distance rows per hypothesis prefix; a row depends only on the prefix
  and on the (shift-invariant) hypothesis length, so that cache (and its 10,000-row limit) never changes a value.
  We instead keep the full matrix of the current hypothesis and recompute, for each shift candidate, only the rows
  after the first word the shift changes (two rolling rows), and stop as soon as a row's minimum — a lower bound
  of the candidate's distance — shows that it cannot be the shift sacrebleu picks (its gain would be below the
  best so far, or not positive). Only the chosen shift's gain is ever used, so the result is the same. With unit
  costs (plain TER) the rows also stop after the *last* word the shift changes: the words after it are the
  current hypothesis's, so the distance is the minimum over that row of its value plus the in-band distance from
  there to the end, which one backward pass per shift round gives for every cell (``_suffix_distances``; integer
  sums, so the very number the remaining rows would reach). On dev zh-en this takes TER from 4.9 s to ~3.5 s.
- **Per-reference-token costs** (for TERm, ``docs/metrics.md``, "Terminology"): optionally each reference token j has a
  cost λ_j, paid instead of 1 when that token is substituted or missing from the hypothesis (the edit-distance
  "insertion" of a reference word, including the first matrix row, which becomes the prefix sums of λ).
  Hypothesis words with no reference counterpart and shifts still cost 1, matches cost 0. All distances are
  float64; with every λ = 1 all values are small integers held exactly, so the edits equal sacrebleu's bit for bit.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from functools import cache, cached_property
from typing import Sequence

import numpy as np
import pandas as pd

from mtdiag.core.tokenize import concat_ranges
from mtdiag.metrics.ter_kernel import batch_kernel


@dataclass(frozen=True)
class TerTokenization:
    """The four options of sacrebleu's TER tokenisation.

    They are those of ``TER(normalized=, no_punct=, asian_support=, case_sensitive=)``, passed unchanged to its
    ``TercomTokenizer``:

    - ``normalized``: Tercom's character normalisation (XML entities, punctuation split off words);
    - ``no_punct``: remove punctuation;
    - ``asian_support``: with ``normalized``, split CJK characters (and kana/hangul runs) apart; with ``no_punct``,
      also remove CJK and full-width punctuation. **On its own it does nothing** — sacrebleu applies it only inside
      the ``normalized`` and ``no_punct`` steps, and so do we;
    - ``case_sensitive``: keep case (off: lower-case, sacrebleu's default).

    The defaults are sacrebleu's. :mod:`mtdiag.metrics.ter` resolves the target-language dependent default
    (``normalized``/``asian_support`` on for zh/ja/ko, ``docs/metrics.md``).
    """

    normalized: bool = False
    no_punct: bool = False
    asian_support: bool = False
    case_sensitive: bool = False

    @property
    def signature_fields(self) -> tuple[tuple[str, str], ...]:
        """sacrebleu's TER signature fields for these options: ``case:lc|tok:tercom|norm:no|punct:yes|asian:no``."""
        yes_no = {True: "yes", False: "no"}
        return (("case", "mixed" if self.case_sensitive else "lc"), ("tok", "tercom"),
                ("norm", yes_no[self.normalized]), ("punct", yes_no[not self.no_punct]),
                ("asian", yes_no[self.asian_support]))


@cache
def _tercom(tokenization: TerTokenization):
    from sacrebleu.tokenizers.tokenizer_ter import TercomTokenizer

    return TercomTokenizer(normalized=tokenization.normalized, no_punct=tokenization.no_punct,
                           asian_support=tokenization.asian_support, case_sensitive=tokenization.case_sensitive)


def ter_words(text: str, tokenization: TerTokenization = TerTokenization()) -> list[str]:
    """The words sacrebleu's TER scores: ``TER(**options)._preprocess_segment(text).split()``.

    That is sacrebleu's Tercom tokenizer with the options of ``tokenization`` (default: normalized=False,
    no_punct=False, asian_support=False, case_sensitive=False — lower-casing and whitespace normalisation only)
    applied to the right-stripped text. Without ``normalized`` and ``no_punct`` that tokenizer only folds case and
    joins the words with single spaces, so its words are computed directly (``tests/test_ter.py`` compares).
    """
    if not tokenization.normalized and not tokenization.no_punct:
        text = text.rstrip()
        return (text if tokenization.case_sensitive else text.lower()).split()
    return _tercom(tokenization)(text.rstrip()).split()


@dataclass(frozen=True, eq=False)
class ReferenceSet:
    """Reference columns tokenised for TER and encoded once, to be scored against any number of systems.

    ``words[k][s]`` are the TER words of reference column k, segment s. ``tokens``/``offsets`` hold the same words
    as integer ids, column after column (reference ``k * n_segments + s`` spans
    ``tokens[offsets[i]:offsets[i + 1]]``); ``vocab`` maps a word to its id.
    """

    words: tuple[tuple[tuple[str, ...], ...], ...]
    vocab: dict[str, int]
    tokens: np.ndarray
    offsets: np.ndarray

    @classmethod
    def from_words(cls, columns: Sequence[Sequence[Sequence[str]]]) -> ReferenceSet:
        """Encode reference word lists ``columns[k][s]`` (every column must have the same number of segments)."""
        words = tuple(tuple(tuple(seg) for seg in column) for column in columns)
        if not words:
            raise ValueError("TER needs at least one reference")
        if len({len(column) for column in words}) != 1:
            raise ValueError("every reference column must have the same number of segments")
        vocab: dict[str, int] = {}
        flat = [vocab.setdefault(w, len(vocab)) for column in words for seg in column for w in seg]
        lengths = [len(seg) for column in words for seg in column]
        offsets = np.zeros(len(lengths) + 1, dtype=np.int64)
        np.cumsum(lengths, out=offsets[1:])
        return cls(words, vocab, np.asarray(flat, dtype=np.int64), offsets)

    @cached_property
    def _vocab_index(self) -> pd.Index:
        """The vocabulary as a hash index: a word's position is its id (-1 for a word no reference has)."""
        return pd.Index(list(self.vocab), dtype=object)

    @property
    def n_refs(self) -> int:
        """The number of reference columns."""
        return len(self.words)

    @property
    def n_segments(self) -> int:
        """The number of segments."""
        return len(self.words[0])

    @property
    def lengths(self) -> np.ndarray:
        """Reference lengths in words, shape (n_segments, n_refs)."""
        return np.diff(self.offsets).reshape(self.n_refs, self.n_segments).T

    def average_lengths(self) -> np.ndarray:
        """Per segment, the average reference length (sacrebleu's second TER statistic)."""
        return self.lengths.sum(axis=1) / self.n_refs

    def flat_costs(self, ref_costs: Sequence[Sequence[Sequence[float] | None]] | None) -> np.ndarray:
        """Per-token costs aligned with ``tokens``: ``ref_costs[k][s]`` (None = all 1) or all 1 when None."""
        costs = np.ones(len(self.tokens), dtype=np.float64)
        if ref_costs is None:
            return costs
        if len(ref_costs) != self.n_refs:
            raise ValueError(f"ref_costs has {len(ref_costs)} columns, the references have {self.n_refs}")
        for k, column in enumerate(ref_costs):
            if len(column) != self.n_segments:
                raise ValueError(f"ref_costs column {k} has {len(column)} segments, expected {self.n_segments}")
            for s, seg_costs in enumerate(column):
                if seg_costs is None:
                    continue
                seg = np.asarray(seg_costs, dtype=np.float64)
                start, end = self.offsets[k * self.n_segments + s], self.offsets[k * self.n_segments + s + 1]
                if seg.shape != (end - start,):
                    raise ValueError(
                        f"ref_costs[{k}][{s}] has shape {seg.shape}; the reference has {end - start} TER words"
                    )
                if not np.all(np.isfinite(seg) & (seg >= 0)):
                    raise ValueError(f"ref_costs[{k}][{s}] must be finite and non-negative")
                costs[start:end] = seg
        return costs

    def edits(
        self,
        hyp_words: Sequence[Sequence[str]],
        ref_costs: Sequence[Sequence[Sequence[float] | None]] | None = None,
    ) -> np.ndarray:
        """Edits of every hypothesis against every reference, shape (n_segments, n_refs), float64.

        ``hyp_words[s]`` are the TER words of segment s (see :func:`ter_words`); ``ref_costs`` as in
        :meth:`flat_costs`. With unit costs each value equals sacrebleu's ``translation_edit_rate(...)[0]``.
        """
        if len(hyp_words) != self.n_segments:
            raise ValueError(f"{len(hyp_words)} hypotheses for {self.n_segments} reference segments")
        hyp_lengths = [len(seg) for seg in hyp_words]
        hyp_offsets = np.zeros(len(hyp_lengths) + 1, dtype=np.int64)
        np.cumsum(hyp_lengths, out=hyp_offsets[1:])
        words = list(itertools.chain.from_iterable(hyp_words))
        hyp_tokens = self._vocab_index.get_indexer(words).astype(np.int64) if words else np.zeros(0, np.int64)
        seg_index = np.arange(self.n_segments, dtype=np.int64)
        pair_hyp = np.tile(seg_index, self.n_refs)
        pair_ref = np.arange(self.n_refs * self.n_segments, dtype=np.int64)
        edits = batch_kernel()(
            hyp_tokens, hyp_offsets, self.tokens, self.offsets, self.flat_costs(ref_costs), pair_hyp, pair_ref
        )
        return edits.reshape(self.n_refs, self.n_segments).T

    def statistics(
        self,
        hyp_words: Sequence[Sequence[str]],
        ref_costs: Sequence[Sequence[Sequence[float] | None]] | None = None,
    ) -> np.ndarray:
        """sacrebleu's TER segment statistics, shape (n_segments, 2): [best (minimum) edits, average ref length]."""
        return np.column_stack([self.minimum_edits([hyp_words], ref_costs)[0], self.average_lengths()])

    def minimum_edits(
        self,
        columns: Sequence[Sequence[Sequence[str]]],
        ref_costs: Sequence[Sequence[Sequence[float] | None]] | None = None,
    ) -> np.ndarray:
        """The fewest edits over the references of every segment of several hypothesis columns (systems).

        Shape (n_columns, n_segments); each value is the minimum of :meth:`edits` over the references, computed with
        less:

        - a hypothesis equal to another column's for the same segment is scored once;
        - with unit costs, each hypothesis is first scored against the reference with the smallest lower bound
          of its edits, and another reference only when its bound is below the edits found: the bound is
          ``max(hypothesis length, reference length) - words in common`` (as multisets) — a substitution,
          insertion or deletion fixes at most one word, and a shift moves words without changing them — so a
          reference skipped cannot have fewer edits, and the minimum is the same.
        """
        for column in columns:
            if len(column) != self.n_segments:
                raise ValueError(f"{len(column)} hypotheses for {self.n_segments} reference segments")
        distinct: dict[tuple[int, tuple[str, ...]], int] = {}
        where = np.array([[distinct.setdefault((s, tuple(words)), len(distinct)) for s, words in enumerate(column)]
                          for column in columns], dtype=np.int64).reshape(len(columns), self.n_segments)
        segment = np.fromiter((s for s, _ in distinct), dtype=np.int64, count=len(distinct))
        lengths = np.fromiter((len(words) for _, words in distinct), dtype=np.int64, count=len(distinct))
        offsets = np.zeros(len(distinct) + 1, dtype=np.int64)
        np.cumsum(lengths, out=offsets[1:])
        flat = [w for _, words in distinct for w in words]
        tokens = self._vocab_index.get_indexer(flat).astype(np.int64) if flat else np.zeros(0, np.int64)
        costs = self.flat_costs(ref_costs)
        kernel = batch_kernel()

        def edits(hyp: np.ndarray, ref: np.ndarray) -> np.ndarray:
            return kernel(tokens, offsets, self.tokens, self.offsets, costs, hyp, ref * self.n_segments + segment[hyp])

        everyone = np.arange(len(distinct), dtype=np.int64)
        if ref_costs is not None or self.n_refs == 1:
            best = np.full(len(distinct), np.inf)
            for k in range(self.n_refs):
                best = np.minimum(best, edits(everyone, np.full(len(distinct), k, dtype=np.int64)))
        else:
            bound = self._lower_bounds(tokens, offsets, segment)
            first = bound.argmin(axis=1)
            best = edits(everyone, first)
            hyp, ref = np.nonzero((bound < best[:, None]) & (np.arange(self.n_refs) != first[:, None]))
            if len(hyp):
                np.minimum.at(best, hyp, edits(hyp, ref))
        return best[where]

    def _lower_bounds(self, tokens: np.ndarray, offsets: np.ndarray, segment: np.ndarray) -> np.ndarray:
        """Per hypothesis (``tokens``/``offsets``, of segment ``segment[i]``) and reference: ``max(lengths) -
        words in common``, a lower bound of the TER edits (see :meth:`minimum_edits`)."""
        width = len(self.vocab) + 1
        n_hyps = len(segment)
        hyp_lengths = np.diff(offsets)
        hyp_of = np.repeat(np.arange(n_hyps, dtype=np.int64), hyp_lengths)
        known = tokens >= 0  # a word no reference has is in common with none
        hyp_keys, hyp_counts = np.unique(hyp_of[known] * width + tokens[known], return_counts=True)
        bounds = np.empty((n_hyps, self.n_refs), dtype=np.float64)
        for k in range(self.n_refs):
            starts = self.offsets[k * self.n_segments + segment]
            ref_lengths = self.offsets[k * self.n_segments + segment + 1] - starts
            ref_tokens = self.tokens[concat_ranges(starts, ref_lengths)]
            ref_keys, ref_counts = np.unique(np.repeat(np.arange(n_hyps, dtype=np.int64), ref_lengths) * width
                                             + ref_tokens, return_counts=True)
            at = np.minimum(np.searchsorted(hyp_keys, ref_keys), max(len(hyp_keys) - 1, 0))
            shared = (hyp_keys[at] == ref_keys) if len(hyp_keys) else np.zeros(len(ref_keys), dtype=bool)
            common = np.bincount(ref_keys[shared] // width, minlength=n_hyps,
                                 weights=np.minimum(hyp_counts[at[shared]], ref_counts[shared]))
            bounds[:, k] = np.maximum(hyp_lengths, ref_lengths) - common
        return bounds


def translation_edit_rate(
    words_hyp: Sequence[str], words_ref: Sequence[str], ref_costs: Sequence[float] | None = None
) -> tuple[float, int]:
    """(number of edits, reference length) for one pair of TER word lists — sacrebleu's function of that name.

    ``ref_costs`` optionally gives one cost per reference word (see the module docstring).
    """
    refs = ReferenceSet.from_words([[words_ref]])
    costs = None if ref_costs is None else [[ref_costs]]
    return float(refs.edits([words_hyp], costs)[0, 0]), len(words_ref)


def load_kernel() -> None:
    """Load the compiled kernel for unit and for per-word costs (TER and TERm), compiling it the first time.

    It is loaded from numba's on-disk cache, compiled and cached the first time. ``make install`` calls it (no user
    waits for the compiler), and the dashboard in a background thread once its first page is drawn, so that the first
    set it scores does not wait 1-3 s for numba to import and load (docs/scaling.md)."""
    translation_edit_rate(["a"], ["b"])

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
  ``@njit(cache=True)`` kernel. numba is imported lazily, on the first computation, so importing :mod:`mtdiag`
  stays fast.
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
import math
import threading
from dataclasses import dataclass
from functools import cache, cached_property
from typing import Sequence

import numpy as np
import pandas as pd

from mtdiag.core.tokenize import concat_ranges

BEAM_WIDTH = 25
MAX_SHIFT_SIZE = 10
MAX_SHIFT_DIST = 50
MAX_SHIFT_CANDIDATES = 1000


@dataclass(frozen=True)
class TerTokenization:
    """The four options of sacrebleu's TER tokenisation (``TER(normalized=, no_punct=, asian_support=,
    case_sensitive=)``, passed unchanged to its ``TercomTokenizer``).

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
        return len(self.words)

    @property
    def n_segments(self) -> int:
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
        edits = _kernel()(
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
        """The fewest edits over the references of every segment of several hypothesis columns (systems): shape
        (n_columns, n_segments), each value the minimum of :meth:`edits` over the references, computed with less:

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
        kernel = _kernel()

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
    """Load the compiled kernel for unit and for per-word costs (TER and TERm) from numba's on-disk cache, compiling
    and caching it the first time. ``make install`` calls it (no user waits for the compiler), and the dashboard in a
    background thread once its first page is drawn, so that the first set it scores does not wait 1-3 s for numba
    to import and load (docs/scaling.md)."""
    translation_edit_rate(["a"], ["b"])
    translation_edit_rate(["a"], ["b"], [1.0])


# The compiled kernel. Each function below is plain Python that _kernel() compiles in place with numba: the
# module-level name is replaced by its dispatcher, so compiled callers resolve compiled callees (numba reads
# globals at compile time) and numba's on-disk cache (cache=True) can be reused by later processes (functions
# defined inside _kernel() would capture their callees as closure variables, which defeats that cache).

_INF = 1e16  # sacrebleu's _INT_INFINITY: a cell outside the band; costs are >= 0, so nothing built on it is less
_OP_NOP, _OP_SUB, _OP_INS, _OP_DEL, _OP_UNDEF = 0, 1, 2, 3, 4  # ins: a reference word; del: a hypothesis word
_COMPILED = (
    "_beam_geometry", "_fill_row", "_alignment", "_perform_shift", "_shifted_distance", "_suffix_distances",
    "_best_shift",
    "_pair_edits", "_batch",
)


_KERNEL_LOCK = threading.Lock()


@cache
def _kernel():
    """Compile the kernel (or load it from numba's cache) on first use; returns :func:`_batch`. Thread-safe (slices
    are scored on several threads) and compiled ``nogil``, so those threads really run on several cores."""
    from numba import njit

    with _KERNEL_LOCK:
        namespace = globals()
        for name in _COMPILED:
            if not hasattr(namespace[name], "py_func"):
                namespace[name] = njit(cache=True, nogil=True)(namespace[name])
        return namespace["_batch"]


def _beam_geometry(n_h, n_r, lo, hi):
    # BeamEditDistance._edit_distance: the band [lo[i], hi[i]) of row i; row 0 and the last row are full.
    ratio = n_r / n_h if n_h > 0 else 1.0
    width = math.ceil(ratio / 2 + BEAM_WIDTH) if BEAM_WIDTH < ratio / 2 else BEAM_WIDTH
    lo[0] = 0
    hi[0] = n_r + 1
    for i in range(1, n_h + 1):
        diag = math.floor(i * ratio)
        lo[i] = max(0, diag - width)
        hi[i] = min(n_r + 1, diag + width)
    hi[n_h] = n_r + 1


def _fill_row(prev, plo, phi, cur, lo, hi, ops, word, ref, cost):
    # One row of the beam edit distance: cells of the previous row outside [plo, phi) and of this row left of lo
    # are infinite (written as sentinels into prev, outside its band, so the loop needs no bounds tests). Strict
    # "<" in sacrebleu's order: match/substitution, deletion, insertion. Returns the row's minimum, a lower bound
    # of the final distance (costs are >= 0, and every path crosses every row).
    for j in range(phi, hi):
        prev[j] = _INF
    if 0 < lo == plo:
        prev[lo - 1] = _INF
    row_min = _INF
    left = _INF
    start = lo
    if lo == 0:
        left = prev[0] + 1.0
        cur[0] = left
        ops[0] = _OP_DEL
        row_min = left
        start = 1
    for j in range(start, hi):
        best = _INF
        op = _OP_UNDEF
        value = prev[j - 1]
        if word == ref[j - 1]:
            if best > value:
                best = value
                op = _OP_NOP
        else:
            value += cost[j - 1]
            if best > value:
                best = value
                op = _OP_SUB
        value = prev[j] + 1.0
        if best > value:
            best = value
            op = _OP_DEL
        value = left + cost[j - 1]
        if best > value:
            best = value
            op = _OP_INS
        cur[j] = best
        ops[j] = op
        left = best
        if best < row_min:
            row_min = best
    return row_min


def _alignment(ops, n_h, n_r, trace, align, hyp_err, ref_err):
    # Backtrace, then trace_to_alignment on the flipped trace: align[r] = hypothesis position of reference word r
    # (or of the last hypothesis word before it), and prefix sums of the hypothesis / reference error flags.
    i = n_h
    j = n_r
    t = 0
    while i > 0 or j > 0:
        op = ops[i, j]
        trace[t] = op
        t += 1
        if op == _OP_NOP or op == _OP_SUB:
            i -= 1
            j -= 1
        elif op == _OP_INS:
            j -= 1
        elif op == _OP_DEL:
            i -= 1
        else:
            raise RuntimeError("TER: the beam edit distance trace left the band (sacrebleu fails here too)")
    pos_h = -1
    pos_r = -1
    hyp_err[0] = 0
    ref_err[0] = 0
    for k in range(t - 1, -1, -1):
        op = trace[k]
        if op == _OP_NOP or op == _OP_SUB:
            err = 1 if op == _OP_SUB else 0
            pos_h += 1
            pos_r += 1
            align[pos_r] = pos_h
            hyp_err[pos_h + 1] = hyp_err[pos_h] + err
            ref_err[pos_r + 1] = ref_err[pos_r] + err
        elif op == _OP_DEL:
            pos_h += 1
            hyp_err[pos_h + 1] = hyp_err[pos_h] + 1
        else:
            pos_r += 1
            align[pos_r] = pos_h
            ref_err[pos_r + 1] = ref_err[pos_r] + 1


def _perform_shift(words, n, start, length, target, out):
    # sacrebleu's _perform_shift, including its Python slice clipping in the "target within the block" case.
    if target < start:
        bounds = ((0, target), (start, start + length), (target, start), (start + length, n))
    elif target > start + length:
        bounds = ((0, start), (start + length, target), (start, start + length), (target, n))
    else:
        mid = min(n, length + target)
        bounds = ((0, start), (start + length, mid), (start, start + length), (mid, n))
    k = 0
    for a, b in bounds:
        for m in range(a, b):
            out[k] = words[m]
            k += 1


def _shifted_distance(words, out, n_h, first, dist, lo, hi, rows, scratch_ops, ref, n_r, cost, suffix, unit, found,
                      best_gain):
    # Edit distance of `out`, reusing the rows of `words` (in dist) up to the first word that differs. _INF as
    # soon as a row's minimum (a lower bound) shows that the gain pre_score - distance cannot reach best_gain
    # (or, with nothing found yet, cannot be positive): such a shift cannot be chosen, see _best_shift.
    # Float subtraction is monotone, so the bound holds for the rounded gains too.
    # With unit costs, rows stop after the last word that differs (row e): from there on `out` is `words`, and the
    # distance is min_j(row e[j] + suffix[e, j]), suffix being the in-band distances of `words` from (e, j) to the
    # end (_suffix_distances) — the same paths, and integers, so exactly the value the remaining rows would give.
    pre_score = dist[n_h, n_r]
    k = first
    while k < n_h and out[k] == words[k]:
        k += 1
    if k == n_h:
        return dist[n_h, n_r]
    e = n_h
    if unit:
        while out[e - 1] == words[e - 1]:
            e -= 1
    prev = dist[k]
    for i in range(k + 1, e + 1):
        cur = rows[i & 1]
        row_min = _fill_row(prev, lo[i - 1], hi[i - 1], cur, lo[i], hi[i], scratch_ops, out[i - 1], ref, cost)
        gain_bound = pre_score - row_min
        if gain_bound < best_gain or not found and gain_bound <= 0:
            return _INF
        prev = cur
    if e == n_h:
        return prev[n_r]
    best = _INF
    for j in range(lo[e], hi[e]):
        value = prev[j] + suffix[e, j]
        if value < best:
            best = value
    return best


def _suffix_distances(words, n_h, ref, n_r, cost, lo, hi, suffix):
    # suffix[i, j]: the cheapest path from cell (i, j) to (n_h, n_r) through the cells of the beam band, with the
    # moves of _fill_row read backwards (match/substitution to (i+1, j+1), deletion of hypothesis word i to
    # (i+1, j), insertion of reference word j to (i, j+1)). Cells outside the band are never read.
    for i in range(n_h, -1, -1):
        for j in range(hi[i] - 1, lo[i] - 1, -1):
            if i == n_h and j == n_r:
                suffix[i, j] = 0.0
                continue
            best = _INF
            if i < n_h:
                if j < n_r and lo[i + 1] <= j + 1 < hi[i + 1]:
                    value = suffix[i + 1, j + 1] + (0.0 if words[i] == ref[j] else cost[j])
                    if value < best:
                        best = value
                if lo[i + 1] <= j < hi[i + 1]:
                    value = suffix[i + 1, j] + 1.0
                    if value < best:
                        best = value
            if j < n_r and j + 1 < hi[i]:
                value = suffix[i, j + 1] + cost[j]
                if value < best:
                    best = value
            suffix[i, j] = best


def _best_shift(words, n_h, ref, n_r, cost, dist, lo, hi, align, hyp_err, ref_err, out, rows, scratch_ops, suffix,
                unit, checked):
    # sacrebleu's _shift over _find_shifted_pairs; returns (found, gain, length, start, target, checked).
    # Only a shift with a positive gain is ever applied, so only those are kept ("found"): the distances of the
    # others need not be exact, and neither do those of shifts with a smaller gain than the best so far.
    pre_score = dist[n_h, n_r]
    found = False
    best_gain = 0.0
    best_len = 0
    best_start = 0
    best_target = 0
    for start_h in range(n_h):
        for start_r in range(n_r):
            if abs(start_r - start_h) > MAX_SHIFT_DIST:
                continue
            length = 0
            while words[start_h + length] == ref[start_r + length] and length < MAX_SHIFT_SIZE:
                length += 1
                if (
                    hyp_err[start_h + length] != hyp_err[start_h]
                    and ref_err[start_r + length] != ref_err[start_r]
                    and not (start_h <= align[start_r] < start_h + length)
                ):
                    prev_idx = -1
                    for offset in range(-1, length):
                        idx = 0 if start_r + offset == -1 else align[start_r + offset] + 1
                        if idx == prev_idx:
                            continue
                        prev_idx = idx
                        _perform_shift(words, n_h, start_h, length, idx, out)
                        gain = pre_score - _shifted_distance(
                            words, out, n_h, min(start_h, idx), dist, lo, hi, rows, scratch_ops, ref, n_r, cost,
                            suffix, unit, found, best_gain,
                        )
                        checked += 1
                        # sacrebleu ranks the tuple (gain, length, -start_h, -idx); equal tuples are the same shift
                        if gain > 0 and (
                            not found
                            or gain > best_gain
                            or gain == best_gain
                            and (
                                length > best_len
                                or length == best_len
                                and (start_h < best_start or start_h == best_start and idx < best_target)
                            )
                        ):
                            found = True
                            best_gain = gain
                            best_len = length
                            best_start = start_h
                            best_target = idx
                    if checked >= MAX_SHIFT_CANDIDATES:
                        return found, best_gain, best_len, best_start, best_target, checked
                if n_h == start_h + length or n_r == start_r + length:
                    break
    return found, best_gain, best_len, best_start, best_target, checked


def _pair_edits(hyp, ref, cost, dist, ops, lo, hi, words, out, rows, scratch_ops, trace, align, hyp_err, ref_err,
                suffix):
    # sacrebleu's translation_edit_rate for one pair: shift while the best shift lowers the distance.
    n_h = hyp.shape[0]
    n_r = ref.shape[0]
    if n_r == 0:
        return float(n_h)
    _beam_geometry(n_h, n_r, lo, hi)
    dist[0, 0] = 0.0
    ops[0, 0] = _OP_INS
    for j in range(1, n_r + 1):
        dist[0, j] = dist[0, j - 1] + cost[j - 1]
        ops[0, j] = _OP_INS
    words[:n_h] = hyp
    unit = True  # every reference word costs 1 (plain TER): the suffix shortcut of _shifted_distance is exact
    for j in range(n_r):
        if cost[j] != 1.0:
            unit = False
    first_row = 1
    shifts = 0
    checked = 0
    while True:
        for i in range(first_row, n_h + 1):
            _fill_row(dist[i - 1], lo[i - 1], hi[i - 1], dist[i], lo[i], hi[i], ops[i], words[i - 1], ref, cost)
        _alignment(ops, n_h, n_r, trace, align, hyp_err, ref_err)
        if unit:
            _suffix_distances(words, n_h, ref, n_r, cost, lo, hi, suffix)
        found, gain, length, start, target, checked = _best_shift(
            words, n_h, ref, n_r, cost, dist, lo, hi, align, hyp_err, ref_err, out, rows, scratch_ops, suffix, unit,
            checked,
        )
        if checked >= MAX_SHIFT_CANDIDATES or not found:
            break
        shifts += 1
        _perform_shift(words, n_h, start, length, target, out)
        k = min(start, target)
        while out[k] == words[k]:
            k += 1
        words[:n_h] = out[:n_h]
        first_row = k + 1
    return shifts + dist[n_h, n_r]


def _batch(hyp_tokens, hyp_offsets, ref_tokens, ref_offsets, ref_costs, pair_hyp, pair_ref):
    # Edits of every (hypothesis, reference) pair; work buffers are allocated once for the largest pair.
    n_pairs = pair_hyp.shape[0]
    max_h = 0
    max_r = 0
    for p in range(n_pairs):
        max_h = max(max_h, hyp_offsets[pair_hyp[p] + 1] - hyp_offsets[pair_hyp[p]])
        max_r = max(max_r, ref_offsets[pair_ref[p] + 1] - ref_offsets[pair_ref[p]])
    dist = np.empty((max_h + 1, max_r + 1), dtype=np.float64)
    suffix = np.empty((max_h + 1, max_r + 1), dtype=np.float64)
    ops = np.empty((max_h + 1, max_r + 1), dtype=np.int8)
    lo = np.empty(max_h + 1, dtype=np.int64)
    hi = np.empty(max_h + 1, dtype=np.int64)
    words = np.empty(max_h, dtype=np.int64)
    out = np.empty(max_h, dtype=np.int64)
    rows = np.empty((2, max_r + 1), dtype=np.float64)
    scratch_ops = np.empty(max_r + 1, dtype=np.int8)
    trace = np.empty(max_h + max_r, dtype=np.int8)
    align = np.empty(max_r, dtype=np.int64)
    hyp_err = np.empty(max_h + 1, dtype=np.int64)
    ref_err = np.empty(max_r + 1, dtype=np.int64)
    result = np.empty(n_pairs, dtype=np.float64)
    for p in range(n_pairs):
        h0, h1 = hyp_offsets[pair_hyp[p]], hyp_offsets[pair_hyp[p] + 1]
        r0, r1 = ref_offsets[pair_ref[p]], ref_offsets[pair_ref[p] + 1]
        result[p] = _pair_edits(
            hyp_tokens[h0:h1], ref_tokens[r0:r1], ref_costs[r0:r1], dist, ops, lo, hi, words, out, rows,
            scratch_ops, trace, align, hyp_err, ref_err, suffix,
        )
    return result

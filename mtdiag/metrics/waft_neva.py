"""WAFT and NEVA (Forsbom 2003, "Training a Super Model Look-Alike", eqs. 3-4), with the edit-operation alignment.

- **WAFT** (word accuracy for translation, eq. 3) ``= 1 - e / max(r, c)``: e is the word-level Levenshtein distance
  (insert, delete, substitute at unit cost), computed by rapidfuzz on token-id strings. Several references: the
  best (highest) WAFT; on a tie the first reference. Both texts empty -> 1; one empty -> 0.
  Corpus ("segments are concatenated"): ``1 - sum e_i / sum max(r_i, c_i)`` with each segment's best reference.
- **NEVA** (n-gram evaluation, eq. 4) ``= BP * sum_{n=1..N} (1/N) p_n`` with ``N = min(4, c)``, p_n BLEU's clipped
  precision (clip by the maximum count over references), ``BP = 1 if c > r else exp(1 - r/c)``, r the closest
  reference length; c = 0 -> 0. Corpus: summed clipped/total counts per order and BP on summed c, r; orders with no
  n-grams anywhere are left out of the mean — which on one segment is exactly ``N = min(4, c)``.

The paper (§5) reads NEVA > WAFT as word-order trouble; measured against human judgements that reading does not
hold for today's systems (:data:`mtdiag.triage.checks.word_order.NEVA_ABOVE_WAFT`, ``docs/triage.md``). ``docs/metrics.md``
("WAFT / NEVA") holds the decisions; the tests reproduce the worked numbers.
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
from rapidfuzz.distance import Levenshtein

from mtdiag.metrics.base import EvidenceTable, Metric, MetricInfo, ScoringContext, SegmentEvidence
from mtdiag.metrics.ngram_index import clipped_ngram_statistics
from mtdiag.core.tokenize import TokenSide

_PAPER = "Forsbom 2003, Training a Super Model Look-Alike"
NEVA_ORDER = 4


def token_strings(side: TokenSide) -> list[str]:
    """Each segment's token ids as one string of code points, so rapidfuzz compares whole tokens fast."""
    codes = side.ids + np.where(side.ids >= 0xD800, 0x800, 0)  # skip the surrogate block
    text = codes.astype(np.uint32).tobytes().decode("utf-32-le")
    offsets = side.offsets.tolist()
    return [text[offsets[i] : offsets[i + 1]] for i in range(len(offsets) - 1)]


def best_reference_edits(ctx: ScoringContext, system: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per segment: Levenshtein edits and ``max(r, c)`` against the best-WAFT reference, and that reference's index."""
    return ctx.memo(("best_reference_edits", system), lambda: _best_reference_edits(ctx, system))


def _best_reference_edits(ctx: ScoringContext, system: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    tokens = ctx.tokens
    hyp = token_strings(tokens.hyps[system])
    c = tokens.hyps[system].lengths
    best_e = best_m = best_k = None
    best_waft = None
    for k, side in enumerate(tokens.refs.values()):
        ref = token_strings(side)
        e = np.fromiter((Levenshtein.distance(h, r) for h, r in zip(hyp, ref)), dtype=np.int64, count=len(hyp))
        m = np.maximum(c, side.lengths)
        waft = np.where(m > 0, 1.0 - e / np.where(m > 0, m, 1), 1.0)
        if best_waft is None:
            best_e, best_m, best_waft, best_k = e, m, waft, np.zeros(len(e), dtype=np.int64)
        else:
            better = waft > best_waft
            best_e, best_m = np.where(better, e, best_e), np.where(better, m, best_m)
            best_waft, best_k = np.where(better, waft, best_waft), np.where(better, k, best_k)
    return best_e, best_m, best_k


class WAFT(Metric):
    """Word accuracy for translation (Forsbom 2003, eq. 3); 0-1, higher is better."""

    info = MetricInfo(
        name="waft",
        label="WAFT",
        description="1 - word edit distance / longer length; low when words are wrong, missing, extra or moved.",
        paper=_PAPER + ", eq. 3",
        scale=1,
        higher_is_better=True,
    )
    stat_names = ("edits", "max_len")

    def statistics(self, ctx: ScoringContext, system: str) -> np.ndarray:
        """Per segment: the Levenshtein edits e and ``max(r, c)`` against the best-WAFT reference."""
        e, m, _ = best_reference_edits(ctx, system)
        return np.column_stack([e, m]).astype(np.int64)

    def corpus_score(self, stats_sum: np.ndarray) -> np.ndarray:
        """``1 - sum e / sum max(r, c)``; 1 when both sides are empty."""
        stats_sum = np.asarray(stats_sum, dtype=float)
        e, m = stats_sum[..., 0], stats_sum[..., 1]
        return np.where(m > 0, 1.0 - e / np.where(m > 0, m, 1), 1.0)

    def evidence(self, ctx: ScoringContext, system: str) -> "EditEvidence":
        """The system's word-level edit operations (:class:`EditEvidence`)."""
        return EditEvidence(ctx, system)

    def segment_evidence(self, ctx: ScoringContext, system: str, seg: int) -> SegmentEvidence:
        """The word-level edit alignment of the segment against its best-WAFT reference (tokens as shown)."""
        edits = self.cached_evidence(ctx, system)
        best = edits.best_reference(seg)
        alignment = edits.alignment(seg)
        shown_h, _ = ctx.display_tokens(system, seg)
        shown_r, _ = ctx.display_tokens(best, seg)
        alignment = alignment.assign(hyp=[shown_h[p] if p >= 0 else "" for p in alignment["hyp_pos"]],
                                     ref=[shown_r[p] if p >= 0 else "" for p in alignment["ref_pos"]])
        caption = (f"Word-level Levenshtein alignment against reference {best} (the one with the best WAFT). "
                   "Insert = a word only the hypothesis has; delete = a reference word it lacks.")
        return SegmentEvidence(tables={"alignment": EvidenceTable("Edit alignment", alignment, caption=caption,
                                                                  alignment=True)},
                               facts={"best_ref": best})


class NEVA(Metric):
    """N-gram evaluation (Forsbom 2003, eq. 4); 0-1, higher is better."""

    info = MetricInfo(
        name="neva",
        label="NEVA",
        description="Mean (not geometric) clipped n-gram precision with a brevity penalty; forgiving of word order.",
        paper=_PAPER + ", eq. 4",
        scale=1,
        higher_is_better=True,
    )
    stat_names = ("hyp_len", "ref_len", *(f"clipped_{n}" for n in range(1, 5)), *(f"total_{n}" for n in range(1, 5)))

    def statistics(self, ctx: ScoringContext, system: str) -> np.ndarray:
        """Per segment: lengths and clipped n-gram counts on the user's tokens (:func:`clipped_ngram_statistics`)."""
        return ctx.memo(("clipped", "word", NEVA_ORDER), lambda: clipped_ngram_statistics(
            ctx.word_ngrams(NEVA_ORDER), ctx.tokens, ctx.evalset.systems, NEVA_ORDER))[system]

    def corpus_score(self, stats_sum: np.ndarray) -> np.ndarray:
        """BP times the mean clipped precision over the orders that have n-grams (eq. 4); 0 when c = 0."""
        stats_sum = np.asarray(stats_sum, dtype=float)
        c, r = stats_sum[..., 0], stats_sum[..., 1]
        clipped, total = stats_sum[..., 2:6], stats_sum[..., 6:10]
        present = total > 0
        precision = np.divide(clipped, total, out=np.zeros_like(clipped), where=present)
        orders = present.sum(axis=-1)
        with np.errstate(divide="ignore", invalid="ignore"):
            mean = precision.sum(axis=-1) / np.where(orders > 0, orders, 1)
            bp = np.where(c > r, 1.0, np.exp(1.0 - r / np.where(c > 0, c, 1)))
        return np.where(c > 0, bp * mean, 0.0)


class EditEvidence:
    """The word-level edit operations behind WAFT: per-segment alignment and corpus confusion pairs."""

    def __init__(self, ctx: ScoringContext, system: str):
        self._ctx = ctx
        self._system = system

    def best_reference(self, seg: int) -> str:
        """The name of the reference with the best WAFT on segment ``seg`` (the first on a tie)."""
        _, _, k = best_reference_edits(self._ctx, self._system)
        return list(self._ctx.tokens.refs)[int(k[seg])]

    def alignment(self, seg: int) -> pd.DataFrame:
        """The Levenshtein backtrace of one segment against its best-WAFT reference.

        Columns ``op`` (match / substitute / insert / delete), ``hyp`` and ``ref`` tokens, ``hyp_pos``, ``ref_pos``
        (-1 where the side has no token). *insert* = a word the system added; *delete* = a reference word it missed.
        """
        ref_name = self.best_reference(seg)
        hyp_tokens = self._ctx.tokens.tokens(self._system, seg)
        ref_tokens = self._ctx.tokens.tokens(ref_name, seg)
        return align_tokens(hyp_tokens, ref_tokens)

    def operations(self) -> pd.DataFrame:
        """Every non-match edit of every segment: ``seg, op, hyp, ref`` (segment order, then alignment order).

        One rapidfuzz ``editops`` call per segment on the token-id strings (the alignment :func:`aligned_tokens`
        draws: rapidfuzz's opcodes are these edit operations grouped into blocks), then the tokens are looked up
        for all edits at once.
        """
        tokens = self._ctx.tokens
        hyp_side = tokens.hyps[self._system]
        _, _, best = best_reference_edits(self._ctx, self._system)
        ref_sides = list(tokens.refs.values())
        hyp_strings = token_strings(hyp_side)
        ref_strings = [token_strings(side) for side in ref_sides]
        per_segment = [Levenshtein.editops(ref_strings[k][seg], hyp).as_list()
                       for seg, (hyp, k) in enumerate(zip(hyp_strings, best.tolist()))]
        counts = np.fromiter(map(len, per_segment), dtype=np.int64, count=len(per_segment))
        flat = list(itertools.chain.from_iterable(per_segment))
        if not flat:
            return pd.DataFrame({"seg": np.zeros(0, np.int64), "op": [], "hyp": [], "ref": []})
        tags, ref_pos, hyp_pos = (np.asarray(column) for column in zip(*flat))
        seg = np.repeat(np.arange(len(per_segment), dtype=np.int64), counts)
        ids_h, ids_r = np.full(len(flat), -1, dtype=np.int64), np.full(len(flat), -1, dtype=np.int64)
        has_hyp = tags != "delete"
        ids_h[has_hyp] = hyp_side.ids[hyp_side.offsets[seg[has_hyp]] + hyp_pos[has_hyp]]
        has_ref = tags != "insert"
        for k, side in enumerate(ref_sides):
            pick = has_ref & (best[seg] == k)
            ids_r[pick] = side.ids[side.offsets[seg[pick]] + ref_pos[pick]]
        shown = np.append(tokens.vocab, "")  # id -1: no token on that side
        return pd.DataFrame({"seg": seg, "op": pd.Series(tags).map(_OPCODE_NAMES).to_numpy(),
                             "hyp": shown[ids_h], "ref": shown[ids_r]})

    def operation_counts(self) -> dict[str, int]:
        """Corpus totals of substitutions, insertions and deletions.

        The sizes of the edit blocks of the same alignments (rapidfuzz opcodes), without looking up a token."""
        tokens = self._ctx.tokens
        _, _, best = best_reference_edits(self._ctx, self._system)
        hyp_strings = token_strings(tokens.hyps[self._system])
        ref_strings = [token_strings(side) for side in tokens.refs.values()]
        totals = dict.fromkeys(("replace", "insert", "delete"), 0)
        for seg, (hyp, k) in enumerate(zip(hyp_strings, best.tolist())):
            for tag, ref_start, ref_end, hyp_start, hyp_end in Levenshtein.opcodes(ref_strings[k][seg], hyp):
                if tag != "equal":
                    totals[tag] += max(ref_end - ref_start, hyp_end - hyp_start)
        return {_OPCODE_NAMES[tag]: count for tag, count in totals.items()}

    def confusion_pairs(self) -> pd.DataFrame:
        """Corpus counts of each edit: substitutions hyp->ref, insertions, deletions, most frequent first."""
        ops = self.operations()
        frame = ops.groupby(["op", "hyp", "ref"], sort=False).size().reset_index(name="count")
        return frame.sort_values(["count", "op", "hyp", "ref"], ascending=[False, True, True, True], ignore_index=True)


_OPCODE_NAMES = {"equal": "match", "replace": "substitute", "insert": "insert", "delete": "delete"}


def aligned_tokens(hyp_tokens: list[str], ref_tokens: list[str]):
    """Yield ``(op, hyp token, ref token, hyp_pos, ref_pos)`` along a Levenshtein alignment of the two token lists.

    The alignment turns the reference into the hypothesis (rapidfuzz opcodes on token-id strings): *insert* is a
    word the system added, *delete* a reference word it missed; positions are -1 on the side without a token.
    """
    vocab = {t: i for i, t in enumerate(dict.fromkeys(hyp_tokens + ref_tokens))}

    def encode(tokens: list[str]) -> str:
        return "".join(chr(vocab[t] + (0x800 if vocab[t] >= 0xD800 else 0)) for t in tokens)

    for block in Levenshtein.opcodes(encode(ref_tokens), encode(hyp_tokens)):
        op = _OPCODE_NAMES[block.tag]
        for i in range(max(block.src_end - block.src_start, block.dest_end - block.dest_start)):
            rp = block.src_start + i if block.src_start + i < block.src_end else -1
            hp = block.dest_start + i if block.dest_start + i < block.dest_end else -1
            yield op, hyp_tokens[hp] if hp >= 0 else "", ref_tokens[rp] if rp >= 0 else "", hp, rp


def align_tokens(hyp_tokens: list[str], ref_tokens: list[str]) -> pd.DataFrame:
    """The full alignment table (matches included) of hypothesis against reference tokens."""
    return pd.DataFrame(list(aligned_tokens(hyp_tokens, ref_tokens)), columns=["op", "hyp", "ref", "hyp_pos", "ref_pos"])

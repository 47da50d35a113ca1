"""Terminology consistency (Alam et al. 2021 §2.2; ``docs/metrics.md``, "Terminology").

Per term occurrence (``EvalSet.terms``), against the first reference (the one terms are annotated on):

- **Exact match** — correct when one of the term's target alternatives (or its reference surface form) occurs in
  the hypothesis as a contiguous token sequence (the shared tokens: same tokeniser and case option). Every listed
  entry counts (WMT25's scoring script: a term listed again in another case is a second entry, found by the same
  match); the k-th occurrence of the same term (the same source term as written, the same alternatives) in a
  segment is correct when the hypothesis has at least k matches (:func:`mtdiag.io.term_matching.find_matches`: leftmost,
  non-overlapping, longest alternative first) and is paired with the k-th match in the hypothesis and the k-th in
  the reference. Score = correct / all x 100.
- **Window overlap** (w = 2, 3) — for each correct occurrence with a paired reference match: up to w tokens left
  and w right of the span, walking outwards and skipping punctuation (every character in Unicode category P*) and
  the target language's stop words (stopwordsiso, case-insensitive; punctuation only when the language is
  unknown); the span itself is never in its window. Occurrence score = |multiset intersection| / |reference
  window| (an empty reference window: 1 if the hypothesis window is empty too, else 0). Segment and corpus score =
  mean over those occurrences x 100; undefined (NaN/null) without any.
- **TERm** — sacrebleu's TER on its own tokenisation of the raw texts (:mod:`mtdiag.metrics.ter`, with TER's
  default options for the target language: ``normalized`` + ``asian_support`` for zh/ja/ko), except that a
  reference word belonging to a target term costs λ = 2 when substituted or missing. A term's words in each
  reference are its first K matches there (K = its occurrences in the segment). Reported ``(1 - TERm) x 100``;
  corpus from summed edits / summed reference lengths. Without terms in a segment, TERm = TER exactly.

The public reference script (mahfuzibnalam/terminology_evaluation) differs by its bugs (METRICS.md §3); we follow
the spec.
"""

from __future__ import annotations

from collections import Counter
from functools import lru_cache

import numpy as np
import pandas as pd

from mtdiag.core.highlight import Span
from mtdiag.metrics.base import EvidenceTable, Metric, MetricInfo, OptionSpec, ScoringContext, SegmentEvidence
from mtdiag.metrics.ter import default_ter_tokenization, ter_scores, ter_statistics, ter_words
from mtdiag.io.term_matching import alternatives, find_matches
from mtdiag.core.tokenize import is_punctuation, tokenize_text

_PAPER = "Alam et al. 2021, On the Evaluation of MT for Terminology Consistency, §2.2"
TERM_COST = 2.0
WINDOWS = (2, 3)


@lru_cache(maxsize=64)
def stop_words(lang: str | None) -> frozenset[str]:
    """The target language's stop words (stopwordsiso), lower-cased; empty when the language is unknown."""
    if not lang:
        return frozenset()
    import stopwordsiso

    code = lang.split("_")[0].split("-")[0].lower()
    return frozenset(w.lower() for w in stopwordsiso.stopwords(code)) if stopwordsiso.has_lang(code) else frozenset()


def term_window(tokens: list[str], span: tuple[int, int], width: int, stops: frozenset[str]) -> list[int]:
    """Positions of up to ``width`` content tokens on each side of ``span`` (punctuation and stop words skipped)."""

    def content(i: int) -> bool:
        return not is_punctuation(tokens[i]) and tokens[i].lower() not in stops

    left = [i for i in range(span[0] - 1, -1, -1) if content(i)][:width]
    right = [i for i in range(span[1], len(tokens)) if content(i)][:width]
    return sorted(left) + right


def window_score(ref_window: list[str], hyp_window: list[str]) -> float:
    """|multiset intersection| / |reference window|; an empty reference window scores 1 iff both are empty."""
    if not ref_window:
        return 1.0 if not hyp_window else 0.0
    return sum((Counter(ref_window) & Counter(hyp_window)).values()) / len(ref_window)


def term_occurrences(ctx: ScoringContext, system: str) -> pd.DataFrame:
    """Every term occurrence scored for one system, with what the dashboard draws.

    Columns: ``seg, term_id, src_term, tgt_terms, k, correct, hyp_span, ref_span`` (``(start, end)`` token
    positions or None) and for each window w: ``hyp_window{w}``, ``ref_window{w}`` (token positions) and
    ``window{w}`` (the occurrence's overlap score, NaN when it has none). Computed once per system.
    """
    return ctx.memo(("term_occurrences", system), lambda: _term_occurrences(ctx, system))


def _term_occurrences(ctx: ScoringContext, system: str) -> pd.DataFrame:
    terms = ctx.evalset.terms
    ref_name = ctx.evalset.ref_names[0]
    stops = stop_words(ctx.tgt_lang)
    rows = []
    for seg, group in terms.groupby("seg", sort=True):
        hyp_tokens = ctx.tokens.tokens(system, int(seg))
        ref_tokens = ctx.tokens.tokens(ref_name, int(seg))
        for (_, tgt_terms), occ in group.groupby(["src_term", "tgt_terms"], sort=False):
            alts = list(dict.fromkeys(a for surface in occ["ref_surface"] for a in alternatives(tgt_terms, surface)))
            alt_tokens = [list(tokenize_text(a, ctx.options)) for a in alts]
            hyp_matches, ref_matches = find_matches(hyp_tokens, alt_tokens), find_matches(ref_tokens, alt_tokens)
            for k, (_, term) in enumerate(occ.iterrows()):
                correct = len(hyp_matches) > k
                hyp_span = hyp_matches[k] if correct else None
                ref_span = ref_matches[k] if len(ref_matches) > k else None
                row = {"seg": int(seg), "term_id": term["term_id"], "src_term": term["src_term"],
                       "tgt_terms": tgt_terms, "k": k, "correct": correct, "hyp_span": hyp_span, "ref_span": ref_span}
                for w in WINDOWS:
                    if correct and ref_span is not None:
                        hyp_win = term_window(hyp_tokens, hyp_span, w, stops)
                        ref_win = term_window(ref_tokens, ref_span, w, stops)
                        score = window_score([ref_tokens[i] for i in ref_win], [hyp_tokens[i] for i in hyp_win])
                    else:
                        hyp_win, ref_win, score = [], [], np.nan
                    row |= {f"hyp_window{w}": hyp_win, f"ref_window{w}": ref_win, f"window{w}": score}
                rows.append(row)
    return pd.DataFrame(rows)


def term_costs(ctx: ScoringContext, cost: float) -> list[list[np.ndarray | None]]:
    """Per reference column and segment, the TER-word costs: ``cost`` (λ) on the words of target terms, 1 elsewhere.

    Computed once per context and cost. The words are TER's (:func:`default_ter_tokenization` for the target language,
    as :class:`TermTER` scores)."""
    return ctx.memo(("term_costs", cost), lambda: _term_costs(ctx, cost))


def _term_costs(ctx: ScoringContext, cost: float) -> list[list[np.ndarray | None]]:
    tokenization = default_ter_tokenization(ctx.tgt_lang)
    terms = ctx.evalset.terms
    by_seg = {int(seg): group for seg, group in terms.groupby("seg")}
    columns = []
    for ref_name in ctx.evalset.ref_names:
        column: list[np.ndarray | None] = [None] * ctx.evalset.n_segments
        for seg, group in by_seg.items():
            words = ter_words(ctx.evalset.refs[ref_name].iloc[seg], tokenization)
            costs = np.ones(len(words))
            for (_, tgt_terms), occ in group.groupby(["src_term", "tgt_terms"], sort=False):
                alts = {a for surface in occ["ref_surface"] for a in alternatives(tgt_terms, surface)}
                for start, end in find_matches(words, [ter_words(a, tokenization) for a in alts])[: len(occ)]:
                    costs[start:end] = cost
            column[seg] = costs
        columns.append(column)
    return columns


def _per_segment(ctx: ScoringContext, occurrences: pd.DataFrame, values: pd.Series) -> np.ndarray:
    sums = np.zeros(ctx.evalset.n_segments)
    if len(occurrences):
        np.add.at(sums, occurrences["seg"].to_numpy(), values.to_numpy(dtype=float))
    return sums


def _ratio(stats_sum: np.ndarray) -> np.ndarray:
    stats_sum = np.asarray(stats_sum, dtype=float)
    num, den = stats_sum[..., 0], stats_sum[..., 1]
    return np.where(den > 0, 100.0 * num / np.where(den > 0, den, 1), np.nan)


class TermExactMatch(Metric):
    """Term exact-match accuracy (Alam et al. 2021 §2.2); 0-100, higher is better; null without terms."""

    info = MetricInfo(
        name="term_exact", label="Term exact", paper=_PAPER + ", exact-match accuracy", scale=100,
        higher_is_better=True, needs=("terms", "references"),
        description="Share of term occurrences whose required target term appears in the output.",
    )
    stat_names = ("correct", "occurrences")

    def statistics(self, ctx: ScoringContext, system: str) -> np.ndarray:
        """Per segment: the term occurrences found in the hypothesis, and all term occurrences."""
        occ = term_occurrences(ctx, system)
        total = _per_segment(ctx, occ, pd.Series(np.ones(len(occ))))
        correct = _per_segment(ctx, occ, occ["correct"] if len(occ) else pd.Series(dtype=float))
        return np.column_stack([correct, total])

    def corpus_score(self, stats_sum: np.ndarray) -> np.ndarray:
        """Correct occurrences / all occurrences x 100; NaN without any."""
        return _ratio(stats_sum)

    def evidence(self, ctx: ScoringContext, system: str) -> pd.DataFrame:
        """Every term occurrence scored for this system (:func:`term_occurrences`)."""
        return term_occurrences(ctx, system)

    def segment_evidence(self, ctx: ScoringContext, system: str, seg: int) -> SegmentEvidence:
        """The segment's term occurrences, marked in the hypothesis and in the first reference.

        The hypothesis shows the matched term; the first reference (the one terms are annotated on) shows it marked as
        found or missed."""
        occ = term_occurrences(ctx, system)
        rows = occ[occ["seg"] == seg].reset_index(drop=True) if len(occ) else occ
        hyp_spans, ref_spans = [], []
        for row in rows.itertuples(index=False):
            title = f"term {row.src_term} → {row.tgt_terms}"
            if row.hyp_span is not None:
                hyp_spans.append(Span(row.hyp_span[0], row.hyp_span[1], "term_ok", title))
            if row.ref_span is not None:
                ref_spans.append(Span(row.ref_span[0], row.ref_span[1], "term_ok" if row.correct else "term_miss", title))
        shown = [c for c in ("term_id", "src_term", "tgt_terms", "correct", "window2", "window3") if c in rows.columns]
        return SegmentEvidence(
            hyp_spans=tuple(hyp_spans), ref_spans={ctx.evalset.ref_names[0]: tuple(ref_spans)},
            tables={"terms": EvidenceTable("Terms", rows[shown], empty="No term occurs in this segment.")},
            legend=("term_ok", "term_miss"))


class TermWindowOverlap(Metric):
    """Term window overlap (Alam et al. 2021 §2.2); 0-100, higher is better; null without matched terms."""

    width: int

    @property
    def stat_names(self) -> tuple[str, ...]:
        """Names of the statistics: a segment's summed window scores, and how many of its occurrences have one."""
        return ("overlap_sum", "scored_occurrences")

    def statistics(self, ctx: ScoringContext, system: str) -> np.ndarray:
        """Per segment: the sum of the window scores of the occurrences that have one, and how many have one."""
        occ = term_occurrences(ctx, system)
        if not len(occ):
            return np.zeros((ctx.evalset.n_segments, 2))
        scored = occ[occ[f"window{self.width}"].notna()]
        return np.column_stack([
            _per_segment(ctx, scored, scored[f"window{self.width}"]),
            _per_segment(ctx, scored, pd.Series(np.ones(len(scored)))),
        ])

    def corpus_score(self, stats_sum: np.ndarray) -> np.ndarray:
        """The mean window score of the scored occurrences x 100; NaN without any."""
        return _ratio(stats_sum)

    def evidence(self, ctx: ScoringContext, system: str) -> pd.DataFrame:
        """Every term occurrence scored for this system (:func:`term_occurrences`)."""
        return term_occurrences(ctx, system)


def _window_metric(width: int) -> type[TermWindowOverlap]:
    info = MetricInfo(
        name=f"term_window{width}", label=f"Term window {width}", paper=_PAPER + ", window overlap", scale=100,
        higher_is_better=True, needs=("terms", "references"),
        description=f"For correctly translated terms: share of the {width} content words on each side of the term "
                    "in the reference that also surround it in the output (is the term in the right context?).",
    )
    return type(f"TermWindowOverlap{width}", (TermWindowOverlap,), {"info": info, "width": width, "__module__": __name__})


TermWindow2 = _window_metric(2)
TermWindow3 = _window_metric(3)


class TermTER(Metric):
    """Terminology-biased TER, reported as (1 - TERm) x 100 (Alam et al. 2021 §2.2); higher is better."""

    info = MetricInfo(
        name="term_ter", label="1-TERm", paper=_PAPER + ", TERm", scale=100, higher_is_better=True,
        needs=("terms", "references"),
        description="(1 - TERm) x 100: TER where reference words of target terms cost 2 when substituted or missing.",
        options=(OptionSpec("cost", TERM_COST, "edit cost of a reference word inside a target term",
                            minimum=0.0),),
    )
    stat_names = ("edits", "ref_len")

    def statistics(self, ctx: ScoringContext, system: str) -> np.ndarray:
        """Per segment: TER's edits, a reference word of a target term costing ``cost``, and the reference length."""
        return ter_statistics(ctx.hyp_texts(system), ctx.ref_texts(), term_costs(ctx, self.options["cost"]),
                              default_ter_tokenization(ctx.tgt_lang))

    def signature_fields(self, ctx: ScoringContext) -> tuple[tuple[str, str], ...]:
        """TER's signature fields for the target language (:func:`default_ter_tokenization`), plus the cost.

        TERm runs on TER's own tokenisation with TER's defaults for the target language."""
        return (*default_ter_tokenization(ctx.tgt_lang).signature_fields,
                ("cost", self.info.option("cost").describe(self.options["cost"])))

    def corpus_score(self, stats_sum: np.ndarray) -> np.ndarray:
        """(1 - TERm) x 100 from summed edits and summed reference lengths."""
        return 100.0 - ter_scores(stats_sum)

"""TER — Translation Edit Rate (Snover et al. 2006), with exactly sacrebleu's numbers (Post 2018).

The algorithm is :mod:`mtdiag.metrics.ter_engine`, a compiled port of sacrebleu's ``lib_ter.py`` (beam edit
distance + Tercom-style greedy shifts). It runs on sacrebleu's own TER preprocessing of the raw texts (Tercom
tokenizer) — not on mtdiag's shared tokens — so the per-segment statistics, the corpus score and the segment scores
equal sacrebleu's ``TER(normalized=…, no_punct=…, asian_support=…, case_sensitive=…)`` (``corpus_score`` and
``sentence_score``) with the same four options. Per-reference-token costs (TERm, ``docs/metrics.md``, "Terminology") go
through :func:`ter_statistics`.

**Default options** (a decision the spec leaves to us, ``docs/metrics.md``): ``no_punct`` and ``case_sensitive``
off (sacrebleu's defaults); ``normalized`` and ``asian_support`` *auto*: on when the target language is Chinese,
Japanese or Korean (zh/ja/ko), off otherwise. sacrebleu's plain defaults leave unsegmented CJK text as one "word"
per sentence, which makes TER meaningless there (corpus TER 103-193 on WMT21 en-ja); with both on, CJK characters
are split apart as Tercom does. The signature states the resolved values.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Sequence

import numpy as np

from mtdiag.metrics.base import Metric, MetricInfo, OptionSpec, ScoringContext
from mtdiag.metrics.ter_engine import ReferenceSet, TerTokenization, ter_words

CJK_LANGUAGES = frozenset({"zh", "ja", "ko"})


def default_ter_tokenization(tgt_lang: str | None) -> TerTokenization:
    """The TER tokenisation with every *auto* option resolved for a target language.

    ``normalized`` and ``asian_support`` on for zh/ja/ko (any region/script suffix, e.g. ``zh-TW``), everything else
    sacrebleu's default."""
    return resolve_ter_tokenization({}, tgt_lang)


def resolve_ter_tokenization(options: dict, tgt_lang: str | None) -> TerTokenization:
    """:class:`TerTokenization` from TER option values, auto values resolved for ``tgt_lang``.

    ``None`` or absent = auto for ``normalized`` and ``asian_support``; absent = off for ``no_punct`` and
    ``case_sensitive``."""
    cjk = (tgt_lang or "").replace("_", "-").split("-")[0].lower() in CJK_LANGUAGES

    def auto(name: str) -> bool:
        value = options.get(name)
        return cjk if value is None else bool(value)

    return TerTokenization(normalized=auto("normalized"), no_punct=bool(options.get("no_punct", False)),
                           asian_support=auto("asian_support"),
                           case_sensitive=bool(options.get("case_sensitive", False)))


@lru_cache(maxsize=8)
def _reference_set(refs: tuple[tuple[str, ...], ...], tokenization: TerTokenization) -> ReferenceSet:
    return ReferenceSet.from_words([[ter_words(text, tokenization) for text in column] for column in refs])


def clear_reference_sets() -> None:
    """Forget the cached encoded references (:func:`reference_set`; they hold their texts as the cache key)."""
    _reference_set.cache_clear()


def reference_set(refs: Sequence[Sequence[str]], tokenization: TerTokenization = TerTokenization()) -> ReferenceSet:
    """The TER-tokenised, encoded references (``refs[k][s]``: column k, segment s).

    Cached on the texts and the tokenisation options."""
    return _reference_set(tuple(tuple(column) for column in refs), tokenization)


def ter_statistics(
    hyps: Sequence[str],
    refs: Sequence[Sequence[str]],
    ref_costs: Sequence[Sequence[Sequence[float] | None]] | None = None,
    tokenization: TerTokenization = TerTokenization(),
) -> np.ndarray:
    """sacrebleu's TER segment statistics from raw texts, shape (n_segments, 2): [edits, average ref length].

    ``refs[k][s]`` is reference column k, segment s. Edits are the minimum over the references, the length the
    average reference length in TER words (sacrebleu's ``TER._compute_segment_statistics``). ``tokenization`` is
    sacrebleu's TER tokenisation options (default: sacrebleu's ``TER()`` defaults). ``ref_costs[k][s]``, when given,
    is an array of costs over the TER words of that reference (:func:`ter_words` with the same ``tokenization``;
    None = all 1): a reference word costs its λ when substituted or missing, hypothesis words and shifts cost 1
    (TERm). The length stays the unweighted word count.
    """
    return reference_set(refs, tokenization).statistics([ter_words(text, tokenization) for text in hyps], ref_costs)


def ter_scores(stats: np.ndarray) -> np.ndarray:
    """sacrebleu's ``TER._compute_score_from_stats``, vectorised over leading axes: (..., 2) -> (...).

    100 · edits / ref_len; with ref_len = 0 the score is 100 if there are edits (empty reference, non-empty
    hypothesis) and 0 otherwise.
    """
    stats = np.asarray(stats, dtype=np.float64)
    edits, ref_len = stats[..., 0], stats[..., 1]
    has_ref = ref_len > 0
    rate = np.where(has_ref, edits / np.where(has_ref, ref_len, 1.0), np.where(edits > 0, 1.0, 0.0))
    return 100 * rate


class TER(Metric):
    """Translation Edit Rate on sacrebleu's TER tokenisation.

    Equal to ``sacrebleu.metrics.TER(**options)`` with the resolved options (auto = on for a zh/ja/ko target, see the
    module docstring)."""

    info = MetricInfo(
        name="ter",
        label="TER",
        description=(
            "Translation Edit Rate: insertions, deletions, substitutions and word-block shifts needed to turn the "
            "hypothesis into the closest reference, per reference word (average reference length). Identical to "
            "sacrebleu's TER with the same options (Tercom tokenisation; case-insensitive by default; for Chinese, "
            "Japanese and Korean targets normalized + asian_support by default)."
        ),
        paper="Snover et al. 2006 via sacrebleu (Post 2018)",
        scale=100,
        higher_is_better=False,
        options=(
            OptionSpec(name="normalized", default=None, type=bool, choices=(False, True),
                       help="Tercom normalisation (punctuation split off words); auto (None): on for zh/ja/ko"),
            OptionSpec(name="no_punct", default=False, choices=(False, True), help="remove punctuation"),
            OptionSpec(name="asian_support", default=None, type=bool, choices=(False, True),
                       help="split CJK characters (needs normalized or no_punct); auto (None): on for zh/ja/ko"),
            OptionSpec(name="case_sensitive", default=False, choices=(False, True),
                       help="keep case (off: lower-case both sides)"),
        ),
    )
    stat_names = ("edits", "ref_len")

    def tokenization(self, ctx: ScoringContext) -> TerTokenization:
        """The options in force for ``ctx``: auto values resolved with the target language."""
        return resolve_ter_tokenization(self.options, ctx.tgt_lang)

    def statistics(self, ctx: ScoringContext, system: str) -> np.ndarray:
        """Per segment: the minimum edits over the references and the average reference length, in TER words."""
        return ctx.memo(("ter", self.tokenization(ctx)), lambda: self._all_statistics(ctx))[system]

    def _all_statistics(self, ctx: ScoringContext) -> dict[str, np.ndarray]:
        """Every system's statistics at once (:meth:`ReferenceSet.minimum_edits`: an output two systems share is
        aligned once), memoised per context and tokenisation."""
        tokenization = self.tokenization(ctx)
        references = reference_set(ctx.ref_texts(), tokenization)
        systems = ctx.evalset.systems
        edits = references.minimum_edits([[ter_words(text, tokenization) for text in ctx.hyp_texts(s)]
                                          for s in systems])
        lengths = references.average_lengths()
        return {s: np.column_stack([edits[i], lengths]) for i, s in enumerate(systems)}

    def corpus_score(self, stats_sum: np.ndarray) -> np.ndarray:
        """100 · summed edits / summed reference lengths, as sacrebleu (:func:`ter_scores`)."""
        return ter_scores(stats_sum)

    def signature_fields(self, ctx: ScoringContext) -> tuple[tuple[str, str], ...]:
        """sacrebleu's TER signature fields with the resolved options.

        TER runs on its own tokenisation, whatever mtdiag's tokenisation options say."""
        return self.tokenization(ctx).signature_fields

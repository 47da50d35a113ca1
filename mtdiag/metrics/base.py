"""What every metric is: metadata, a result, and a computation over sufficient statistics.

Modelled on sacrebleu's ``metrics/base.py``: a metric extracts per-segment *sufficient statistics* once (a numpy
array ``stats`` of shape ``(n_segments, k)``), and both the corpus score and every resampled score (bootstrap,
randomisation: :mod:`mtdiag.compare`) are computed from sums of those rows by :meth:`Metric.corpus_score`, which
is vectorised over any leading axes. A segment score is, unless the metric's paper says otherwise, the same formula
applied to one row (:meth:`Metric.segment_scores`).

Computing never mutates a metric object; results are frozen dataclasses.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, ClassVar

import numpy as np

from mtdiag import __version__
from mtdiag.evalset import EvalSet
from mtdiag.tokenize import TokenizedSet, TokenizeOptions, tokenize_evalset


@dataclass(frozen=True)
class OptionSpec:
    """One user-settable option of a metric (the CLI and the UI draw their widgets from these)."""

    name: str
    default: Any
    help: str
    choices: tuple[Any, ...] | None = None
    minimum: int | None = None
    maximum: int | None = None
    type: type | None = None  # the value's type when the default (None = auto) does not show it

    def validate(self, value: Any) -> Any:
        if value is None and self.default is None:  # "auto": the metric resolves it
            return value
        if self.choices is not None and value not in self.choices:
            raise ValueError(f"option {self.name}={value!r}: choose one of {self.choices}")
        if isinstance(self.default, int) and not isinstance(self.default, bool):
            if not isinstance(value, (int, np.integer)) or isinstance(value, bool):
                raise ValueError(f"option {self.name}={value!r}: expected a whole number")
            if self.minimum is not None and value < self.minimum or self.maximum is not None and value > self.maximum:
                raise ValueError(f"option {self.name}={value}: must be in {self.minimum}..{self.maximum}")
        return value


@dataclass(frozen=True)
class MetricInfo:
    """Declarative metadata: what the registry, the CLI and the dashboard know about a metric."""

    name: str  # the key used in JSON, the CLI and column names, e.g. "otem"
    label: str  # a short display name, e.g. "OTEM"
    description: str
    paper: str  # citation of the defining paper / equation
    scale: float  # 100 for 0-100 metrics, 1 for 0-1 metrics (OTEM/UTEM may exceed 100: LP > 1)
    higher_is_better: bool
    segment_level: bool = True
    needs_terms: bool = False
    options: tuple[OptionSpec, ...] = ()


@dataclass(frozen=True)
class MetricResult:
    """Scores of one metric for one system: corpus score, segment scores, sufficient statistics."""

    metric: str
    system: str
    corpus: float
    segments: np.ndarray  # float per segment; NaN where the metric is undefined on that segment
    stats: np.ndarray  # (n_segments, k) sufficient statistics
    stat_names: tuple[str, ...]
    signature: str
    evidence: Any = field(default=None, compare=False, repr=False)  # metric-specific per-segment detail


class ScoringContext:
    """Everything metrics share for one EvalSet and one tokenisation: tokens, n-gram counts, raw texts.

    Built once per (data, options) by :func:`mtdiag.api.evaluate`; each shared structure is computed lazily on
    first use and then reused by every metric and every system (references are processed once, not per system).
    """

    def __init__(self, evalset: EvalSet, options: TokenizeOptions = TokenizeOptions(), tgt_lang: str | None = None):
        self.evalset = evalset
        self.options = options
        self.tgt_lang = tgt_lang if tgt_lang is not None else evalset.tgt_lang

    @cached_property
    def tokens(self) -> TokenizedSet:
        """Tokens under the user's options (default 13a + lower-case): OTEM/UTEM, WAFT/NEVA, terms, n-grams."""
        return tokenize_evalset(self.evalset.refs, self.evalset.hyps, self.options)

    @cached_property
    def cased_tokens(self) -> TokenizedSet:
        """Tokens with the user's tokeniser but sacrebleu's default casing (case-sensitive), for BLEU."""
        if not self.options.lowercase:
            return self.tokens
        return tokenize_evalset(
            self.evalset.refs, self.evalset.hyps, TokenizeOptions(self.options.tokenize, lowercase=False)
        )

    def word_ngrams(self, max_order: int):
        """Word n-gram counts of every side under the user's options (orders 1..max_order)."""
        return self._ngram_index("word", max_order)

    def cased_word_ngrams(self, max_order: int):
        return self._ngram_index("cased", max_order)

    def char_ngrams(self, max_order: int):
        """Character n-gram counts of every raw text with whitespace removed (chrF, case-sensitive)."""
        return self._ngram_index("char", max_order)

    def _ngram_index(self, kind: str, max_order: int):
        from mtdiag.ngrams import NgramIndex, char_sides

        cache = self.__dict__.setdefault("_ngram_cache", {})
        cached = cache.get(kind)
        if cached is None or cached.max_order < max_order:
            # one index per kind: built at least to order 4 (6 for characters) so that n-gram ids handed out
            # to one metric stay valid for every other
            max_order = max(max_order, 6 if kind == "char" else 4)
            if kind == "char":
                sides = char_sides(self.evalset.refs, self.evalset.hyps)
            else:
                tokset = self.tokens if kind == "word" else self.cased_tokens
                sides = {("ref", k): v for k, v in tokset.refs.items()} | {("hyp", k): v for k, v in tokset.hyps.items()}
            cached = cache[kind] = NgramIndex(sides, max_order)
        return cached

    def ref_texts(self) -> list[list[str]]:
        """Raw reference texts, one list per reference column."""
        return [self.evalset.refs[name].tolist() for name in self.evalset.ref_names]

    def hyp_texts(self, system: str) -> list[str]:
        return self.evalset.hyps[system].tolist()


class Metric(ABC):
    """A metric: metadata + options; ``compute`` returns a :class:`MetricResult` for one system."""

    info: ClassVar[MetricInfo]

    def __init__(self, **options: Any):
        known = {spec.name: spec for spec in self.info.options}
        unknown = set(options) - set(known)
        if unknown:
            raise ValueError(f"{self.info.name} has no option {', '.join(sorted(unknown))}")
        self.options = {name: spec.validate(options.get(name, spec.default)) for name, spec in known.items()}

    @property
    def stat_names(self) -> tuple[str, ...]:
        raise NotImplementedError

    @abstractmethod
    def statistics(self, ctx: ScoringContext, system: str) -> np.ndarray:
        """Per-segment sufficient statistics, shape (n_segments, len(stat_names))."""

    @abstractmethod
    def corpus_score(self, stats_sum: np.ndarray) -> np.ndarray:
        """The corpus score from summed statistics; vectorised over leading axes: (..., k) -> (...)."""

    def segment_scores(self, stats: np.ndarray) -> np.ndarray:
        """Segment scores: the corpus formula on a one-segment corpus (override where the paper differs)."""
        return self.corpus_score(stats)

    def evidence(self, ctx: ScoringContext, system: str) -> Any:
        """Optional per-segment detail for the dashboard (n-grams, alignments, ...)."""
        return None

    def signature(self, ctx: ScoringContext) -> str:
        refs = len(ctx.evalset.ref_names)
        opts = "|".join(f"{k}:{v}" for k, v in self.options.items())
        parts = [self.info.name, f"nrefs:{refs}", ctx.options.signature, opts, f"version:mtdiag-{__version__}"]
        return "|".join(p for p in parts if p)

    def compute(self, ctx: ScoringContext, system: str) -> MetricResult:
        stats = self.statistics(ctx, system)
        return MetricResult(
            metric=self.info.name,
            system=system,
            corpus=float(self.corpus_score(stats.sum(axis=0))),
            segments=np.asarray(self.segment_scores(stats), dtype=float),
            stats=stats,
            stat_names=self.stat_names,
            signature=self.signature(ctx),
        )

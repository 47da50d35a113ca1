"""The one entry point of the core: ``evaluate(EvalSet, Options) -> Report``.

The CLI and the dashboard both call :func:`evaluate`; a :class:`Report` holds every score as the two frames of the
data model (``shared/DESIGN.md``): corpus scores indexed by ``system`` and segment scores indexed by
``(system, seg)``, one column per metric, plus lazily computed evidence (over-/under-matched n-grams, edit
operations) for the dashboard.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Callable

import numpy as np
import pandas as pd

from mtdiag.evalset import EvalSet
from mtdiag.metrics import REGISTRY, MetricResult, ScoringContext, create_metric
from mtdiag.tokenize import DEFAULT_LOWERCASE, TokenizeOptions, default_tokenizer

ProgressCallback = Callable[[float, str], None]


@dataclass(frozen=True)
class Options:
    """Everything that changes a number. Defaults follow ``shared/spec/METRICS.md`` and the CLI contract."""

    tokenize: str | None = None  # None: by target language (ja-mecab for ja, zh for zh, else 13a), as sacrebleu
    lowercase: bool = DEFAULT_LOWERCASE
    metrics: tuple[str, ...] | None = None  # None: every metric the inputs allow
    otem_order: int = 2
    utem_order: int = 4
    tgt_lang: str | None = None  # stop words of term window overlap; None: read from the EvalSet's lang pair

    @property
    def tokenize_options(self) -> TokenizeOptions:
        return TokenizeOptions(self.tokenize or default_tokenizer(self.tgt_lang), self.lowercase)

    def resolved(self, evalset: EvalSet) -> "Options":
        """These options with the target language and the tokeniser made explicit for ``evalset``."""
        tgt_lang = self.tgt_lang or evalset.tgt_lang
        return replace(self, tgt_lang=tgt_lang, tokenize=self.tokenize or default_tokenizer(tgt_lang))

    def metric_options(self, name: str) -> dict:
        return {"otem": {"order": self.otem_order}, "utem": {"order": self.utem_order}}.get(name, {})


def available_metrics(evalset: EvalSet) -> list[str]:
    """The registered metrics these inputs allow (term metrics only when the set has terms)."""
    has_terms = evalset.terms is not None and len(evalset.terms) > 0
    return [name for name, cls in REGISTRY.items() if has_terms or not cls.info.needs_terms]


@dataclass(frozen=True)
class Report:
    """Every score of every system for one EvalSet under one set of options."""

    evalset: EvalSet
    options: Options
    metrics: tuple[str, ...]
    results: dict[tuple[str, str], MetricResult] = field(repr=False)
    context: ScoringContext = field(repr=False, compare=False)

    @cached_property
    def corpus(self) -> pd.DataFrame:
        """Corpus scores: index ``system``, one column per metric."""
        frame = pd.DataFrame(
            {m: [self.results[(m, s)].corpus for s in self.evalset.systems] for m in self.metrics},
            index=pd.Index(self.evalset.systems, name="system"),
        )
        return frame

    @cached_property
    def segments(self) -> pd.DataFrame:
        """Segment scores: index ``(system, seg)``, one column per metric (NaN where undefined)."""
        n = self.evalset.n_segments
        index = pd.MultiIndex.from_product([self.evalset.systems, range(n)], names=["system", "seg"])
        data = {
            m: np.concatenate([self.results[(m, s)].segments for s in self.evalset.systems]) for m in self.metrics
        }
        return pd.DataFrame(data, index=index)

    def result(self, metric: str, system: str) -> MetricResult:
        return self.results[(metric, system)]

    def evidence(self, metric: str, system: str):
        """Metric-specific per-segment detail (computed on first request, then cached)."""
        cache = self.__dict__.setdefault("_evidence", {})
        if (metric, system) not in cache:
            cache[(metric, system)] = self.metric(metric).evidence(self.context, system)
        return cache[(metric, system)]

    def metric(self, name: str):
        return create_metric(name, **self.options.metric_options(name))

    def signatures(self) -> dict[str, str]:
        first = self.evalset.systems[0]
        return {m: self.results[(m, first)].signature for m in self.metrics}


def evaluate(evalset: EvalSet, options: Options = Options(), progress: ProgressCallback | None = None) -> Report:
    """Score every system of ``evalset`` with every requested metric.

    Texts are tokenised once and n-grams counted once (:class:`~mtdiag.metrics.ScoringContext`); references are
    processed once for all systems. ``progress(fraction, message)`` is called as metrics finish.
    """
    options = options.resolved(evalset)
    allowed = available_metrics(evalset)
    names = tuple(options.metrics) if options.metrics is not None else tuple(allowed)
    for name in names:
        if name not in REGISTRY:
            raise ValueError(f"unknown metric {name!r}; known: {', '.join(REGISTRY)}")
        if name not in allowed:
            raise ValueError(f"metric {name!r} needs term annotations (--terms), and these inputs have none")
    context = ScoringContext(evalset, options.tokenize_options, tgt_lang=options.tgt_lang)
    results: dict[tuple[str, str], MetricResult] = {}
    steps = max(len(names) * len(evalset.systems), 1)
    for i, name in enumerate(names):
        metric = create_metric(name, **options.metric_options(name))
        for j, system in enumerate(evalset.systems):
            if progress:
                progress((i * len(evalset.systems) + j) / steps, f"{metric.info.label}: {system}")
            results[(name, system)] = metric.compute(context, system)
    if progress:
        progress(1.0, "done")
    return Report(evalset=evalset, options=options, metrics=names, results=results, context=context)

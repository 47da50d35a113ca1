"""The one entry point of the core: ``evaluate(EvalSet, Options) -> Report``.

The CLI and the dashboard both call :func:`evaluate`; a :class:`Report` holds every score as the two frames of the
data model (``docs/architecture.md``): corpus scores indexed by ``system`` and segment scores indexed by
``(system, seg)``, one column per metric, plus lazily computed evidence (over-/under-matched n-grams, edit
operations) for the dashboard.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any, Callable, Mapping

import numpy as np
import pandas as pd

from mtdiag.scoring.chunks import SHARED_TEXTS, Execution, chunked_statistics, shared_statistics
from mtdiag.core.evalset import EvalSet
from mtdiag.io.error_weights import weighed
from mtdiag.core.needs import NEEDS, lacking
from mtdiag.metrics import (DerivedMetric, Metric, MetricResult, ScoringContext, Signature, create_metric,
                            metric_classes, metric_info)
from mtdiag.core.tokenize import DEFAULT_LOWERCASE, DEFAULT_TYPOGRAPHY, TokenizeOptions, default_tokenizer

ProgressCallback = Callable[[float, str], None]


MetricOptions = tuple[tuple[str, tuple[tuple[str, Any], ...]], ...]


def _freeze_metric_options(value: Mapping[str, Mapping[str, Any]] | MetricOptions | None) -> MetricOptions:
    """``{metric: {option: value}}`` as a sorted, hashable tuple (so ``Options`` stays frozen and its ``repr`` is a
    stable cache key); options equal to their declared default are dropped."""
    items = dict(value or ())
    frozen = []
    for metric in sorted(items):
        spec_of = {spec.name: spec for spec in metric_info(metric).options}
        chosen = dict(items[metric])
        unknown = sorted(set(chosen) - set(spec_of))
        if unknown:
            raise ValueError(f"{metric} has no option {', '.join(unknown)}")
        kept = tuple((name, spec_of[name].validate(v)) for name, v in sorted(chosen.items())
                     if spec_of[name].validate(v) != spec_of[name].default)
        if kept:
            frozen.append((metric, kept))
    return tuple(frozen)


@dataclass(frozen=True)
class Options:
    """Everything that changes a number. Defaults follow ``docs/metrics.md`` and the command line's.

    ``metric_options`` maps a metric name to its options (``{"otem": {"order": 3}, "chrf": {"word_order": 2}}``),
    validated against each metric's declared :class:`~mtdiag.metrics.OptionSpec`; a mapping is accepted and stored
    as a sorted tuple.
    """

    tokenize: str | None = None  # None: by target language (ja-mecab for ja, zh for zh, else 13a), as sacrebleu
    lowercase: bool = DEFAULT_LOWERCASE
    metrics: tuple[str, ...] | None = None  # None: every metric the inputs allow
    metric_options: MetricOptions = ()
    tgt_lang: str | None = None  # stop words of term window overlap; None: read from the EvalSet's lang pair
    typography: bool = DEFAULT_TYPOGRAPHY  # normalise quotes/dashes/widths for the diagnostic metrics

    def __post_init__(self) -> None:
        object.__setattr__(self, "metric_options", _freeze_metric_options(self.metric_options))

    @property
    def tokenize_options(self) -> TokenizeOptions:
        """The tokenisation these options ask for (the target language's default tokeniser when none is named)."""
        return TokenizeOptions(self.tokenize or default_tokenizer(self.tgt_lang), self.lowercase, self.typography)

    def resolved(self, evalset: EvalSet) -> "Options":
        """These options with the target language and the tokeniser made explicit for ``evalset``."""
        tgt_lang = self.tgt_lang or evalset.tgt_lang
        return replace(self, tgt_lang=tgt_lang, tokenize=self.tokenize or default_tokenizer(tgt_lang))

    def options_for(self, metric: str) -> dict[str, Any]:
        """The options given for ``metric`` (the metric fills in its declared defaults)."""
        return dict(dict(self.metric_options).get(metric, ()))


def available_metrics(evalset: EvalSet) -> list[str]:
    """The metrics these inputs allow: the registered ones, then the set's own imported metrics.

    The order is :func:`mtdiag.metrics.metric_classes`'s. Term metrics only when the set has terms, source-reading
    metrics only when it has a source, reference-based metrics only when it has a reference, consensus-style metrics
    only with enough systems."""
    return [name for name in metric_classes(evalset) if missing_input(evalset, name) is None]


def default_metrics(evalset: EvalSet) -> tuple[str, ...]:
    """The metrics computed when none are named.

    Every available one — with references, those whose ``default_with_references`` is set (reference-free signals
    such as consensus are then on request) — and a metric with ``default_max_pairs`` only on a set of at most that
    many (system, segment) pairs (above, on request: predicted MQM, whose spans are computed on the whole set, not
    slice by slice); never a metric ``on_request``."""
    classes = metric_classes(evalset)
    pairs = evalset.n_segments * len(evalset.systems)
    return tuple(name for name in available_metrics(evalset) if not classes[name].info.on_request
                 and (not evalset.has_references or classes[name].info.default_with_references)
                 and (classes[name].info.default_max_pairs is None or pairs <= classes[name].info.default_max_pairs))


NO_REFERENCE = ("no reference: OTEM/UTEM, WAFT/NEVA, BLEU, chrF, TER and the HT/MT n-grams compare an output with a "
                "human reference — give one (--ref, or a ref.*.txt file in the folder or upload) to see them")


def no_metric_reason(evalset: EvalSet) -> str:
    """One sentence on why no metric can be computed for these inputs and what to add."""
    if evalset.has_references:
        return "no metric can be computed for these inputs"
    return (f"{NO_REFERENCE}; without one, a score needs three or more system outputs (consensus: each output "
            f"against the others; these inputs have {len(evalset.systems)}) or scores computed elsewhere "
            "(--scores, e.g. CometKiwi)")


def missing_input(evalset: EvalSet, name: str) -> str | None:
    """What the inputs lack for metric ``name`` (a phrase naming what to give), None when it can be computed."""
    absent = lacking(evalset, None, metric_classes(evalset)[name].info.needs)
    return None if not absent else f"{NEEDS[absent[0]].what} ({NEEDS[absent[0]].given})"


@dataclass(frozen=True)
class Report:
    """Every score of every system for one EvalSet under one set of options."""

    evalset: EvalSet
    options: Options
    metrics: tuple[str, ...]
    results: dict[tuple[str, str], MetricResult] = field(repr=False)
    context: ScoringContext = field(repr=False, compare=False)
    metric_objects: dict[str, Metric] = field(repr=False, compare=False)

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
        """The scores of ``metric`` for ``system``."""
        return self.results[(metric, system)]

    def evidence(self, metric: str, system: str):
        """Metric-specific per-system detail (computed on first request, then kept in the scoring context)."""
        return self.metric(metric).cached_evidence(self.context, system)

    def metric(self, name: str) -> Metric:
        """The metric object (with its options) that computed this report's ``name`` scores."""
        return self.metric_objects[name]

    def signatures(self) -> dict[str, Signature]:
        """The signature of each metric (the same for every system: read from the first)."""
        first = self.evalset.systems[0]
        return {m: self.results[(m, first)].sig for m in self.metrics}


def evaluate(evalset: EvalSet, options: Options = Options(), progress: ProgressCallback | None = None,
             execution: Execution | None = None, prepare: Callable[[Report], None] | None = None, *,
             derive: bool = True) -> Report:
    """Score every system of ``evalset`` with every requested metric.

    Texts are tokenised once and n-grams counted once (:class:`~mtdiag.metrics.ScoringContext`); references are
    processed once for all systems. ``progress(fraction, message)`` is called as the work advances.

    ``options.metrics == ()`` asks for no score: the report then holds the set, the options and the scoring context
    (tokens, n-gram tables) for what reads no score (the HT/MT n-gram tables, ORANGE/KING/QUEEN).

    ``execution`` (:class:`~mtdiag.scoring.chunks.Execution`) says how, never what: a set of up to
    :data:`~mtdiag.scoring.chunks.SHARED_TEXTS` texts is scored whole on the report's own context, whose tokens and
    n-gram indexes the checks, spans and evidence then reuse (the metrics on two threads when the set is large
    enough for a second core); a larger one slice by slice (bounded memory; threads over slices; or a Dask cluster),
    the per-segment statistics stacked — the numbers are identical (:mod:`mtdiag.scoring.chunks`).

    ``prepare(report)``: what the caller will read next that depends on no score (the checks that read none, the
    words' support of the spans), given a report of the set without scores on the same context, run while the
    metrics score on the other threads — its memoised results are then the scored report's (the same context),
    and both cores work at once. Called only when the set is scored whole on two threads.

    Human error rows the caller has not weighed (``EvalSet.error_rows``) are weighed under the default scheme
    (:func:`mtdiag.io.error_weights.weighed`) for the report's set; another scheme joins a report without scoring
    again (:func:`mtdiag.pipeline.inputs.judged`). No metric reads human judgements.

    ``derive=False`` leaves out the metrics derived from the report of the others (:class:`~mtdiag.metrics.DerivedMetric`,
    predicted MQM): :func:`with_derived` adds them later on the same context (the dashboard draws the first page
    before it computes them, :func:`underived` names them).
    """
    evalset = weighed(evalset)
    options = options.resolved(evalset)
    metric_objects = _requested(evalset, options)
    context = ScoringContext(evalset, options.tokenize_options, tgt_lang=options.tgt_lang)
    scored = {name: metric for name, metric in metric_objects.items() if not isinstance(metric, DerivedMetric)}
    read = _read_by_derived(evalset, options, metric_objects, scored)
    meanwhile = (lambda: prepare(_report(evalset, options, (), {}, context, {}))) if prepare is not None else None
    stats = _scored_statistics(evalset, options, {**scored, **read}, context, execution, progress, meanwhile)
    for name, metric in read.items():  # kept on the context for the derived metrics, not in the report's metrics
        context.memo(read_key(metric), lambda name=name: {s: stats.pop((name, s)) for s in evalset.systems})
    report = _report(evalset, options, tuple(scored), stats, context, scored)
    if derive:
        return with_derived(report, progress)
    if progress:
        progress(1.0, "done")
    return report


def read_key(metric: Metric) -> tuple:
    """The memo key of the statistics of a metric that a derived metric reads and the report does not show.

    :func:`evaluate` keeps those statistics, per system, in the context's memo under this key
    (:attr:`~mtdiag.metrics.DerivedMetric.reads`); the key holds the metric's name and options."""
    return ("statistics read", metric.info.name, repr(sorted(metric.options.items())))


def metric_statistics(report, metric: Metric) -> np.ndarray:
    """The ``(system, segment, statistic)`` statistics of ``metric`` (an instance) on the report, as floats.

    The report's own statistics when it computed that metric with these options, or those the scoring kept on its
    context for the derived metrics (predicted MQM has the scoring compute what the judge reads:
    :attr:`~mtdiag.metrics.base.DerivedMetric.reads`, :func:`read_key`), else computed on the report's context now
    and kept there under the same key (the learned judge's features and the suspect-reference check read them)."""
    systems = report.evalset.systems
    name = metric.info.name
    if name in report.metrics and report.metric(name).options == metric.options:
        return np.stack([report.results[(name, s)].stats for s in systems]).astype(float)
    kept = report.context.memo(read_key(metric), lambda: {s: metric.statistics(report.context, s) for s in systems})
    return np.stack([kept[s] for s in systems]).astype(float)


def _read_by_derived(evalset: EvalSet, options: Options, requested: dict[str, Metric],
                     scored: dict[str, Metric]) -> dict[str, Metric]:
    """The metrics the requested derived metrics read (:attr:`~mtdiag.metrics.DerivedMetric.reads`) that are not
    requested themselves and that the set allows: scored with the others (on their threads, slice by slice where the
    set is), kept on the report's context for the derivation (:func:`read_key`)."""
    allowed = available_metrics(evalset)
    names = [name for metric in requested.values() if isinstance(metric, DerivedMetric) for name in metric.reads
             if name in allowed and name not in scored]
    return {name: create_metric(name, evalset, **options.options_for(name)) for name in dict.fromkeys(names)}


def _requested(evalset: EvalSet, options: Options) -> dict[str, Metric]:
    """The metric objects ``options`` (resolved on ``evalset``) ask for, in their order: the metrics named, or the
    defaults; ``ValueError`` for a metric unknown or one these inputs cannot have."""
    allowed = available_metrics(evalset)
    names = tuple(options.metrics) if options.metrics is not None else default_metrics(evalset)
    if not names and options.metrics is None and evalset.has_references:
        raise ValueError("no metric to compute: name at least one")
    known = metric_classes(evalset)
    for name in names:
        if name not in known:
            raise ValueError(f"unknown metric {name!r}; known: {', '.join(known)}")
        if name not in allowed:
            raise ValueError(f"metric {name!r} needs {missing_input(evalset, name)}, and these inputs have none")
    return {name: create_metric(name, evalset, **options.options_for(name)) for name in names}


def underived(report: Report) -> tuple[str, ...]:
    """The derived metrics (:class:`~mtdiag.metrics.DerivedMetric`) ``report``'s options ask for that it lacks.

    What :func:`with_derived` adds (none for a report :func:`evaluate` completed). Read from the names and the
    classes: nothing is made."""
    options = report.options
    names = tuple(options.metrics) if options.metrics is not None else default_metrics(report.evalset)
    classes = metric_classes(report.evalset)
    return tuple(name for name in names if name not in report.metrics and name in classes
                 and issubclass(classes[name], DerivedMetric))


def with_derived(report: Report, progress: ProgressCallback | None = None) -> Report:
    """``report`` with the metrics derived from it that its options ask for (:func:`underived`: predicted MQM).

    They are computed from the report of the others on its context (their predicted spans stay in its memo for the
    pages), in the order the options name them; nothing else is scored again."""
    requested = _requested(report.evalset, report.options)
    missing = {name: requested[name] for name in underived(report)}
    results = dict(report.results)
    for name, metric in missing.items():
        if progress:
            progress(1.0, f"deriving {metric.info.label}")
        for system, values in metric.derive(report).items():
            results[(name, system)] = metric.result(system, values, report.context)
    if progress:
        progress(1.0, "done")
    if not missing:
        return report
    objects = {**report.metric_objects, **missing}
    return Report(evalset=report.evalset, options=report.options, metrics=tuple(n for n in requested if n in objects),
                  results=results, context=report.context, metric_objects=objects)


def _scored_statistics(evalset: EvalSet, options: Options, metric_objects: dict[str, Metric],
                       context: ScoringContext, execution: Execution | None, progress: ProgressCallback | None,
                       meanwhile: Callable[[], None] | None = None) -> dict[tuple[str, str], np.ndarray]:
    """Every (metric, system)'s statistics of metrics computed from tokens, in one piece or slice by slice."""
    names = tuple(metric_objects)
    if not names:
        return {}
    execution = execution or Execution()
    workers = execution.n_workers(evalset.n_segments * len(evalset.systems))
    chunk = execution.chunk_size(len(evalset.ref_names) + len(evalset.systems))
    if workers > 1:
        chunk = min(chunk, max(-(-evalset.n_segments // workers), 1))
    texts = evalset.n_segments * (len(evalset.ref_names) + len(evalset.systems) + 1)
    if execution.dask or (texts > SHARED_TEXTS and (workers > 1 or evalset.n_segments > chunk)):
        return chunked_statistics(evalset, options.tokenize_options, options.tgt_lang,
                                  [(name, metric.options) for name, metric in metric_objects.items()],
                                  replace(execution, chunk=chunk, workers=workers), progress)
    return shared_statistics(context, list(metric_objects.items()), workers, progress,
                             meanwhile if workers > 1 else None)


def _report(evalset: EvalSet, options: Options, names: tuple[str, ...], stats, context: ScoringContext,
            metric_objects: dict[str, Metric]) -> Report:
    results = {(name, system): metric_objects[name].result(system, stats[(name, system)], context)
               for name in names for system in evalset.systems}
    return Report(evalset=evalset, options=options, metrics=names, results=results, context=context,
                  metric_objects=metric_objects)


def clear_caches() -> None:
    """Forget what scoring keeps between calls for speed.

    That is the tokenisations of every text seen (:func:`mtdiag.core.tokenize.clear_token_caches`), TER's encoded
    references (:func:`mtdiag.metrics.ter.clear_reference_sets`), and the unused memory of Arrow's pool (pandas keeps
    texts in Arrow strings; its allocator does not give freed memory back by itself). A long-running server calls it
    when its reports expire (:func:`mtdiag.ui.state.sweep`): ten sessions' uploads of 4 systems × 2,000 lines left
    1,229 MB held after they closed (425 MB at the start) without it (``benchmarks/bench_hostile_load.py``,
    ``docs/scaling.md``)."""
    import pyarrow as pa

    from mtdiag.metrics.ter import clear_reference_sets
    from mtdiag.core.tokenize import clear_token_caches

    clear_token_caches()
    clear_reference_sets()
    pa.default_memory_pool().release_unused()


def report_from_statistics(evalset: EvalSet, options: Options, metrics: tuple[str, ...],
                           statistics: Mapping[tuple[str, str], np.ndarray]) -> Report:
    """A report from per-segment statistics computed before (a saved run, a Dask job).

    Corpus and segment scores come from the metrics' formulas, nothing tokenised or counted again. ``options`` are the
    ones the statistics were computed with; ``statistics`` maps every ``(metric, system)`` to its ``(n_segments, k)``
    array."""
    options = options.resolved(evalset)
    missing = [(m, s) for m in metrics for s in evalset.systems if (m, s) not in statistics]
    if missing:
        raise ValueError(f"no statistics for {missing[0][0]} of {missing[0][1]}")
    context = ScoringContext(evalset, options.tokenize_options, tgt_lang=options.tgt_lang)
    metric_objects = {name: create_metric(name, evalset, **options.options_for(name)) for name in metrics}
    for name in metrics:  # statistics of another layout (a run saved by another version) are refused, not misread
        expected = len(metric_objects[name].stat_names)
        for system in evalset.systems:
            found = np.shape(statistics[(name, system)])
            if len(found) != 2 or found[1] != expected:
                raise ValueError(f"the statistics of {name} for {system} have the shape {found}, this version of "
                                 f"mtdiag computes {expected} per segment: saved by another version — score the "
                                 "set again")
    return _report(evalset, options, tuple(metrics), statistics, context, metric_objects)

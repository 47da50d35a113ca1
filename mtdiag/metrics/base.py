"""What every metric is: metadata, a result, and a computation over sufficient statistics.

Modelled on sacrebleu's ``metrics/base.py``: a metric extracts per-segment *sufficient statistics* once (a numpy array
``stats`` of shape ``(n_segments, k)``), and both the corpus score and every resampled score (bootstrap, randomisation:
:mod:`mtdiag.analysis.significance`) are computed from sums of those rows by :meth:`Metric.corpus_score`, which is
vectorised over any leading axes. A segment score is, unless the metric's paper says otherwise, the same formula applied
to one row (:meth:`Metric.segment_scores`). Computing never mutates a metric object; results are frozen dataclasses."""

from __future__ import annotations

import importlib
import threading
from abc import ABC, abstractmethod
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any, Callable, ClassVar, Hashable, Mapping, Sequence

import numpy as np
import pandas as pd

from mtdiag import __version__
from mtdiag.core.evalset import EvalSet
from mtdiag.core.highlight import Span
from mtdiag.core.needs import check_names
from mtdiag.core.tokenize import TokenizedSet, TokenizeOptions, tokenize_evalset


@dataclass(frozen=True)
class OptionSpec:
    """One user-settable option of a metric, declared once.

    The CLI generates ``--METRIC-OPTION`` from it, the sidebar draws a widget from it, and :class:`Metric` validates
    values with it. ``type`` is ``int``, ``float``, ``bool`` or ``str`` (inferred from ``default`` when not given). A
    ``default`` of ``None`` means *automatic* (the metric decides from the data, e.g. by target language) and needs an
    explicit ``type``. ``choices`` restricts the values; ``minimum``/``maximum`` bound numbers (inclusive)."""

    name: str
    default: Any
    help: str
    choices: tuple[Any, ...] | None = None
    minimum: float | None = None
    maximum: float | None = None
    type: type | None = None

    def __post_init__(self) -> None:
        if self.type is None:
            if self.default is None:
                raise ValueError(f"option {self.name}: an automatic default (None) needs an explicit type")
            object.__setattr__(self, "type", type(self.default))
        if self.type not in (int, float, bool, str):
            raise ValueError(f"option {self.name}: type must be int, float, bool or str, not {self.type!r}")

    def validate(self, value: Any) -> Any:
        """``value`` checked against the declaration (``ValueError`` naming the option otherwise)."""
        if value is None and self.default is None:
            return None
        if self.type is bool:
            if not isinstance(value, (bool, np.bool_)):
                raise ValueError(f"option {self.name}={value!r}: expected yes or no (a boolean)")
            value = bool(value)
        elif self.type is int:
            if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
                raise ValueError(f"option {self.name}={value!r}: expected a whole number")
            value = int(value)
        elif self.type is float:
            if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
                raise ValueError(f"option {self.name}={value!r}: expected a number")
            value = float(value)
            if not np.isfinite(value):
                raise ValueError(f"option {self.name}={value!r}: expected a finite number")
        elif not isinstance(value, str):
            raise ValueError(f"option {self.name}={value!r}: expected text")
        if self.choices is not None and value not in self.choices:
            raise ValueError(f"option {self.name}={value!r}: choose one of {', '.join(map(str, self.choices))}")
        if self.type in (int, float):
            if (self.minimum is not None and value < self.minimum) or (self.maximum is not None and value > self.maximum):
                raise ValueError(f"option {self.name}={value}: must be in {_bound(self.minimum)}..{_bound(self.maximum)}")
        return value

    def parse(self, text: str) -> Any:
        """A value from command-line text, validated (``ValueError`` with a one-line reason otherwise)."""
        if self.type is bool:
            lowered = text.strip().lower()
            if lowered not in _BOOL_WORDS:
                raise ValueError(f"{text!r}: expected yes or no")
            return self.validate(_BOOL_WORDS[lowered])
        if self.type in (int, float):
            try:
                value = self.type(text)
            except ValueError:
                raise ValueError(f"{text!r}: expected {'a whole number' if self.type is int else 'a number'}") from None
            return self.validate(value)
        return self.validate(text)

    def describe(self, value: Any) -> str:
        """How a value reads in signatures: ``yes``/``no`` for booleans, ``auto`` for an automatic default."""
        if value is None:
            return "auto"
        if isinstance(value, bool):
            return "yes" if value else "no"
        return f"{value:g}" if isinstance(value, float) else str(value)


_BOOL_WORDS = {"yes": True, "true": True, "on": True, "1": True, "no": False, "false": False, "off": False, "0": False}


def _bound(value: float | None) -> str:
    return "" if value is None else f"{value:g}"


@dataclass(frozen=True)
class MetricInfo:
    """Declarative metadata: what the registry, the CLI, the dashboard and every export know about a metric.

    The display facts (``label``, ``decimals``, ``higher_is_better``, ``scale``) are the one source for number
    formatting, best-per-column shading, significance direction and export headers."""

    name: str  # the key used in JSON, the CLI and column names, e.g. "otem"
    label: str  # a short display name, e.g. "OTEM"
    description: str
    paper: str  # citation of the defining paper / equation
    scale: float  # 100 for 0-100 metrics, 1 for 0-1 metrics (OTEM/UTEM may exceed 100: LP > 1)
    higher_is_better: bool | None  # None: no better direction (e.g. a length ratio: 1 is ideal)
    segment_level: bool = True
    needs: tuple[str, ...] = ("references",)  # what the data must have (mtdiag.core.needs.NEEDS); () : reference-free
    compares_systems: bool = False  # one system's statistics depend on the other systems' outputs (consensus)
    default_max_pairs: int | None = None  # computed by default only up to this many (system, segment) pairs
    default_with_references: bool = True  # False: computed by default only where there is no reference
    on_request: bool = False  # True: never by default — when named, or read by a derived metric (DerivedMetric.reads)
    options: tuple[OptionSpec, ...] = ()
    decimals: int | None = None  # places shown; None: 2 on a 0-100 scale, 4 on a 0-1 scale
    range_text: str | None = None  # how the scale reads when it is not 0 to ``scale`` (e.g. MQM's "−25–0")

    def __post_init__(self) -> None:
        check_names(self.needs)

    @property
    def min_systems(self) -> int:
        """The fewest system outputs the metric scores (consensus compares each with the others)."""
        return 3 if "three_systems" in self.needs else 2 if "two_systems" in self.needs else 1

    @property
    def places(self) -> int:
        """Decimal places a person sees (tables, exports, LaTeX)."""
        if self.decimals is not None:
            return self.decimals
        return 2 if self.scale >= 10 else 4

    @property
    def has_direction(self) -> bool:
        """Whether one direction of the score is better (``higher_is_better`` is not None)."""
        return self.higher_is_better is not None

    @property
    def arrow_label(self) -> str:
        """``BLEU ↑`` / ``OTEM ↓``: the label with the direction that is better (no arrow without one)."""
        if not self.has_direction:
            return self.label
        return f"{self.label} {'↑' if self.higher_is_better else '↓'}"

    @property
    def direction(self) -> str:
        """The better direction in words: ``higher is better``, ``lower is better`` or ``no better direction``."""
        if not self.has_direction:
            return "no better direction"
        return "higher is better" if self.higher_is_better else "lower is better"

    @property
    def sign(self) -> float:
        """+1 higher is better, -1 lower is better, 0 no direction."""
        return 0.0 if not self.has_direction else 1.0 if self.higher_is_better else -1.0

    @property
    def scale_text(self) -> str:
        """How the scale reads: ``range_text`` when given, else ``0–100``, ``0–1`` or ``0–SCALE``."""
        if self.range_text is not None:
            return self.range_text
        return "0–100" if self.scale == 100 else "0–1" if self.scale == 1 else f"0–{self.scale:g}"

    def format(self, value: float) -> str:
        """A score as a person reads it (``—`` when undefined)."""
        return "—" if value is None or not np.isfinite(value) else f"{float(value):.{self.places}f}"

    def oriented(self, values):
        """``values`` turned so that higher is better (negated if lower is better; no direction: ``ValueError``)."""
        if not self.has_direction:
            raise ValueError(f"{self.label} has no better direction")
        return values if self.higher_is_better else -values

    def option(self, name: str) -> OptionSpec:
        """The declaration of the option ``name`` (``KeyError`` when the metric has none by that name)."""
        for spec in self.options:
            if spec.name == name:
                return spec
        raise KeyError(f"{self.name} has no option {name!r}")


@dataclass(frozen=True)
class Signature:
    """What produced a score, as sacrebleu prints it: ``name|key:value|…`` (e.g. ``bleu|nrefs:1|case:mixed|…``).

    A frozen value built by the metric from the options it really computed with; resampling tests add their fields
    with :meth:`with_fields` (no string is ever parsed back)."""

    name: str
    fields: tuple[tuple[str, str], ...] = ()

    def format(self) -> str:
        """The signature as sacrebleu prints it: ``name|key:value|…``."""
        return "|".join([self.name, *(f"{key}:{value}" for key, value in self.fields)])

    def __str__(self) -> str:
        return self.format()

    def get(self, key: str) -> str | None:
        """The value of the field ``key``, None when the signature has no such field."""
        return next((value for k, value in self.fields if k == key), None)

    def with_fields(self, fields: Sequence[tuple[str, str]], *, after: str | None = None) -> "Signature":
        """These fields inserted after the field ``after`` (before ``version`` when absent; else at the end)."""
        keys = [k for k, _ in self.fields]
        if after is not None and after in keys:
            at = keys.index(after) + 1
        else:
            at = keys.index("version") if "version" in keys else len(keys)
        added = tuple((str(k), str(v)) for k, v in fields)
        return replace(self, fields=self.fields[:at] + added + self.fields[at:])


def mtdiag_version_field() -> tuple[str, str]:
    """The field that ends every signature: ``("version", "mtdiag-VERSION")``."""
    return ("version", f"mtdiag-{__version__}")


@dataclass(frozen=True)
class MetricResult:
    """Scores of one metric for one system: corpus score, segment scores, sufficient statistics."""

    metric: str
    system: str
    corpus: float
    segments: np.ndarray  # float per segment; NaN where the metric is undefined on that segment
    stats: np.ndarray  # (n_segments, k) sufficient statistics
    stat_names: tuple[str, ...]
    sig: Signature

    @property
    def signature(self) -> str:
        """The formatted :class:`Signature`."""
        return self.sig.format()


@dataclass(frozen=True)
class EvidenceTable:
    """One table of a segment's evidence, as the detail view lists it."""

    title: str  # its tab
    frame: pd.DataFrame
    caption: str = ""  # shown above it
    empty: str = ""  # the text shown when it is empty
    alignment: bool = False  # True: its op/hyp/ref columns are also drawn as an alignment strip


@dataclass(frozen=True)
class SegmentEvidence:
    """What one metric shows for one (system, segment): highlight spans, the legend of their kinds, and tables."""

    hyp_spans: tuple[Span, ...] = ()  # marks on the hypothesis
    ref_spans: Mapping[str, tuple[Span, ...]] = field(default_factory=dict)  # marks on each reference, by name
    tables: Mapping[str, EvidenceTable] = field(default_factory=dict)  # keyed by a short name (over, alignment, …)
    legend: tuple[str, ...] = ()
    # single values, e.g. best_ref (the reference an alignment was made against)
    facts: Mapping[str, Any] = field(default_factory=dict)


class ScoringContext:
    """Everything metrics share for one EvalSet and one tokenisation: tokens, n-gram counts, raw texts.

    Built once per (data, options) by :func:`mtdiag.scoring.evaluate.evaluate`; each shared structure is computed lazily
    on first use and then reused by every metric and every system (references are processed once, not per system).
    Anything else a metric wants to compute once per context goes through :meth:`memo`."""

    def __init__(self, evalset: EvalSet, options: TokenizeOptions = TokenizeOptions(), tgt_lang: str | None = None):
        self.evalset = evalset
        self.options = options
        self.tgt_lang = tgt_lang if tgt_lang is not None else evalset.tgt_lang
        self._memo: dict[Hashable, Any] = {}
        self._building: dict[Hashable, threading.RLock] = {}
        self._lock = threading.Lock()

    def memo(self, key: Hashable, build: Callable[[], Any]) -> Any:
        """The value stored under ``key``, built by ``build()`` on first request.

        Thread-safe, and built once: the dashboard shares a report between sessions and metrics score on two threads
        (:mod:`mtdiag.scoring.chunks`), so a second thread asking for a value being built waits for it (an n-gram
        index is seconds of work). A build that fails stores nothing; the next request builds again."""
        with self._lock:
            if key in self._memo:
                return self._memo[key]
            building = self._building.setdefault(key, threading.RLock())
        with building:
            with self._lock:
                if key in self._memo:
                    return self._memo[key]
            try:
                value = build()
            except BaseException:
                with self._lock:
                    self._building.pop(key, None)
                raise
            with self._lock:
                self._building.pop(key, None)
                return self._memo.setdefault(key, value)

    def stored(self, key: Hashable) -> Any:
        """The value :meth:`memo` stored under ``key``, None when none is stored yet (nothing is built)."""
        with self._lock:
            return self._memo.get(key)

    @cached_property
    def tokens(self) -> TokenizedSet:
        """Tokens under the user's options (default 13a + lower-case): OTEM/UTEM, WAFT/NEVA, terms, n-grams."""
        return tokenize_evalset(self.evalset.refs, self.evalset.hyps, self.options)

    @cached_property
    def cased_tokens(self) -> TokenizedSet:
        """Tokens under the user's tokeniser, sacrebleu's defaults otherwise (cased, as written): BLEU, length ratio."""
        if not self.options.lowercase and not self.options.typography:
            return self.tokens
        return tokenize_evalset(
            self.evalset.refs, self.evalset.hyps,
            TokenizeOptions(self.options.tokenize, lowercase=False, typography=False),
        )

    def word_ngrams(self, max_order: int):
        """Word n-gram counts of every side under the user's options (orders 1..max_order)."""
        return self._ngram_index("word", max_order)

    def cased_word_ngrams(self, max_order: int):
        """Word n-gram counts of every side in :attr:`cased_tokens` (orders 1..max_order), for BLEU."""
        return self._ngram_index("cased", max_order)

    def char_ngrams(self, max_order: int):
        """Character n-gram counts of every raw text with whitespace removed (chrF, case-sensitive)."""
        return self._ngram_index("char", max_order)

    def chrf_word_ngrams(self, max_order: int):
        """Word n-gram counts of chrF++ words (whitespace split, edge punctuation separated; case-sensitive)."""
        return self._ngram_index("chrf_word", max_order)

    def _ngram_index(self, kind: str, max_order: int):
        from mtdiag.metrics.ngram_index import NgramIndex, char_sides, chrf_word_sides

        # one index per kind, built at least to order 4 (6 for characters) so that n-gram ids handed out to one
        # metric stay valid for every other; a request above that builds a larger one
        floor = 6 if kind == "char" else 4
        key = ("ngram_index", kind, max(max_order, floor))

        def build():
            if kind == "char":
                sides = char_sides(self.evalset.refs, self.evalset.hyps)
            elif kind == "chrf_word":
                sides = chrf_word_sides(self.evalset.refs, self.evalset.hyps)
            else:
                tokset = self.tokens if kind == "word" else self.cased_tokens
                sides = {("ref", k): v for k, v in tokset.refs.items()} | {("hyp", k): v for k, v in tokset.hyps.items()}
            return NgramIndex(sides, key[2], references=tuple(k for k in sides if k[0] == "ref"))

        return self.memo(key, build)

    def ref_texts(self) -> list[list[str]]:
        """Raw reference texts, one list per reference column."""
        return [self.evalset.refs[name].tolist() for name in self.evalset.ref_names]

    def hyp_texts(self, system: str) -> list[str]:
        """Raw texts of one system's output, one per segment."""
        return self.evalset.hyps[system].tolist()

    def display_tokens(self, side: str, seg: int) -> tuple[list[str], list[str]]:
        """(shown, matched) tokens of a reference or system for one segment.

        ``matched`` exactly the tokens the metrics saw, ``shown`` the same as written (original case and typography)
        when the tokenisation of the text as written lines up."""
        matched = self.tokens.tokens(side, seg)
        shown = matched
        if self.cased_tokens is not self.tokens:
            cased = self.cased_tokens.tokens(side, seg)
            fold = self.options.fold
            if len(cased) == len(matched) and all(fold(c) == m for c, m in zip(cased, matched)):
                shown = cased
        return list(shown), list(matched)


class Metric(ABC):
    """A metric: metadata + validated options; ``compute`` returns a :class:`MetricResult` for one system.

    Subclasses implement :meth:`statistics` and :meth:`corpus_score`; they may override :meth:`segment_scores` (where
    the paper's sentence score differs), :meth:`signature_fields` (what their numbers depend on), :meth:`evidence`
    (per-system detail, computed once per context) and :meth:`segment_evidence` (what the segment detail highlights)."""

    info: ClassVar[MetricInfo]

    def __init__(self, **options: Any):
        known = {spec.name: spec for spec in self.info.options}
        unknown = set(options) - set(known)
        if unknown:
            raise ValueError(f"{self.info.name} has no option {', '.join(sorted(unknown))}")
        self.options = {name: spec.validate(options.get(name, spec.default)) for name, spec in known.items()}

    @property
    def stat_names(self) -> tuple[str, ...]:
        """Names of the columns of :meth:`statistics`, in order."""
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
        """Optional per-system detail for the dashboard (n-grams, alignments, ...); use :meth:`cached_evidence`."""
        return None

    def cached_evidence(self, ctx: ScoringContext, system: str) -> Any:
        """:meth:`evidence`, computed once per context, metric, options and system."""
        key = ("evidence", self.info.name, tuple(sorted(self.options.items())), system)
        return ctx.memo(key, lambda: self.evidence(ctx, system))

    def segment_evidence(self, ctx: ScoringContext, system: str, seg: int) -> SegmentEvidence | None:
        """What the segment detail highlights for this metric (None: nothing)."""
        return None

    def signature_name(self) -> str:
        """The name that opens the signature (the metric's name unless a metric says otherwise)."""
        return self.info.name

    def signature_fields(self, ctx: ScoringContext) -> tuple[tuple[str, str], ...]:
        """The fields between ``nrefs`` and ``version`` (metrics on their own tokenisation override this).

        By default the shared tokenisation (``tok``, ``case``, ``typo``) and every option as ``name:value``."""
        options = tuple((spec.name, spec.describe(self.options[spec.name])) for spec in self.info.options)
        return (*ctx.options.signature_fields, *options)

    def signature(self, ctx: ScoringContext) -> Signature:
        """What produced the scores: name, ``nrefs``, :meth:`signature_fields` and the mtdiag version."""
        refs = len(ctx.evalset.ref_names)
        return Signature(self.signature_name(),
                         (("nrefs", str(refs)), *self.signature_fields(ctx), mtdiag_version_field()))

    def compute(self, ctx: ScoringContext, system: str) -> MetricResult:
        """The scores of one system, from its :meth:`statistics` on this context."""
        return self.result(system, self.statistics(ctx, system), ctx)

    def result(self, system: str, stats: np.ndarray, ctx: ScoringContext) -> MetricResult:
        """The scores of one system from its per-segment statistics (however they were computed)."""
        return MetricResult(
            metric=self.info.name,
            system=system,
            corpus=float(self.corpus_score(stats.sum(axis=0))),
            segments=np.asarray(self.segment_scores(stats), dtype=float),
            stats=stats,
            stat_names=self.stat_names,
            sig=self.signature(ctx),
        )


class DerivedMetric(Metric):
    """A metric whose per-segment statistics are derived from a *report* of the other metrics.

    E.g. predicted MQM, a function of the error spans predicted on the report (``docs/architecture.md``, "Metrics
    derived from a report"). What its numbers mean stays here, in the metrics layer (:meth:`corpus_score`,
    :meth:`segment_scores`, the metadata: saved runs, slices and significance re-aggregate its statistics without
    computing anything); where its statistics come from is :attr:`provider`, ``"module:function"`` of a layer above the
    scoring layer, which :func:`mtdiag.scoring.evaluate.evaluate` calls once the other metrics are scored:
    ``function(report, metric) -> {system: (n_segments, k) array}``. The import by name is the one place a lower layer
    reaches up, and it is declared: ``tests/test_architecture.py`` checks that every provider is a module of a layer
    above scoring."""

    provider: ClassVar[str]
    # registered metrics whose statistics the provider reads from the report: scored with the others (slice by slice
    # where the set is) wherever the inputs allow, even when not asked for; the report keeps the metrics asked for
    reads: ClassVar[tuple[str, ...]] = ()

    def statistics(self, ctx: ScoringContext, system: str) -> np.ndarray:
        """Not computed from a context: ``TypeError`` (:func:`mtdiag.scoring.evaluate.evaluate` uses :meth:`derive`)."""
        raise TypeError(f"{self.info.name} is derived from a report of the other metrics: mtdiag.scoring.evaluate.evaluate "
                        "computes it (DerivedMetric.derive)")

    def derive(self, report) -> dict[str, np.ndarray]:
        """Every system's statistics from ``report`` (the other metrics' report, on the same scoring context)."""
        module, _, function = self.provider.partition(":")
        return getattr(importlib.import_module(module), function)(report, self)

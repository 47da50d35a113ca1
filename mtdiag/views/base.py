"""What a view is: one analysis of a :class:`~mtdiag.scoring.evaluate.Report`, declared once, that shows itself everywhere — the
way compare-mt's reports both print themselves for the command line and write their own HTML (Neubig et al. 2019).

A :class:`View` names itself (``name``, the page's address and the ``mtdiag view NAME`` argument; ``title``;
``help``), declares the choices it takes (:class:`ViewOption`, like a metric's
:class:`~mtdiag.metrics.OptionSpec`: the dashboard draws a widget from it and ``mtdiag view`` a flag, with the one
default), the named tables it computes (:class:`Table`) and its charts (:class:`Chart`), and what the data must
have (``needs``: a reference, two systems, human scores, …; :data:`mtdiag.core.needs.NEEDS`). The dashboard's navigation
and pages, the ``mtdiag view`` command, the HTML report's sections and their table of contents, the downloads and
the page tests all read these declarations from :data:`mtdiag.views.REGISTRY`; nothing here imports Streamlit or
writes HTML.

Three rules every view follows are kept once: :func:`default_metric` here (the metric a view shows first),
:mod:`mtdiag.views.cells` (what a table cell shows of a long text) and :mod:`mtdiag.views.segment_ids` (every
table names a segment by its id in the set).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

import pandas as pd

from mtdiag.core.needs import NEEDS, check_names
from mtdiag.core.needs import missing_in as missing
from mtdiag.views.segment_ids import with_set_ids

DEFAULT_METRICS = ("chrf", "bleu")
"""The metrics a page shows first, in order of preference: chrF (character n-gram F-score, robust on short and
morphologically rich segments, the WMT metrics task's long-standing baseline), then BLEU."""


def default_metric(metrics: Sequence[str], preferred: Sequence[str] = DEFAULT_METRICS) -> str | None:
    """The first of ``preferred`` among ``metrics`` (default: chrF, else BLEU), else the first of ``metrics``.

    None when there is none."""
    return next((m for m in preferred if m in metrics), metrics[0] if len(metrics) else None)


# ----------------------------------------------------------------------------------------------- what data has


def has_human_scores(report) -> bool:
    """True when the data has human scores for at least one of the report's systems.

    As :data:`mtdiag.core.needs.NEEDS` tests it."""
    return NEEDS["human"].test(report.evalset)


def has_error_annotations(report) -> bool:
    """True when the data has human error annotations (MQM/ESA) with at least one error of a loaded system."""
    return NEEDS["annotations"].test(report.evalset)


def has_terms(report) -> bool:
    """True when the data has term occurrences and the term metrics were computed."""
    return missing(report, TERMS) is None


TERMS = ("terms", "metric:term_exact")
"""What the term views need: term occurrences, and the term metrics computed from them."""


# ----------------------------------------------------------------------------------------------- declarations


Chosen = Mapping[str, Any]


@dataclass(frozen=True)
class ViewOption:
    """One choice a view takes, declared once: the dashboard draws a widget from it, ``mtdiag view NAME`` a flag.

    The widget shows ``label``, ``help`` and the choices read as ``describe`` says; the flag is ``--NAME``
    (underscores as hyphens); both start from :meth:`default_for`.

    ``choices``: the values offered — a sequence, or a function of the report and the options chosen before it
    (a second system is any system but the first), None for a free number; ``type`` is ``str``, ``int``, ``float``
    or ``bool``; ``many``: several of the choices (a list; comma-separated on the command line). ``default``: a
    value or a function of (report, chosen); None is the first choice. ``empty``: why the view shows nothing when
    no choice is offered (e.g. a metric it needs was not computed). ``of``: what the values are, for how they read
    (``metric``: metric names). ``needs``: what the data must have for the option to apply (:data:`NEEDS`; two
    systems for a second system): without it the option is left out, its value None. ``check``: for a free value
    (a text), a test that raises ``ValueError`` with a one-line reason when the value cannot be used (a search
    pattern that is no regular expression): the command line refuses it, a page says why and uses the default.
    ``minimum``/``maximum``: the bounds of a number; for a text, ``maximum`` is its most characters (the widget
    takes no more, the command line refuses more)."""

    name: str
    label: str
    help: str = ""
    choices: Sequence | Callable[[Any, Chosen], Sequence] | None = None
    default: Any = None
    type: type = str
    many: bool = False
    minimum: float | None = None
    maximum: float | Callable[[Any], float] | None = None
    describe: Mapping[Any, str] | Callable[[Any], str] | None = None
    of: str = ""
    needs: tuple[str, ...] = ()
    empty: str = ""
    check: Callable[[Any], None] | None = None

    def __post_init__(self) -> None:
        check_names(self.needs)

    @property
    def flag(self) -> str:
        """The option's command-line flag: ``--NAME``, underscores as hyphens."""
        return "--" + self.name.replace("_", "-")

    def offered(self, report, chosen: Chosen) -> list | None:
        """The values offered on ``report`` after the options ``chosen`` before this one (None: any number)."""
        if self.choices is None:
            return None
        return list(self.choices(report, chosen) if callable(self.choices) else self.choices)

    def upper(self, report) -> float | None:
        """The largest number allowed on ``report``."""
        return self.maximum(report) if callable(self.maximum) else self.maximum

    def default_for(self, report, chosen: Chosen) -> Any:
        """The value a view starts from: the declared default, else the first choice.

        The declared default is a function of the report and the options chosen before it, or a value; the first choice
        is taken when it declares none; for ``many``, the defaults offered."""
        value = self.default(report, chosen) if callable(self.default) else self.default
        offered = self.offered(report, chosen)
        if self.many:
            return [v for v in (value or ()) if offered is None or v in offered]
        if value is None and offered:
            return offered[0]
        return value

    def applies(self, report) -> bool:
        """True when the data has what the option needs."""
        return missing(report, self.needs) is None

    def parse(self, text: str) -> Any:
        """A value from command-line text (``ValueError`` with a one-line reason)."""
        if self.many:
            return [self._one(part.strip()) for part in text.split(",") if part.strip()]
        return self._one(text)

    def _one(self, text: str) -> Any:
        if self.type is bool:
            words = {"yes": True, "true": True, "on": True, "1": True, "no": False, "false": False, "off": False,
                     "0": False}
            if text.strip().lower() not in words:
                raise ValueError(f"{self.flag} {text!r}: expected yes or no")
            return words[text.strip().lower()]
        if self.type in (int, float):
            try:
                return self.type(text)
            except ValueError:
                expected = "a whole number" if self.type is int else "a number"
                raise ValueError(f"{self.flag} {text!r}: expected {expected}") from None
        return text

    def resolve(self, report, chosen: Chosen, value: Any = None) -> Any:
        """``value`` checked against what ``report`` offers (the default when None).

        ``ValueError`` naming the flag and the choices otherwise. None when the option does not apply
        (:meth:`applies`)."""
        if not self.applies(report):
            return None
        if value is None:
            return self.default_for(report, chosen)
        offered = self.offered(report, chosen)
        values = list(value) if self.many else [value]
        if self.check is not None:
            try:
                self.check(value)
            except ValueError as error:
                raise ValueError(f"{self.flag} {value!r}: {error}") from None
        if offered is not None:
            for v in values:
                if v not in offered:
                    raise ValueError(f"{self.flag} {v!r}: choose {'from' if self.many else 'one of'} "
                                     f"{', '.join(map(str, offered)) or 'nothing (none is offered here)'}")
        elif self.type in (int, float):
            upper = self.upper(report)
            if (self.minimum is not None and not value >= self.minimum) or (upper is not None and not value <= upper):
                low = "" if self.minimum is None else f"{self.minimum:g}"
                raise ValueError(f"{self.flag} {value}: must be in {low}..{'' if upper is None else f'{upper:g}'}")
        elif self.type is str and self.upper(report) is not None and len(value) > self.upper(report):
            raise ValueError(f"{self.flag}: {len(value):,} characters; at most {self.upper(report):,.0f}")
        return values if self.many else value


Caption = str | Callable[[Any, Chosen, Any], str]


@dataclass(frozen=True)
class Shown:
    """What a view shows by name — a table or a chart — and how it is built.

    ``build(report, chosen)`` makes it, or returns None when the choices made show none (e.g. no baseline chosen).
    ``needs``: what the data must have for it (:data:`mtdiag.core.needs.NEEDS`). ``uses``: the options ``build`` reads
    (None: every option) — it is given those alone, so a surface that caches it keys the cache on them (a page
    recomputes a table only when an option it reads changes) and a build that reads an option it did not declare fails
    at once. ``inputs``: what ``build`` reads beyond the report and the options — ``tags``, the user's tags
    (:mod:`mtdiag.core.tags`), which the dashboard gives and the command line has none of — given to it among the
    options, keyed apart by a surface that caches it. ``scores_only``: it reads the report's scores and texts alone, no
    human judgement (``EvalSet.human``, ``annotations``, ``rated``): a surface may then key it by the scored report,
    kept while human files and weights change (checked: ``tests/test_app_judgements.py``). ``caption``: what a reader
    should know to read it, as plain text (a page, the report and ``mtdiag view`` escape it) — a text, or a function of
    the report, the options chosen and what was built (counts in a caption are then those of the frame shown).
    ``empty``: why nothing is shown when ``build`` returns None (plain text, or a function of the report and the options
    chosen)."""

    name: str
    title: str
    build: Callable[[Any, Chosen], Any]
    needs: tuple[str, ...] = ()
    uses: tuple[str, ...] | None = None
    inputs: tuple[str, ...] = ()
    scores_only: bool = False
    caption: Caption = ""
    empty: str | Callable[[Any, Chosen], str] = ""

    def __post_init__(self) -> None:
        check_names(self.needs)

    def given(self, chosen: Chosen, inputs: Chosen | None = None) -> dict[str, Any]:
        """The options ``build`` reads, from ``chosen``, and its ``inputs`` (None where not given).

        ``KeyError`` when an option it declared is not chosen."""
        options = dict(chosen) if self.uses is None else {name: chosen[name] for name in self.uses}
        return options | {name: (inputs or {}).get(name, chosen.get(name)) for name in self.inputs}

    def make(self, report, chosen: Chosen, inputs: Chosen | None = None) -> Any:
        """``build`` on ``report`` with the options and inputs it reads (:meth:`given`)."""
        return self.build(report, self.given(chosen, inputs))

    def describe(self, report, chosen: Chosen, built: Any = None) -> str:
        """The caption on ``report`` with ``chosen`` and what was built (plain text; "" when there is none)."""
        return self.caption(report, self.given(chosen), built) if callable(self.caption) else self.caption

    def why_empty(self, report, chosen: Chosen) -> str:
        """Why ``build`` gave nothing on ``report`` with ``chosen`` (plain text).

        A generic sentence when the declaration says nothing."""
        text = self.empty(report, self.given(chosen)) if callable(self.empty) else self.empty
        return text or "Nothing to show with these choices."


@dataclass(frozen=True)
class Table(Shown):
    """A named table of a view (:class:`Shown`): a pandas frame, its segments named by their ids in the set.

    The ids are set by :func:`with_set_ids`: ``build`` names segments by 0-based position (``seg``) and never writes
    ``seg_id``."""

    def make(self, report, chosen: Chosen, inputs: Chosen | None = None) -> pd.DataFrame | None:
        """``build`` on ``report``, its segments named by their ids in the set (:func:`with_set_ids`)."""
        return with_set_ids(report, self.build(report, self.given(chosen, inputs)), f"table {self.name!r}")


@dataclass(frozen=True)
class Chart(Shown):
    """A named chart of a view (:class:`Shown`): a plotly figure of :mod:`mtdiag.views.charts`."""


@dataclass(frozen=True)
class View:
    """One analysis of a report, declared once (see the module docstring).

    ``about``: what the page says under its title, before any choice (plain text; default: ``help``). ``in_report``:
    whether the HTML report has a section of it. ``details``: what the page opens from a selected row, by name —
    functions of the report and the row's keys (the segments an n-gram occurs in, its highlights, two outputs'
    differences) that no table holds; the page calls them through the registry too (the command line and the report
    show tables and charts only). ``notes``: ``(title, text)`` pairs of prose a reader may open beside the tables
    (plain text; the page and the report show them)."""

    name: str
    title: str
    help: str
    options: tuple[ViewOption, ...] = ()
    tables: tuple[Table, ...] = ()
    charts: tuple[Chart, ...] = ()
    needs: tuple[str, ...] = ()
    in_report: bool = True
    about: str = ""
    details: Mapping[str, Callable[..., Any]] = field(default_factory=dict, compare=False)
    notes: tuple[tuple[str, str], ...] = ()

    def __post_init__(self) -> None:
        check_names(self.needs)

    @property
    def introduction(self) -> str:
        """What the view is, as a sentence: ``about``, else ``help`` as a sentence."""
        return self.about or self.help[0].upper() + self.help[1:] + "."

    def option(self, name: str) -> ViewOption:
        """The view's option named ``name``."""
        return next(o for o in self.options if o.name == name)

    def table(self, name: str) -> Table:
        """The view's table named ``name``."""
        return next(t for t in self.tables if t.name == name)

    def chart(self, name: str) -> Chart:
        """The view's chart named ``name``."""
        return next(c for c in self.charts if c.name == name)

    def missing(self, report) -> str | None:
        """Why the view shows nothing on ``report``, else None.

        What the data lacks, or an option with nothing to offer."""
        lacking = missing(report, self.needs)
        if lacking:
            return lacking
        chosen: dict[str, Any] = {}
        for option in self.options:
            if not option.applies(report):
                chosen[option.name] = None
                continue
            if option.choices is not None and not option.many and not option.offered(report, chosen):
                return option.empty or f"offers no {option.label.lower()}"
            chosen[option.name] = option.default_for(report, chosen)
        return None

    def resolve(self, report, given: Chosen | None = None) -> dict[str, Any]:
        """Every option's value on ``report``, in declaration order: ``given`` where given, checked, else the default.

        ``ValueError`` naming the flag of a value not offered."""
        given = given or {}
        unknown = sorted(set(given) - {o.name for o in self.options})
        if unknown:
            raise ValueError(f"view {self.name} has no option {unknown[0]!r}")
        chosen: dict[str, Any] = {}
        for option in self.options:
            chosen[option.name] = option.resolve(report, chosen, given.get(option.name))
        return chosen

    def frames(self, report, chosen: Chosen) -> dict[str, pd.DataFrame]:
        """The named tables the data and the choices allow, in declaration order."""
        out = {}
        for table in self.tables:
            if missing(report, table.needs) is None:
                frame = table.make(report, chosen)
                if frame is not None:
                    out[table.name] = frame
        return out


# ----------------------------------------------------------------------------------------------- common choices


def systems(report, chosen: Chosen) -> list[str]:
    """The report's systems."""
    return list(report.evalset.systems)


SYSTEMS = ViewOption("systems", "Systems", "the systems whose rows are listed", choices=systems, many=True,
                     default=systems)
"""The systems a table lists (every system by default): one option, the same on every page that filters by system."""


def other_system(of: str) -> Callable[[Any, Chosen], list[str]]:
    """The report's systems except the one chosen as option ``of`` (the second of two systems)."""
    return lambda report, chosen: [s for s in report.evalset.systems if s != chosen.get(of)]


def references(report, chosen: Chosen) -> list[str]:
    """The report's references."""
    return list(report.evalset.ref_names)


def first_metric(metrics: Callable[[Any, Chosen], Sequence[str]]) -> Callable[[Any, Chosen], str | None]:
    """A default: :func:`default_metric` among ``metrics``' offer."""
    return lambda report, chosen: default_metric(list(metrics(report, chosen)))


TEST_METHODS = {"bs": "paired bootstrap (1000)", "ar": "approx. randomisation (10000)"}
"""The paired tests a view offers (:mod:`mtdiag.analysis.significance`, default samples), as a person reads them."""

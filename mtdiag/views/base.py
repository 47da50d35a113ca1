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

Two rules every view follows are kept here once: :func:`default_metric` (the metric a view shows first) and
:func:`preview` / :func:`for_table` (what a table cell shows of a long text; :func:`fit_lines` and
:func:`wide_script` for the cells of a table whose rows wrap their text).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

import numpy as np
import pandas as pd

from mtdiag.core.needs import NEEDS, check_names
from mtdiag.core.needs import missing_in as missing

DEFAULT_METRICS = ("chrf", "bleu")
"""The metrics a page shows first, in order of preference: chrF (character n-gram F-score, robust on short and
morphologically rich segments, the WMT metrics task's long-standing baseline), then BLEU."""
TABLE_TEXT = 1000  # characters of a text shown in a table cell; the detail views and the downloads show it whole


def default_metric(metrics: Sequence[str], preferred: Sequence[str] = DEFAULT_METRICS) -> str | None:
    """The first of ``preferred`` among ``metrics`` (default: chrF, else BLEU), else the first of ``metrics``; None
    when there is none."""
    return next((m for m in preferred if m in metrics), metrics[0] if len(metrics) else None)


def preview(texts: pd.Series, width: int = TABLE_TEXT) -> pd.Series:
    """``texts`` with every text longer than ``width`` characters cut there and marked ``…`` (values that are no
    text, such as lists of segments, unchanged): a 10,000-word output must not make a table heavy."""
    long = texts.map(lambda value: isinstance(value, str) and len(value) > width).to_numpy(dtype=bool)
    if not long.any():
        return texts
    return texts.where(~long, texts[long].str.slice(0, width) + "…")


def for_table(frame: pd.DataFrame, width: int = TABLE_TEXT) -> pd.DataFrame:
    """A copy of ``frame`` for a table cell: every text column through :func:`preview`."""
    out = frame.copy()
    for column in out.columns:
        if out[column].dtype == object or pd.api.types.is_string_dtype(out[column]):
            out[column] = preview(out[column], width)
    return out


CELL_FONT_PX = 14.0  # the data grid's text (0.875 rem)
CELL_PADDING_PX = 17.0  # a grid cell's padding, left and right together
NARROW_EM, WIDE_EM = 0.52, 1.0  # the width of a character, in ems: proportional Latin/Cyrillic/…, or wide (CJK)
LINE_MARGIN = 0.95  # of a line's width, what the estimate may fill (character widths vary around the average)
WIDE = re.compile("[\u1100-\u115f\u231a-\u231b\u2e80-\u303e\u3041-\u33ff\u3400-\u4dbf\u4e00-\u9fff"
                  "\ua000-\ua4cf\ua960-\ua97f\uac00-\ud7a3\uf900-\ufaff\ufe10-\ufe19\ufe30-\ufe6f"
                  "\uff00-\uff60\uffe0-\uffe6\U0001f300-\U0001f64f\U0001f900-\U0001f9ff\U00020000-\U0003fffd]")
"""Characters drawn twice as wide as a Latin letter: the East Asian Wide and Fullwidth ranges of Unicode (UAX #11):
Hangul, CJK ideographs and punctuation, kana, full-width forms, most emoji."""


def _texts(values: pd.Series) -> pd.Series:
    return values.map(lambda v: v if isinstance(v, str) else "")


def wide_script(texts: pd.Series) -> np.ndarray:
    """Which texts are written mostly in wide characters (half or more of their characters other than spaces):
    Chinese, Japanese, Korean. A table that wraps text measures these apart from the others (see
    :mod:`mtdiag.ui.widgets`)."""
    text = _texts(texts)
    visible = text.str.len().to_numpy(dtype=float) - text.str.count(r"\s").to_numpy(dtype=float)
    wide = text.str.count(WIDE.pattern).to_numpy(dtype=float)
    return (wide > 0) & (2 * wide >= visible)


def _wrapped_end(text: str, line_em: float, lines: int) -> int:
    """How many characters of ``text`` ``lines`` lines of ``line_em`` ems show, wrapped as the grid wraps them
    (at the last space that fits on the line, else inside the word), with room for ``…`` on the last line."""
    em = np.cumsum([WIDE_EM if WIDE.match(ch) else NARROW_EM for ch in text])
    start = 0
    for line in range(lines):
        room = line_em - (WIDE_EM if line == lines - 1 else 0.0)  # the last line keeps room for "…"
        before = em[start - 1] if start else 0.0
        end = int(np.searchsorted(em, before + room, side="right"))
        if end >= len(text):
            return len(text)
        if line == lines - 1:
            return end
        space = text.rfind(" ", start, end + 1)
        start = space + 1 if space > start else max(end, start + 1)
        while start < len(text) and text[start] == " ":
            start += 1
    return start


def fit_lines(texts: pd.Series, width_px: float, lines: int) -> pd.Series:
    """``texts`` cut, with ``…``, to what ``lines`` wrapped lines of a table cell ``width_px`` wide show — so a row
    shows its text whole or says it goes on, never a line cut in half by the row's border. Widths are estimated
    per character (:data:`NARROW_EM`, :data:`WIDE_EM`) and lines broken as the grid breaks them; values that are no
    text are unchanged. The full text stays in the frame behind the table."""
    line_em = (width_px - CELL_PADDING_PX) / CELL_FONT_PX * LINE_MARGIN
    text = _texts(texts)
    chars = text.str.len().to_numpy(dtype=float)
    wide = text.str.count(WIDE.pattern).to_numpy(dtype=float)
    maybe = NARROW_EM * (chars - wide) + WIDE_EM * wide > (lines - 1) * line_em  # could need more than it has
    out = texts.copy()
    for i in np.flatnonzero(maybe):
        value = texts.iat[i][:int(lines * line_em / NARROW_EM) + 2]  # no more characters than could ever fit
        end = _wrapped_end(value, line_em, lines)
        if end < len(texts.iat[i]):
            out.iat[i] = value[:end].rstrip() + "…"
    return out


# ----------------------------------------------------------------------------------------------- segment ids


def with_set_ids(report, frame: pd.DataFrame | None) -> pd.DataFrame | None:
    """``frame`` as people read it: every segment named by its id in the set (:attr:`mtdiag.core.evalset.EvalSet.seg_ids`:
    the line of the files; in a slice, the segment's id in the whole set — never its place in the slice).

    A view's builders name segments by position in the report: ``seg`` (0-based, a column or an index level),
    ``seg_id`` (1-based), ``segments`` (a list of 0-based positions in each cell) and ``missed_in`` (0-based
    positions joined by ``", "``). Each becomes the set's ids, ``seg`` under the name ``seg_id``. Every table of
    every view passes here (:meth:`Table.make`), so the page, ``mtdiag view``, the report and the downloads name a
    segment alike; :func:`positions` turns an id a page reads back into its position."""
    if frame is None:
        return None
    ids = report.evalset.seg_ids
    columns = set(frame.columns)
    if not columns & {"seg", "seg_id", "segments", "missed_in"} and "seg" not in frame.index.names:
        return frame
    out = frame.copy()
    if "seg_id" in columns:
        out["seg_id"] = ids[out["seg_id"].to_numpy(dtype=np.int64) - 1]
    if "seg" in columns:
        out["seg"] = ids[out["seg"].to_numpy(dtype=np.int64)]
        out = out.rename(columns={"seg": "seg_id"})
    if "segments" in columns and out["segments"].map(lambda v: isinstance(v, (list, tuple, np.ndarray))).all():
        out["segments"] = out["segments"].map(lambda segs: [int(ids[int(s)]) for s in segs])
    if "missed_in" in columns:
        out["missed_in"] = out["missed_in"].map(
            lambda v: ", ".join(str(ids[int(s)]) for s in str(v).split(", ") if s.strip()) if v else v)
    if "seg" in out.index.names:
        if out.index.nlevels == 1:
            out.index = pd.Index(ids[out.index.to_numpy(dtype=np.int64)], name="seg_id")
        else:
            level = out.index.names.index("seg")
            out.index = out.index.set_levels(ids[out.index.levels[level].to_numpy(dtype=np.int64)], level=level)
            out = out.rename_axis(index={"seg": "seg_id"})
    return out


def positions(report, seg_ids) -> np.ndarray:
    """The 0-based positions in ``report`` of segments named by their ids in the set (:func:`with_set_ids`);
    ``ValueError`` for an id the report does not have."""
    wanted = np.asarray(seg_ids, dtype=np.int64).reshape(-1)
    found = pd.Index(report.evalset.seg_ids).get_indexer(wanted)
    if (found < 0).any():
        raise ValueError(f"segment {int(wanted[found < 0][0])} is not in this data")
    return found


def position(report, seg_id: int) -> int:
    """The 0-based position of the segment with id ``seg_id`` (:func:`positions`)."""
    return int(positions(report, [seg_id])[0])


# ----------------------------------------------------------------------------------------------- what data has


def has_human_scores(report) -> bool:
    """True when the data has human scores for at least one of the report's systems (:data:`mtdiag.core.needs.NEEDS`)."""
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
    """One choice a view takes, declared once: the dashboard draws a widget from it (``label``, ``help``, the
    choices read as ``describe`` says), ``mtdiag view NAME`` a flag (``--NAME``, underscores as hyphens), and both
    start from :meth:`default_for`.

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
        """The value a view starts from: the declared default (a function of the report and the options chosen
        before it, or a value), the first choice when it declares none; for ``many``, the defaults offered."""
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

    def reads(self, value: Any) -> str:
        """How a value reads for a person (a widget's choices)."""
        if self.describe is None:
            return str(value)
        return self.describe(value) if callable(self.describe) else self.describe.get(value, str(value))

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
        """``value`` checked against what ``report`` offers (the default when None); ``ValueError`` naming the
        flag and the choices otherwise."""
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
    """What a view shows by name — a table or a chart: ``build(report, chosen)`` makes it, or returns None when the
    choices made show none (e.g. no baseline chosen). ``needs``: what the data must have for it
    (:data:`mtdiag.core.needs.NEEDS`).
    ``uses``: the options ``build`` reads (None: every option) — it is given those alone, so a surface that caches
    it keys the cache on them (a page recomputes a table only when an option it reads changes) and a build that
    reads an option it did not declare fails at once. ``inputs``: what ``build`` reads beyond the report and the
    options — ``tags``, the user's tags (:mod:`mtdiag.core.tags`), which the dashboard gives and the command line
    has none of — given to it among the options, keyed apart by a surface that caches it. ``scores_only``: it reads
    the report's scores and texts alone, no human judgement (``EvalSet.human``, ``annotations``, ``rated``): a
    surface may then key it by the scored report, kept while human files and weights change (checked:
    ``tests/test_app_judgements.py``). ``caption``: what a reader should know to read it, as plain
    text (a page, the report and ``mtdiag view`` escape it) — a text, or a function of the report, the options
    chosen and what was built (counts in a caption are then those of the frame shown). ``empty``: why nothing is
    shown when ``build`` returns None (plain text, or a function of the report and the options chosen)."""

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
        """The options ``build`` reads, from ``chosen`` (``KeyError`` when one it declared is not chosen), and its
        ``inputs`` (None where not given)."""
        options = dict(chosen) if self.uses is None else {name: chosen[name] for name in self.uses}
        return options | {name: (inputs or {}).get(name, chosen.get(name)) for name in self.inputs}

    def make(self, report, chosen: Chosen, inputs: Chosen | None = None) -> Any:
        """``build`` on ``report`` with the options and inputs it reads (:meth:`given`)."""
        return self.build(report, self.given(chosen, inputs))

    def describe(self, report, chosen: Chosen, built: Any = None) -> str:
        """The caption on ``report`` with ``chosen`` and what was built (plain text; "" when there is none)."""
        return self.caption(report, self.given(chosen), built) if callable(self.caption) else self.caption

    def why_empty(self, report, chosen: Chosen) -> str:
        """Why ``build`` gave nothing on ``report`` with ``chosen`` (plain text; a generic sentence when the
        declaration says nothing)."""
        text = self.empty(report, self.given(chosen)) if callable(self.empty) else self.empty
        return text or "Nothing to show with these choices."


@dataclass(frozen=True)
class Table(Shown):
    """A named table of a view (:class:`Shown`): a pandas frame, its segments named by their ids in the set
    (:func:`with_set_ids`)."""

    def make(self, report, chosen: Chosen, inputs: Chosen | None = None) -> pd.DataFrame | None:
        return with_set_ids(report, self.build(report, self.given(chosen, inputs)))


@dataclass(frozen=True)
class Chart(Shown):
    """A named chart of a view (:class:`Shown`): a plotly figure of :mod:`mtdiag.views.charts`."""


@dataclass(frozen=True)
class View:
    """One analysis of a report (see the module docstring). ``about``: what the page says under its title, before any
    choice (plain text; default: ``help``). ``in_report``: whether the HTML report has a section of it.
    ``details``: what the page opens from a selected row, by name — functions of the report and the row's keys (the
    segments an n-gram occurs in, its highlights, two outputs' differences) that no table holds; the page calls
    them through the registry too (the command line and the report show tables and charts only). ``notes``:
    ``(title, text)`` pairs of prose a reader may open beside the tables (plain text; the page and the report
    show them)."""

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
        return next(o for o in self.options if o.name == name)

    def table(self, name: str) -> Table:
        return next(t for t in self.tables if t.name == name)

    def chart(self, name: str) -> Chart:
        return next(c for c in self.charts if c.name == name)

    def missing(self, report) -> str | None:
        """Why the view shows nothing on ``report`` (what the data lacks, or an option with nothing to offer), else
        None."""
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
        """Every option's value on ``report``, in declaration order: ``given`` where given, checked, else the
        default (``ValueError`` naming the flag of a value not offered)."""
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

    def figures(self, report, chosen: Chosen) -> dict[str, Any]:
        """The named charts the data and the choices allow, in declaration order."""
        out = {}
        for chart in self.charts:
            if missing(report, chart.needs) is None:
                figure = chart.make(report, chosen)
                if figure is not None:
                    out[chart.name] = figure
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

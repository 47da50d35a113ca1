"""How human error rows become a segment score: the weighting schemes of MQM/ESA error annotations
(:class:`ErrorWeights`), the one scoring function every reader of error rows uses (:func:`segment_scores`), and a
user's own weights file (:func:`read_error_weights`). The rules of every scheme, each with its source, are the
table of ``docs/inputs.md`` ("Error weights").

A scheme is a list of rules ``(severity, category, weight)``. A row's weight is that of the **most specific**
rule that matches it — the longest category path first, then a named severity before "any severity" — as
google-research/mt-metrics-eval's ``score_mqm.py`` chooses ("the most specific match is applied to each error").
Categories match by path prefix (``Fluency`` covers ``Fluency/Punctuation``); category levels and severities are
compared case-insensitively on their letters and digits only, so ``Non-translation!``, ``Non-translation`` and
``non translation`` are one category. A row no rule matches is an error of the file (a severity the scheme does
not know), never a silent zero.

A segment's score is minus the sum of a rater's weights, averaged over the raters who rated the output — as the
``mqm.seg.tsv`` files of Google's WMT MQM releases report it (``tests/test_error_weights.py`` checks every rated
output of every dev set that has both files).

Schemes (:data:`SCHEMES`):

- ``wmt`` (default) — the segment scores Google's WMT MQM releases publish (google/wmt-mqm-human-evaluation):
  Freitag et al. (2021, "Experts, Errors, and Context", §3.3 and the release README) — major 5, minor 1, a minor
  Fluency/Punctuation error 0.1, Non-translation 25, neutral 0 — and the rules its later releases apply (Marot's
  default weights, google-research/google-research ``marot/marot.js``): a *Source issue* (the source's fault, not
  the translation's) and an *Accuracy/Creative Reinterpretation* (a change that keeps the source's intent) weigh
  0, a *trivial* error 0.1; rater attention checks (severity ``HOTW-test``) weigh 0; a critical error 25 (MQM's
  scoring model; Google's templates have no critical severity). The WMT20–21 releases name a source problem
  *Source error* and their published scores weigh it by its severity: no rule changes that.
- ``esa`` — severity only: minor 1, major 5, critical 25, neutral 0, whatever the category; for error spans that
  carry a severity and no category (ESA, Kocmi et al. 2024), or to count every error alike.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd

from mtdiag.core.errors import InputError
from mtdiag.core.evalset import EvalSet
from mtdiag.io.parsing import parse_table
from mtdiag.io.ratings import SPAN_COLUMNS
from mtdiag.io.text import DEFAULT_LIMITS, Limits, Source, quote, quote_names

ANY = "*"
WEIGHTS_COLUMNS = ("severity", "category", "weight")
MAX_RULES = 10_000
"""The most rules a weights file may hold (the schemes hold a dozen): a longer file is refused on its line count,
before anything of it is parsed."""
MAX_WEIGHT = 1_000_000.0
"""The largest weight a rule may give (the schemes' largest is 25): any sum of weights of the rows a file may hold
stays a finite number (weights near the largest float, 1.7e308, summed to minus infinity)."""
_NOT_A_LETTER = re.compile(r"[\W_]+")


def normal_name(text: str) -> str:
    """A severity or one category level as the rules compare it: case-folded, letters and digits only."""
    return _NOT_A_LETTER.sub("", str(text).casefold())


def category_levels(category: str) -> Iterator[str]:
    """A category's levels as the rules compare them, one at a time.

    Split at ``/``, normalised, empty levels left out (``Source error/-`` is ``sourceerror`` alone); a walk down the
    rules stops reading at the first level no rule has."""
    for level in str(category).split("/"):
        name = normal_name(level)
        if name:
            yield name


def category_path(category: str) -> tuple[str, ...]:
    """A category as the rules compare it: its levels (:func:`category_levels`)."""
    return tuple(category_levels(category))


@dataclass(frozen=True)
class WeightRule:
    """One rule of a weighting scheme: the weight of the rows of one severity under one category.

    Rows of ``severity`` (``*``: any) whose category lies under ``category`` (``*``: any) weigh ``weight``; ``source``
    says where the rule comes from."""

    severity: str
    category: str
    weight: float
    source: str = ""

    @property
    def key(self) -> tuple[str, tuple[str, ...]]:
        """(normalised severity or ``*``, category path; empty for any)."""
        severity = ANY if self.severity.strip() in ("", ANY) else normal_name(self.severity)
        category = () if self.category.strip() in ("", ANY) else category_path(self.category)
        return severity, category


class _Node:
    """One category level of a scheme's rules: the weight per severity (``*``: any) of the rules that end here, and
    the deeper levels."""

    __slots__ = ("weights", "children")

    def __init__(self) -> None:
        self.weights: dict[str, float] = {}
        self.children: dict[str, _Node] = {}


@dataclass(frozen=True)
class ErrorWeights:
    """A weighting scheme: its ``name``, one sentence on what it is (``about``) and its rules.

    The rules are kept as a tree of category levels (built once): a row's weight is found by walking its
    category's levels down that tree — work in the row's levels, whatever the number of rules."""

    name: str
    about: str
    rules: tuple[WeightRule, ...]
    _tree: _Node = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        tree = _Node()
        for rule in self.rules:
            severity, path = rule.key
            node = tree
            for level in path:
                node = node.children.setdefault(level, _Node())
            if severity in node.weights:
                raise ValueError(f"scheme {self.name!r}: two rules for the same severity and category")
            node.weights[severity] = rule.weight
        object.__setattr__(self, "_tree", tree)

    def weight(self, category: str, severity: str) -> float:
        """The weight of one row: the most specific matching rule's (module docstring).

        The most specific rule is the one at the deepest category level with a rule for the row's severity or for any
        severity, a named severity first. A ``ValueError`` when no rule matches."""
        severity_key, node = normal_name(severity), self._tree
        found = node.weights.get(severity_key, node.weights.get(ANY))
        for level in category_levels(category):
            node = node.children.get(level)
            if node is None:
                break
            here = node.weights.get(severity_key, node.weights.get(ANY))
            found = found if here is None else here
        if found is None:
            known = sorted({r.severity for r in self.rules if r.severity.strip() not in ("", ANY)})
            raise ValueError(f"severity {quote(severity)} (category {quote(category)}) has no weight in the "
                             f"{self.name} weights; they weigh the severities {quote_names(known)}")
        return found

    def weights(self, categories, severities) -> np.ndarray:
        """:meth:`weight` of every row, each distinct (category, severity) looked up once."""
        codes, distinct, _ = distinct_pairs(categories, severities)
        looked_up = np.array([self.weight(c, s) for c, s in distinct], dtype=np.float64)
        return looked_up[codes] if len(codes) else np.zeros(0)

    def table(self) -> pd.DataFrame:
        """The rules as a frame ``severity, category, weight, source`` (for the docs and the dashboard)."""
        return pd.DataFrame([(r.severity or ANY, r.category or ANY, r.weight, r.source) for r in self.rules],
                            columns=[*WEIGHTS_COLUMNS, "source"])


def distinct_pairs(categories, severities) -> tuple[np.ndarray, list[tuple[str, str]], np.ndarray]:
    """The distinct (category, severity) pairs of the rows, and which one each row has.

    Returns (the code of each row's (category, severity), the distinct pairs, the first row of each): the rows' texts
    factorised column by column (a multi-index of strings costs several times more)."""
    category_codes, category_names = pd.factorize(np.asarray(categories, dtype=object).astype(str))
    severity_codes, severity_names = pd.factorize(np.asarray(severities, dtype=object).astype(str))
    pair = category_codes.astype(np.int64) * max(len(severity_names), 1) + severity_codes
    distinct, first, codes = np.unique(pair, return_index=True, return_inverse=True)
    names = [(category_names[p // max(len(severity_names), 1)], severity_names[p % max(len(severity_names), 1)])
             for p in distinct.tolist()]
    return codes.reshape(-1), names, first


_FREITAG = "Freitag et al. 2021 (TACL), §3.3; wmt-mqm-human-evaluation README"
_MAROT = "Marot's default weights (google-research marot/marot.js), WMT22+ releases"
WMT = ErrorWeights("wmt", "the segment scores of Google's WMT MQM releases (google/wmt-mqm-human-evaluation)", (
    WeightRule("major", ANY, 5.0, _FREITAG),
    WeightRule("minor", ANY, 1.0, _FREITAG),
    WeightRule("neutral", ANY, 0.0, _FREITAG + " (score_mqm.py: Neutral 0)"),
    WeightRule("minor", "Fluency/Punctuation", 0.1, _FREITAG),
    WeightRule(ANY, "Non-translation", 25.0, _FREITAG + " (a singleton category: five major errors)"),
    WeightRule(ANY, "No-error", 0.0, "the releases' marker of an output rated clean"),
    WeightRule("no-error", ANY, 0.0, "the releases' marker of an output rated clean"),
    WeightRule(ANY, "Source issue", 0.0, _MAROT + " ('Source': the source's fault, not the translation's)"),
    WeightRule(ANY, "Accuracy/Creative Reinterpretation", 0.0,
               _MAROT + " ('Creative': the source's intent is kept)"),
    WeightRule("trivial", ANY, 0.1, _MAROT + " ('Trivial')"),
    WeightRule("HOTW-test", ANY, 0.0, "WMT23 releases: rater attention checks (Found/Missed), no error"),
    WeightRule("critical", ANY, 25.0, "MQM scoring model (Lommel et al. 2024); Google's templates have none"),
))
ESA = ErrorWeights("esa", "severity only, whatever the category (ESA-style spans, Kocmi et al. 2024)", (
    WeightRule("major", ANY, 5.0, "MQM's major weight (Freitag et al. 2021)"),
    WeightRule("minor", ANY, 1.0, "MQM's minor weight (Freitag et al. 2021)"),
    WeightRule("critical", ANY, 25.0, "MQM scoring model (Lommel et al. 2024)"),
    WeightRule("neutral", ANY, 0.0, "no error"),
    WeightRule("no-error", ANY, 0.0, "no error"),
    WeightRule(ANY, "No-error", 0.0, "no error"),
))
SCHEMES = {scheme.name: scheme for scheme in (WMT, ESA)}
DEFAULT_WEIGHTS = WMT


def segment_scores(errors: pd.DataFrame, weights: ErrorWeights = DEFAULT_WEIGHTS) -> pd.DataFrame:
    """Human segment scores from error rows: per (system, segment), minus the rater-averaged sum of weights.

    ``errors`` holds one row per annotation row — ``system``, ``seg`` (0-based), ``rater``, ``category``, ``severity``,
    rows that mark an output clean included (they make it rated) — and optionally a ``weight`` column already computed
    by :meth:`ErrorWeights.weights` (else it is). Per (system, segment): minus the sum of each rater's weights, averaged
    over its raters. Columns ``seg, system, score``, sorted by system and segment."""
    if not len(errors):
        return pd.DataFrame({"seg": pd.Series(dtype="int64"), "system": pd.Series(dtype=object),
                             "score": pd.Series(dtype="float64")})
    weight = errors["weight"] if "weight" in errors else weights.weights(errors["category"], errors["severity"])
    frame = pd.DataFrame({"system": errors["system"].to_numpy(), "seg": errors["seg"].to_numpy(dtype=np.int64),
                          "rater": errors["rater"].astype(str).to_numpy(), "weight": np.asarray(weight, float)})
    per_rater = frame.groupby(["system", "seg", "rater"], sort=False)["weight"].sum()
    score = -per_rater.groupby(level=["system", "seg"], sort=False).mean() + 0.0
    scores = score.rename("score").reset_index()[["seg", "system", "score"]]
    return scores.sort_values(["system", "seg"], ignore_index=True)


def row_weights(rows: pd.DataFrame, weights: ErrorWeights = DEFAULT_WEIGHTS) -> np.ndarray:
    """The weight of every error row (:data:`mtdiag.io.ratings.ERROR_COLUMNS`) under ``weights``.

    Each distinct (category, severity) is looked up once; a row with an empty severity (a rating without an error)
    weighs 0. A row the scheme has no weight for is an :class:`InputError` naming its file and line (its first such
    row)."""
    out = np.zeros(len(rows))
    marked = np.flatnonzero(rows["severity"].to_numpy(dtype=object) != "")
    if not len(marked):
        return out
    codes, distinct, first = distinct_pairs(rows["category"].to_numpy(dtype=object)[marked],
                                            rows["severity"].to_numpy(dtype=object)[marked])
    order = np.argsort(first, kind="stable")  # looked up in file order: the error names the first such row
    looked_up = np.empty(len(distinct))
    for k in order.tolist():
        try:
            looked_up[k] = weights.weight(*distinct[k])
        except ValueError as exc:
            at = marked[first[k]]
            line = int(rows["line"].iat[at])
            raise InputError(str(rows["file"].iat[at]), str(exc), line if line > 0 else None) from None
    out[marked] = looked_up[codes]
    return out


def spans_of(rows: pd.DataFrame, weight: np.ndarray) -> pd.DataFrame:
    """The error spans (:data:`mtdiag.io.ratings.SPAN_COLUMNS`) of the error rows that weigh more than 0."""
    kept = weight > 0
    return rows.loc[kept, SPAN_COLUMNS[:-1]].assign(weight=weight[kept]).reset_index(drop=True)


def weighed(evalset: EvalSet, weights: ErrorWeights = DEFAULT_WEIGHTS) -> EvalSet:
    """``evalset`` with its error rows (``EvalSet.error_rows``, as read) weighed under ``weights``.

    The rows that weigh more than 0 become its error spans (``EvalSet.annotations``, each with its weight), and where
    the set has no human scores given, the scores its scored rows give become them (:func:`segment_scores`). The weighed
    set keeps no rows (weigh the set as read again for another scheme); a set without rows is returned as it is. Work
    linear in the rows: a scheme switch re-weighs, nothing is read or scored again."""
    rows = evalset.error_rows
    if rows is None:
        return evalset
    weight = row_weights(rows, weights)
    human = evalset.human
    if human is None or not len(human):
        scored = rows["scored"].to_numpy(dtype=bool)
        derived = segment_scores(rows[scored].assign(weight=weight[scored]))
        human = derived if len(derived) else None
    return replace(evalset, human=human, annotations=spans_of(rows, weight), error_rows=None)


def read_error_weights(source: Source, name: str | None = None, *, limits: Limits = DEFAULT_LIMITS) -> ErrorWeights:
    """A user's weighting scheme from a TSV/CSV/JSONL table of ``severity``, ``category`` and ``weight``.

    One rule per row (at most :data:`MAX_RULES`), ``*`` or an empty cell for any severity or category, a weight a number
    from 0 to :data:`MAX_WEIGHT`. The scheme is named after the file."""
    rule_limit = f"a weights file holds at most {MAX_RULES:,} rules, one a line after its header"
    table = parse_table(source, name, None, replace(limits, max_rows=min(limits.max_rows, MAX_RULES + 1),
                                                    how_to_raise=(("max_rows", rule_limit),)))
    lowered = [h.strip().lower() for h in table.header]
    missing = [c for c in WEIGHTS_COLUMNS if c not in lowered]
    if missing:
        raise InputError(table.name, f"missing column {missing[0]}; found columns {quote_names(table.header)}; "
                                     "expected severity, category, weight (one rule per row, * for any)", 1)
    at = {c: lowered.index(c) for c in WEIGHTS_COLUMNS}
    rules, seen = [], {}
    for row, line in zip(table.rows, table.lines):
        raw = row[at["weight"]].strip()
        try:
            weight = float(raw)
        except ValueError:
            raise InputError(table.name, f"weight {quote(raw)} is not a number", line) from None
        if not 0 <= weight <= MAX_WEIGHT:  # NaN and infinities too
            raise InputError(table.name, f"weight {quote(raw)} must be a finite number of at least 0 and at most "
                                         f"{MAX_WEIGHT:,.0f}", line)
        rule = WeightRule(row[at["severity"]].strip() or ANY, row[at["category"]].strip() or ANY, weight,
                          f"{table.name} line {line}")
        if rule.key in seen:
            raise InputError(table.name, f"a second rule for severity {quote(rule.severity)} and category "
                                         f"{quote(rule.category)} (the first is on line {seen[rule.key]})", line)
        seen[rule.key] = line
        rules.append(rule)
    return ErrorWeights(table.name, f"the weights of {table.name}", tuple(rules))


def error_weights(spec: str | ErrorWeights | None, *, limits: Limits = DEFAULT_LIMITS) -> ErrorWeights:
    """A scheme by name (:data:`SCHEMES`), a weights file's path, or the scheme itself; None: the default."""
    if spec is None:
        return DEFAULT_WEIGHTS
    if isinstance(spec, ErrorWeights):
        return spec
    if spec in SCHEMES:
        return SCHEMES[spec]
    return read_error_weights(spec, limits=limits)

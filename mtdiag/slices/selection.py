"""An expression evaluated on a report: the boolean mask of the segments it selects (:func:`segment_mask`).

Semantics (``docs/slices.md``):

- numbers compare with numbers (``<``, ``<=``, ``>``, ``>=``, ``==``, ``!=``), fields with values or with each
  other (``chrf[A] < chrf[B]``); a missing number satisfies no comparison;
- ``has`` reads as it is said: ``errors[A] has "Fluency"`` holds where the pair has an error of that category or
  one under it (``Fluency/Grammar``; the categories are compared whole, case ignored), ``hyp[A] has "COVID"``
  where the text contains those characters (case ignored, no pattern); ``not has`` is its negation;
- texts compare with texts by ``==``/``!=`` (exact, case kept) and ``in``; ``~`` searches a text for a regular
  expression given as a quoted string (RE2 syntax, case-insensitive, as the dashboard's search:
  :func:`mtdiag.core.search.text_matches`), with one time budget for every search of the expression together;
- a flag stands alone as a condition (``repetition[A]``) or compares with ``true``/``false``;
- a negated operator (``!=``, ``!~``, ``not in``) is exactly ``not`` of its positive one, so with several
  references ``ref !~ "x"`` holds where no reference matches;
- ``and``, ``or``, ``not`` and parentheses combine conditions.
"""

from __future__ import annotations

import time

import numpy as np
import pandas as pd

from mtdiag.core.search import SEARCH_SECONDS, text_matches
from mtdiag.slices.expression import (NEGATED, Comparison, Containment, ExpressionError, Field, Literal, Logical,
                                      Membership, Node, Not, Truth, fields_of, parse)
from mtdiag.slices.catalogue import FLAG, LISTS, NUMBER, TEXT, Column, column, resolve

_ORDER = {"<": np.less, "<=": np.less_equal, ">": np.greater, ">=": np.greater_equal}


def check(expression: str, evalset, metrics) -> Node:
    """The parsed expression, after checking that every field it reads exists for ``evalset`` scored with ``metrics``.

    Nothing is read or computed (the command line checks before it scores)."""
    tree = parse(expression)
    for field in fields_of(tree):
        resolve(field, evalset, metrics)
    return tree


def segment_mask(report, expression: str, tags=None) -> np.ndarray:
    """Which segments of ``report`` the expression selects: a boolean array, one value per segment.

    ``tags``: the user's tags, which ``tag`` reads; none when None. :class:`~mtdiag.slices.expression.ExpressionError`
    (one line, with the column) when the expression cannot be read."""
    tree = check(expression, report.evalset, report.metrics)
    return _Evaluation(report, tags).mask(tree)


def _literal_kind(literal: Literal) -> str:
    value = literal.value
    return FLAG if isinstance(value, bool) else TEXT if isinstance(value, str) else NUMBER


_KIND_WORDS = {NUMBER: "a number", TEXT: "text", FLAG: "a flag (true/false)"}


class _Evaluation:
    def __init__(self, report, tags=None):
        self.report = report
        self.tags = tags
        self.n = report.evalset.n_segments
        self.deadline = time.monotonic() + SEARCH_SECONDS

    def mask(self, node: Node) -> np.ndarray:
        if isinstance(node, Logical):
            parts = [self.mask(operand) for operand in node.operands]
            return np.logical_and.reduce(parts) if node.op == "and" else np.logical_or.reduce(parts)
        if isinstance(node, Not):
            return ~self.mask(node.operand)
        if isinstance(node, Truth):
            col = column(self.report, node.field, self.tags)
            if col.kind != FLAG:
                example = "< 40" if col.kind == NUMBER else '== "…"'
                raise ExpressionError(f"{col.written} is {_KIND_WORDS[col.kind]}, not a condition", node.column,
                                      f"compare it, e.g. {col.written} {example}")
            return self._any(col, lambda values: values.astype(bool))
        if isinstance(node, Membership):
            return self.membership(node)
        if isinstance(node, Containment):
            return self.containment(node)
        return self.comparison(node)

    def _any(self, col: Column, test) -> np.ndarray:
        return self._segments(np.asarray(test(col.values), dtype=bool), col.owner)

    def _segments(self, hits: np.ndarray, owner: np.ndarray | None) -> np.ndarray:
        """Per segment, whether any of its values is a hit (``owner``: the segment of each value; None: one each)."""
        if owner is None:
            return hits
        out = np.zeros(self.n, dtype=bool)
        out[owner[hits]] = True
        return out

    def operand(self, side: Field | Literal):
        return column(self.report, side, self.tags) if isinstance(side, Field) else side

    def comparison(self, node: Comparison) -> np.ndarray:
        op = NEGATED.get(node.op, node.op)
        left, right = self.operand(node.left), self.operand(node.right)
        if op == "~":
            selected = self.search(node, left, right)
        else:
            selected = self.compare(node, op, left, right)
        return ~selected if node.op in NEGATED else selected

    def search(self, node: Comparison, left, right) -> np.ndarray:
        if not isinstance(left, Column) or left.kind != TEXT or not isinstance(right, Literal) \
                or not isinstance(right.value, str):
            raise ExpressionError(f"{node.op} matches a text field with a quoted pattern", node.column,
                                  'e.g. hyp[SYSTEM] ~ "\\d+ %"')
        remaining = self.deadline - time.monotonic()
        if remaining <= 0:
            raise ExpressionError("the searches take too long", node.column, "simplify the patterns")
        try:
            return self._any(left, lambda values: text_matches(right.value, values.tolist(), budget=remaining))
        except ValueError as exc:
            raise ExpressionError(str(exc), right.column) from None

    def compare(self, node: Comparison, op: str, left, right) -> np.ndarray:
        kinds = [side.kind if isinstance(side, Column) else _literal_kind(side) for side in (left, right)]
        if kinds[0] != kinds[1]:
            named = next(side for side in (left, right) if isinstance(side, Column))
            other = kinds[1] if named is left else kinds[0]
            raise ExpressionError(f"{named.written} is {_KIND_WORDS[named.kind]} and cannot be compared with "
                                  f"{_KIND_WORDS[other]}", node.column)
        if op in _ORDER and kinds[0] != NUMBER:
            raise ExpressionError(f"{op} compares numbers; {_KIND_WORDS[kinds[0]]} compares with == or !=",
                                  node.column)
        compute = _ORDER.get(op, np.equal)
        if not isinstance(right, Column):
            return self._any(left, lambda values: compute(values, right.value))
        if not isinstance(left, Column):
            return self._any(right, lambda values: compute(left.value, values))
        if left.owner is None and right.owner is None:
            return np.asarray(compute(left.values, right.values), dtype=bool)
        # a field with several values per segment is text, so this is == (!= is its negation): a segment holds
        # where a left value equals a right value of the same segment — one set lookup, linear in the values
        every = np.arange(self.n)
        left_owner = every if left.owner is None else left.owner
        right_owner = every if right.owner is None else right.owner
        found = pd.MultiIndex.from_arrays([left_owner, left.values]).isin(
            pd.MultiIndex.from_arrays([right_owner, right.values]))
        return self._segments(found, left_owner)

    def membership(self, node: Membership) -> np.ndarray:
        col = column(self.report, node.field, self.tags)
        for literal in node.values:
            if _literal_kind(literal) != col.kind:
                raise ExpressionError(f"{col.written} is {_KIND_WORDS[col.kind]}, and this value is "
                                      f"{_KIND_WORDS[_literal_kind(literal)]}", literal.column)
        wanted = [literal.value for literal in node.values]
        selected = self._any(col, lambda values: np.isin(values, np.asarray(wanted, dtype=values.dtype)))
        return ~selected if node.negated else selected

    def containment(self, node: Containment) -> np.ndarray:
        col = column(self.report, node.field, self.tags)
        if col.kind != TEXT:
            raise ExpressionError(f"has looks into text; {col.written} is {_KIND_WORDS[col.kind]}", node.column)
        wanted = str(node.value.value).casefold()
        separator = LISTS.get(node.field.name)
        if separator is None:
            test = lambda values: [wanted in str(v).casefold() for v in values]  # noqa: E731
        else:
            under = wanted + "/"
            test = lambda values: [any(item == wanted or item.startswith(under)  # noqa: E731
                                       for item in str(v).casefold().split(separator)) for v in values]
        selected = self._any(col, test)
        return ~selected if node.negated else selected

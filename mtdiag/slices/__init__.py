"""Slices: the segments an expression selects, and a report recomputed on them (``docs/slices.md``).

The entry points, for the command line and the dashboard alike:

- :func:`fields` — every field an expression may read on a report, with its kind and description (a field picker);
- :func:`segment_mask` — an expression evaluated into a boolean mask over the report's segments; every problem is
  an :class:`ExpressionError`, one line naming the column;
- :func:`slice_report` / :func:`where` — the report of a slice, from the statistics already computed;
- :func:`find_slices` — the slices where the gap between two systems departs from the rest of the set (or, as an
  option, where they differ at all), each given as the expression that defines it.
"""

from mtdiag.slices.expression import ExpressionError, parse
from mtdiag.slices.catalogue import FieldInfo, field_catalogue
from mtdiag.analysis.significance import CORRECTIONS
from mtdiag.slices.finder import find_slices
from mtdiag.slices.selection import check, segment_mask
from mtdiag.slices.subset import slice_report, where


def fields(report) -> list[FieldInfo]:
    """Every field an expression may read on ``report`` (:func:`mtdiag.slices.catalogue.field_catalogue`)."""
    return field_catalogue(report.evalset, report.metrics)


__all__ = ["CORRECTIONS", "ExpressionError", "FieldInfo", "check", "fields", "find_slices", "parse", "segment_mask",
           "slice_report", "where"]

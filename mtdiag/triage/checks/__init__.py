"""Triage checks: explainable flags of one output against its source, its references and the rest of the test set
(method and measured lifts in ``docs/triage.md``).

Every check is one module of this package with one :class:`~mtdiag.triage.checks.base.Check` subclass, listed once in
:data:`REGISTRY`; the queue (:mod:`mtdiag.triage.ranking`), the Segments page, the HTML report, the exports and
``benchmarks/triage_vs_human.py`` discover them here. A check computes one boolean per (system, segment) pair for
all pairs at once (pandas merges and group-bys over token ids, vectorised regular expressions — no loop over
pairs) and explains one pair with sentences and marks in the output. Adding a check = one module + its name in
:data:`MODULES` (or :func:`register` at run time; :class:`mtdiag.core.registry.Registry`: a taken name is refused).

Thresholds are relative to the test set being looked at (the worst 10 %, a robust z-score, the set's median
length ratio) or structural (a number present or not), never constants fitted to one dev set.

A *critical* check (``empty``, ``truncated``, ``flood``, ``repetition``, ``wrong_language``, ``source_copy``,
``llm_artefact``) marks a plainly broken output: such a pair leads the queue whatever its problem score. The
translator's QA checks (``wrong_language``, ``mixed_language``, ``source_copy``, ``llm_artefact``,
``markup_mismatch``, ``unbalanced``, ``inconsistent``) and ``number_mismatch`` and ``untranslated`` need no
reference: they read the source, the outputs and the set's language pair. An *on-request* check (``mt_only_ngram``;
``word_order``, which describes the output's order and, measured, finds no word-order errors) is computed only
when asked for, with its options: ``requested={"mt_only_ngram": {"order": 2}}``.
"""

from __future__ import annotations

from inspect import isabstract
from types import ModuleType
from typing import Any, Mapping

import numpy as np
import pandas as pd

from mtdiag.core.registry import Registry
from mtdiag.triage.checks.base import Check, Finding
from mtdiag.triage.checks.suspect_reference import reference_at_fault
from mtdiag.metrics import EvidenceTable, SegmentEvidence

MODULES = (
    "broken",
    "repetition",
    "wrong_language",
    "source_copy",
    "llm_artefact",
    "over_translation",
    "under_translation",
    "word_order",
    "untranslated",
    "number_mismatch",
    "length_outlier",
    "missed_term",
    "mt_only_ngram",
    "mixed_language",
    "markup_mismatch",
    "unbalanced",
    "inconsistent",
    "suspect_reference",
)
"""The modules of the checks, in the order of the queue's flag columns: a new check is its module and its name
here — the one line it adds (every check a module defines is registered, in the module's order)."""


def checks_of(module: ModuleType) -> list[type[Check]]:
    """The checks a module defines (its :class:`Check` subclasses that are not abstract), in its order."""
    return [obj for obj in vars(module).values() if isinstance(obj, type) and issubclass(obj, Check)
            and obj.__module__ == module.__name__ and not isabstract(obj)]


REGISTRY: Registry[type[Check]] = Registry.of_modules("check", "mtdiag.triage.checks", MODULES,
                                                      lambda cls: cls.name, checks_of)
"""Every registered check by name, in the order of :data:`MODULES` (then those registered at run time)."""

Requested = tuple[tuple[str, tuple[tuple[str, Any], ...]], ...]


def register(cls: type[Check]) -> type[Check]:
    """Add a check to the registry (a plug-in, or a test's throw-away check); returns it (usable as a decorator).

    A taken name is a ``ValueError``."""
    return REGISTRY.register(cls)


def unregister(name: str) -> None:
    """Remove check ``name`` from the registry (nothing when there is none)."""
    REGISTRY.unregister(name)


def registered(cls: type[Check], *, replace: bool = False):
    """``with registered(MyCheck): ...`` — the check is in the registry inside the block only.

    ``replace=True`` stands in for a registered check of that name and puts it back after
    (:meth:`Registry.registered`)."""
    return REGISTRY.registered(cls, replace=replace)


def freeze(requested: Mapping[str, Mapping[str, Any]] | Requested | None) -> Requested:
    """On-request checks and their options as a sorted, hashable tuple (a cache key).

    Unknown or not-on-request names are refused."""
    items = dict(requested or ())
    for name in items:
        if name not in REGISTRY or not REGISTRY[name].on_request:
            known = ", ".join(n for n, c in REGISTRY.items() if c.on_request)
            raise ValueError(f"{name!r} is not a check computed on request; those are: {known}")
    return tuple((name, tuple(sorted(dict(items[name]).items()))) for name in sorted(items))


def active_checks(report, requested: Mapping[str, Mapping[str, Any]] | Requested | None = None) -> list[Check]:
    """The checks computed for ``report``, in registry order.

    Every check that is not on request and whose needs the report meets, plus the requested ones."""
    asked = dict(freeze(requested))
    chosen = []
    for name, cls in REGISTRY.items():
        if cls.on_request and name not in asked:
            continue
        check = cls(**dict(asked.get(name, ())))
        if check.applies(report):
            chosen.append(check)
    return chosen


def fired(report, check: Check) -> pd.Series:
    """One check's flag over the report's pairs.

    Memoised per report, check and options: a page that needs one flag, e.g. the WAFT/NEVA view's ``word_order``,
    computes only that one. A check whose evidence is the reference (``reads_reference``) does not fire where every
    reference of the segment is suspect (:func:`mtdiag.triage.checks.suspect_reference.reference_at_fault`): the
    reference's fault is not the output's."""
    def build() -> pd.Series:
        flags = check.fires(report).reindex(report.segments.index, fill_value=False).astype(bool)
        if check.reads_reference:
            flags &= ~reference_at_fault(report)
        return flags

    # keyed by the class too: a check that stands in for another of its name (registered(..., replace=True)) is
    # never answered with the other's flags
    return report.context.memo(("checks", check.name, type(check), tuple(sorted(check.options.items()))), build)


def flag(report, name: str) -> pd.Series:
    """The flag of the registered check ``name`` (not on request) over the report's pairs."""
    return fired(report, REGISTRY[name]())


def flag_frame(report, requested: Mapping[str, Mapping[str, Any]] | Requested | None = None) -> pd.DataFrame:
    """One boolean column per check that the report's metrics and inputs allow (and per requested one).

    The columns are over the report's (system, seg) index, in registry order."""
    checks = active_checks(report, requested)
    return pd.DataFrame({c.name: fired(report, c) for c in checks}, index=report.segments.index, dtype=bool)


def flag_names(flags: pd.DataFrame) -> pd.Series:
    """The fired flags of each row joined by commas (empty when none), in registry order."""
    columns = flag_columns(flags)
    if not columns:
        return pd.Series("", index=flags.index)
    names = np.array(columns, dtype=object)
    values = flags[columns].to_numpy(dtype=bool)
    return pd.Series([",".join(names[row]) for row in values], index=flags.index)


def flag_columns(frame: pd.DataFrame) -> list[str]:
    """The registered checks a frame has a column for, in registry order."""
    return [name for name in REGISTRY if name in frame.columns]


def critical_columns(frame: pd.DataFrame) -> list[str]:
    """The critical checks a frame has a column for, in registry order."""
    return [c for c in flag_columns(frame) if REGISTRY[c].critical]


def critical(flags: pd.DataFrame) -> pd.Series:
    """Per row: a critical check fired (the output is plainly broken)."""
    columns = critical_columns(flags)
    return flags[columns].any(axis=1) if columns else pd.Series(False, index=flags.index)


def check_evidence(report, system: str, seg: int,
                   requested: Mapping[str, Mapping[str, Any]] | Requested | None = None) -> SegmentEvidence | None:
    """Why the checks fired on one pair; None when no check fired.

    Marks in the output and a ``checks`` table with one plain sentence per finding."""
    spans, rows, legend = [], [], []
    for check in active_checks(report, requested):
        flags = fired(report, check)
        if (system, seg) not in flags.index or not bool(flags.at[(system, seg)]):
            continue
        finding: Finding = check.explain(report, system, seg)
        spans += finding.spans
        rows += [{"check": check.name, "finding": sentence} for sentence in finding.sentences]
        legend += [k for k in check.marks if k not in legend and any(s.kind == k for s in finding.spans)]
    if not rows:
        return None
    table = EvidenceTable("Checks", pd.DataFrame(rows, columns=["check", "finding"]),
                          "Why each flag fired on this output (docs/triage.md).")
    return SegmentEvidence(hyp_spans=spans, legend=legend, tables={"checks": table})

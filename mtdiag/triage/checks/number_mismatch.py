"""``number_mismatch``: a number of the source is missing from the output, or the output has a number the source
does not. Numbers are compared by value with both decimal conventions: ``3,5`` = ``3.5`` ≠ ``35``; ``1,000`` =
``1.000`` = ``1000``. What counts as expected depends on what the set has (:func:`basis`):

- **references**: a source number is required when every reference keeps it, and an output number is wrong when
  neither the source nor any reference has it — this spares the numbers translators legitimately convert
  (``3 p.m.`` → ``15 Uhr``, ``5月`` → ``May``);
- **no reference, three or more systems**: the other systems stand in for the references (the consensus idea of
  MBR decoding): a source number is required when at least half of the other systems keep it, and an output number
  is wrong when it is not in the source and fewer than half of the other systems have it. Compared directly with
  the source, the flag fired on 21 % of dev zh-en pairs (months and dates written as words: ``5月12日`` →
  ``May 12``) and found the human-worst outputs less often than chance on dev en-de (lift 0.69);
- **no reference, one or two systems**: the source directly — every source number required, every other output
  number wrong.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from mtdiag.triage.checks.base import Check, Finding, by_pair_segments
from mtdiag.core.highlight import Span

NUMBER = re.compile(r"\d+(?:[.,'\u00a0\u202f]\d+)*")
_FULLWIDTH_DIGITS = str.maketrans("０１２３４５６７８９", "0123456789")


def _integer(digits: str) -> str:
    """A digit string without leading zeros (never ``int()``: a hostile 10,000-digit number must not raise)."""
    return digits.lstrip("0") or "0"


def number_values(text: str) -> frozenset[str]:
    """Every value a written number can mean, as canonical decimal strings.

    ``3,5`` and ``3.5`` → {3.5}; ``1,000`` → {1000, 1} (thousands or a decimal ``1.000``); ``1.234.567`` → {1234567};
    ``35`` → {35}. A separator followed by exactly three digits may group thousands; the last separator may be a decimal
    mark when no other separator of the number is the same character."""
    groups = re.split(r"[.,'\u00a0\u202f]", text)
    if len(groups) == 1:
        return frozenset({_integer(text)})
    values = set()
    if all(len(g) == 3 for g in groups[1:]):
        values.add(_integer("".join(groups)))
    decimal_mark = text[-len(groups[-1]) - 1]
    others = {c for c in text[: -len(groups[-1]) - 1] if not c.isdigit()}
    if all(len(g) == 3 for g in groups[1:-1]) and decimal_mark in ".," and decimal_mark not in others:
        whole, frac = _integer("".join(groups[:-1])), groups[-1].rstrip("0")
        values.add(f"{whole}.{frac}" if frac else whole)
    return frozenset(values)


def _numbers(texts: pd.Series) -> pd.DataFrame:
    """Every number of every text: ``seg, occ`` (occurrence id), ``value`` (one row per possible value)."""
    texts = texts.astype(str)
    wide = texts.str.contains("[\uff10-\uff19]", regex=True)  # a vectorised scan; translating every text is slow
    if wide.any():
        texts = texts.mask(wide, texts[wide].str.translate(_FULLWIDTH_DIGITS))
    found = texts.str.findall(NUMBER).explode().dropna()
    if found.empty:
        return pd.DataFrame({"seg": pd.Series(dtype=np.int64), "occ": pd.Series(dtype=np.int64),
                             "value": pd.Series(dtype=object), "text": pd.Series(dtype=object)})
    frame = pd.DataFrame({"seg": found.index.to_numpy(), "text": found.to_numpy()})
    frame["occ"] = np.arange(len(frame))
    meanings = {t: sorted(number_values(t)) for t in frame["text"].unique()}
    frame["value"] = frame["text"].map(meanings)
    return frame.explode("value", ignore_index=True)


def _keyed(sides: list[pd.Series], n: int) -> list[pd.DataFrame]:
    """The numbers of several sides (:func:`_numbers`, all read in one pass), one frame per side, with an
    integer ``key`` per (segment, value), the same on every side."""
    found = _numbers(pd.concat([t.astype(str) for t in sides], ignore_index=True))
    codes, uniques = pd.factorize(found["value"])
    row = found["seg"].to_numpy(dtype=np.int64)
    side, seg = row // max(n, 1), row % max(n, 1)
    found = found.assign(seg=seg, key=seg * max(len(uniques), 1) + codes)
    bounds = np.searchsorted(side, np.arange(len(sides) + 1))  # rows come side after side
    return [found.iloc[a:b].reset_index(drop=True) for a, b in zip(bounds[:-1], bounds[1:])]


def _per_occurrence(numbers: pd.DataFrame, per_row: np.ndarray) -> np.ndarray:
    """Per row: ``per_row`` (booleans, one column or several) or-ed over the rows of the row's occurrence (the rows
    of one occurrence are consecutive)."""
    if len(numbers) == 0:
        return per_row
    occ = numbers["occ"].to_numpy()
    starts = np.flatnonzero(np.concatenate([[True], occ[1:] != occ[:-1]]))
    merged = np.maximum.reduceat(per_row.astype(np.int8), starts, axis=0).astype(bool)
    return merged[np.repeat(np.arange(len(starts)), np.diff(np.append(starts, len(occ))))]


def _occurrences_without(numbers: pd.DataFrame, others: pd.DataFrame) -> pd.DataFrame:
    """The rows of the occurrences (``occ``) none of whose values ``others`` has in the same segment."""
    return numbers[~_per_occurrence(numbers, np.isin(numbers["key"].to_numpy(), others["key"].to_numpy()))]


CONSENSUS_SYSTEMS = 3  # without references, this many systems let the others stand in for the references
UNEXPECTED = {"references": "is in neither the source nor a reference",
              "systems": "is in neither the source nor most other systems' outputs",
              "source": "is not in the source"}


def basis(report) -> str:
    """What the output's numbers are compared with besides the source.

    ``references``, the other ``systems`` (no reference, at least :data:`CONSENSUS_SYSTEMS` systems) or the ``source``
    alone."""
    if report.evalset.ref_names:
        return "references"
    return "systems" if len(report.evalset.systems) >= CONSENSUS_SYSTEMS else "source"


class _Outputs:
    """Which systems have which (segment, value) keys, to count how many other systems agree with a number."""

    def __init__(self, hyps: list[pd.DataFrame]):
        self.keys = np.unique(np.concatenate([h["key"].to_numpy() for h in hyps]))
        self.has = np.zeros((len(self.keys), len(hyps)), dtype=bool)
        for column, hyp in enumerate(hyps):
            self.has[np.searchsorted(self.keys, hyp["key"].to_numpy()), column] = True

    def others_agreeing(self, numbers: pd.DataFrame, column: int) -> np.ndarray:
        """Per row of ``numbers``: how many systems other than the one in ``column`` have one of the values of
        the row's occurrence in the same segment."""
        keys = numbers["key"].to_numpy()
        at = np.minimum(np.searchsorted(self.keys, keys), max(len(self.keys) - 1, 0))
        rows = np.zeros((len(keys), self.has.shape[1]), dtype=bool)
        found = (self.keys[at] == keys) if len(self.keys) else np.zeros(len(keys), dtype=bool)
        rows[found] = self.has[at[found]]
        rows = _per_occurrence(numbers, rows)
        return rows.sum(axis=1) - rows[:, column]


def number_findings(report) -> dict[str, pd.DataFrame]:
    """Per system: ``seg, kind, number`` of every number missing or changed, as :func:`basis` says.

    ``missing``: a required source number absent from the output; ``changed``: an output number that is not expected."""
    def build():
        ev = report.evalset
        how = basis(report)
        src, *rest = _keyed([ev.src, *(ev.refs[r] for r in ev.ref_names), *(ev.hyps[s] for s in ev.systems)],
                            ev.n_segments)
        refs, hyps = rest[: len(ev.ref_names)], rest[len(ev.ref_names):]
        required, expected = src, pd.concat([src, *refs], ignore_index=True)
        for ref in refs:
            required = required[~required["occ"].isin(_occurrences_without(required, ref)["occ"])]
        outputs = _Outputs(hyps) if how == "systems" else None
        half = (len(ev.systems) - 1) / 2
        out = {}
        for column, (system, hyp) in enumerate(zip(ev.systems, hyps)):
            missing = _occurrences_without(required, hyp)
            changed = _occurrences_without(hyp, expected)
            if outputs is not None:
                missing = missing[outputs.others_agreeing(missing, column) >= half]
                changed = changed[outputs.others_agreeing(changed, column) < half]
            missing = missing.drop_duplicates("occ").assign(kind="missing")
            changed = changed.drop_duplicates("occ").assign(kind="changed")
            out[system] = pd.concat([missing, changed], ignore_index=True)[["seg", "kind", "text"]].rename(
                columns={"text": "number"})
        return out

    return report.context.memo(("checks", "numbers"), build)


def _findings_of(report, system: str) -> dict[int, list[tuple[str, str]]]:
    """One system's :func:`number_findings` by segment: ``{seg: [(kind, number), …]}`` in their order (so that
    explaining one pair reads its own rows, not a filter over every row of the system)."""
    def build():
        findings = number_findings(report)[system]
        by_seg: dict[int, list[tuple[str, str]]] = {}
        for seg, kind, number in zip(findings["seg"].tolist(), findings["kind"].tolist(),
                                     findings["number"].tolist()):
            by_seg.setdefault(seg, []).append((kind, number))
        return by_seg

    return report.context.memo(("checks", "numbers", "by segment", system), build)


class NumberMismatch(Check):
    """The ``number_mismatch`` check: a number of the source is missing or changed."""
    name = "number_mismatch"
    label = "number mismatch"
    help = "a number of the source is missing or changed"
    needs = ("source",)
    claims = ("Accuracy/Mistranslation",)
    marks = ("number",)

    def fires(self, report) -> pd.Series:
        """One boolean per pair: the output has a finding of :func:`number_findings`."""
        return by_pair_segments(report, {s: f["seg"].to_numpy() for s, f in number_findings(report).items()})

    def explain(self, report, system, seg):
        """Why ``number_mismatch`` fired on one pair: each number missing or unexpected, the unexpected ones marked."""
        findings = _findings_of(report, system).get(int(seg), [])
        sentences = tuple(f"{number} of the source is missing from the output" if kind == "missing"
                          else f"{number} {UNEXPECTED[basis(report)]}" for kind, number in findings)
        changed = {number for kind, number in findings if kind == "changed"}
        ctx = report.context
        ids = ctx.tokens.hyps[system].segment(seg)
        spans = tuple(Span(i, i + 1, "number", "number not in the source")
                      for i, t in enumerate(ctx.tokens.vocab[ids]) if any(c in str(t) for c in changed))
        return Finding(sentences, spans)

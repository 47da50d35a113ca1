"""``number_mismatch``: a number of the source that every reference keeps is missing from the output, or the
output has a number that neither the source nor any reference has. Numbers are compared by value with both decimal
conventions: ``3,5`` = ``3.5`` ≠ ``35``; ``1,000`` = ``1.000`` = ``1000``. Requiring the number in every
reference spares the numbers translators legitimately convert (``3 p.m.`` → ``15 Uhr``)."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from mtdiag.checks.base import Check, Finding, by_pair_segments
from mtdiag.highlight import Span

NUMBER = re.compile(r"\d+(?:[.,'\u00a0\u202f]\d+)*")
_FULLWIDTH_DIGITS = str.maketrans("０１２３４５６７８９", "0123456789")


def _integer(digits: str) -> str:
    """A digit string without leading zeros (never ``int()``: a hostile 10,000-digit number must not raise)."""
    return digits.lstrip("0") or "0"


def number_values(text: str) -> frozenset[str]:
    """Every value a written number can mean, as canonical decimal strings: ``3,5`` and ``3.5`` → {3.5};
    ``1,000`` → {1000, 1} (thousands or a decimal ``1.000``); ``1.234.567`` → {1234567}; ``35`` → {35}.
    A separator followed by exactly three digits may group thousands; the last separator may be a decimal mark
    when no other separator of the number is the same character."""
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


def _occurrences_without(numbers: pd.DataFrame, others: pd.DataFrame) -> pd.DataFrame:
    """The rows of the occurrences (``occ``) none of whose values ``others`` has in the same segment."""
    hit = numbers.merge(others[["seg", "value"]].drop_duplicates(), on=["seg", "value"], how="inner")["occ"]
    return numbers[~numbers["occ"].isin(hit)]


def number_findings(report) -> dict[str, pd.DataFrame]:
    """Per system: ``seg, kind, number`` — ``missing`` (a source number every reference also has, absent from the
    output) and ``changed`` (an output number neither the source nor any reference has). Requiring the number in
    every reference keeps out the numbers translators legitimately convert (``3 p.m.`` → ``15 Uhr``)."""
    def build():
        ev = report.evalset
        src = _numbers(ev.src)
        per_ref = [_numbers(ev.refs[r]) for r in ev.ref_names]
        src_or_ref = pd.concat([src, *per_ref], ignore_index=True)
        required = src
        for ref in per_ref:
            required = required[~required["occ"].isin(_occurrences_without(required, ref)["occ"])]
        out = {}
        for system in ev.systems:
            hyp = _numbers(ev.hyps[system])
            missing = _occurrences_without(required, hyp).drop_duplicates("occ").assign(kind="missing")
            changed = _occurrences_without(hyp, src_or_ref).drop_duplicates("occ").assign(kind="changed")
            out[system] = pd.concat([missing, changed], ignore_index=True)[["seg", "kind", "text"]].rename(
                columns={"text": "number"})
        return out

    return report.context.memo(("checks", "numbers"), build)


class NumberMismatch(Check):
    name = "number_mismatch"
    label = "number mismatch"
    help = "a number of the source is missing or changed"
    needs = ("source", "references")
    claims = ("Accuracy/Mistranslation",)
    marks = ("number",)

    def fires(self, report) -> pd.Series:
        return by_pair_segments(report, {s: f["seg"].to_numpy() for s, f in number_findings(report).items()})

    def explain(self, report, system, seg):
        findings = number_findings(report)[system]
        findings = findings[findings["seg"] == seg]
        sentences = tuple(f"{number} of the source is missing from the output" if kind == "missing"
                          else f"{number} is in neither the source nor a reference"
                          for kind, number in zip(findings["kind"], findings["number"]))
        changed = set(findings.loc[findings["kind"] == "changed", "number"])
        ctx = report.context
        ids = ctx.tokens.hyps[system].segment(seg)
        spans = tuple(Span(i, i + 1, "number", "number not in the source")
                      for i, t in enumerate(ctx.tokens.vocab[ids]) if any(c in str(t) for c in changed))
        return Finding(sentences, spans)

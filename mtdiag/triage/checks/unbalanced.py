"""``unbalanced``: a bracket or quotation mark of the output has no partner, where the source's are all paired.

Pairs are counted, not parsed (a segment may open a quotation that the next one closes — then its source is
unbalanced too and nothing fires):

- brackets, each kind on its own, half- and full-width together: ``()（）``, ``[]［］``, ``{}｛｝``, ``【】``,
  ``《》``, ``〈〉``: as many opening as closing;
- quotation marks, excused together when any of the source's is unpaired (the target language may quote with
  other marks than the source): ``「」``, ``『』``, ``«»``, ``‹›`` as many of each (either direction: Danish and
  German also write »…«); the double quotes ``" “ ” „ ＂`` an even number all together (German „…“ closes with
  the mark English opens with, and typed text mixes them: „…"); the single quotes ``‘`` not more than ``’`` and
  ``‚`` together, and ``‚`` not more than ``‘`` (``’`` is also the apostrophe, so it can only ever close).

Counting runs on the code points of all texts at once (numpy), no loop over texts."""

from __future__ import annotations

import numpy as np
import pandas as pd

from mtdiag.triage.checks.base import Check, Finding, by_pair, character_spans, count_in_ranges

BRACKETS: dict[str, tuple[str, str]] = {
    "round brackets": ("(（", ")）"), "square brackets": ("[［", "]］"), "curly brackets": ("{｛", "}｝"),
    "lenticular brackets": ("【", "】"), "double angle brackets": ("《", "》"), "angle brackets": ("〈", "〉"),
}
QUOTES: dict[str, tuple[str, str]] = {
    "corner quotes": ("「", "」"), "white corner quotes": ("『", "』"), "guillemets": ("«", "»"),
    "single guillemets": ("‹", "›"),
}
DOUBLE_QUOTES = "\"“”„＂"
SINGLE_OPEN, SINGLE_CLOSE, SINGLE_LOW = "‘", "’", "‚"
_CHARS = "".join(dict.fromkeys("".join(o + c for o, c in [*BRACKETS.values(), *QUOTES.values()])
                               + DOUBLE_QUOTES + SINGLE_OPEN + SINGLE_CLOSE + SINGLE_LOW))


def char_counts(texts: pd.Series, chars: str = _CHARS) -> np.ndarray:
    """``counts[i, j]``: how often text ``i`` has character ``chars[j]`` (all texts' code points at once)."""
    return count_in_ranges(texts, [[(ord(c), ord(c))] for c in chars])


def _total(counts: np.ndarray, chars: str) -> np.ndarray:
    return counts[:, [_CHARS.index(c) for c in chars]].sum(axis=1)


def unpaired(counts: np.ndarray) -> dict[str, np.ndarray]:
    """Per family of brackets or quotes: which texts (rows of :func:`char_counts`) have one without its partner."""
    out = {name: _total(counts, o) != _total(counts, c) for name, (o, c) in {**BRACKETS, **QUOTES}.items()}
    out["double quotes"] = _total(counts, DOUBLE_QUOTES) % 2 == 1
    single_open, single_low = _total(counts, SINGLE_OPEN), _total(counts, SINGLE_LOW)
    out["single quotes"] = (single_open > _total(counts, SINGLE_CLOSE) + single_low) | (single_low > single_open)
    return out


def unbalanced_families(report) -> dict[str, dict[str, np.ndarray]]:
    """Per system and family: the outputs with an unpaired bracket or quote of that family the source does not have.

    The source has none of that family (brackets) or none at all (quotes)."""
    def build():
        src = unpaired(char_counts(report.evalset.src))
        quotes = [*QUOTES, "double quotes", "single quotes"]
        src_quotes = np.any([src[q] for q in quotes], axis=0)
        out = {}
        for system in report.evalset.systems:
            hyp = unpaired(char_counts(report.evalset.hyps[system]))
            out[system] = {f: hyp[f] & ~(src_quotes if f in quotes else src[f]) for f in hyp}
        return out

    return report.context.memo(("checks", "unbalanced"), build)


def unpaired_positions(text: str, family: str) -> list[int]:
    """Character offsets of the marks of ``family`` in ``text`` that lack a partner.

    For brackets the ones a left-to-right pairing leaves over, for quotation marks every mark of the family (which one
    lacks its partner cannot be told from counts)."""
    if family in BRACKETS:
        opening, closing = BRACKETS[family]
        stack, left = [], []
        for i, c in enumerate(text):
            if c in opening:
                stack.append(i)
            elif c in closing:
                (stack.pop() if stack else left.append(i))
        return sorted(stack + left)
    marks = {"double quotes": DOUBLE_QUOTES, "single quotes": SINGLE_OPEN + SINGLE_LOW}.get(family)
    marks = marks or "".join(QUOTES[family])
    return [i for i, c in enumerate(text) if c in marks]


class Unbalanced(Check):
    """The ``unbalanced`` check: an output's bracket or quotation mark has no partner; the source's are all paired."""
    name = "unbalanced"
    label = "unbalanced brackets or quotes"
    help = "a bracket or quotation mark of the output has no partner, and the source's are all paired"
    needs = ("source",)
    claims = ("Fluency/Punctuation",)
    marks = ("unbalanced",)

    def fires(self, report) -> pd.Series:
        """One boolean per pair: the output has an unpaired mark of some family (:func:`unbalanced_families`)."""
        return by_pair(report, {s: np.any(list(f.values()), axis=0)
                                for s, f in unbalanced_families(report).items()})

    def explain(self, report, system, seg):
        """Why ``unbalanced`` fired on one pair: the families with unpaired marks, those marks marked."""
        text = str(report.evalset.hyps.at[seg, system])
        families = [f for f, flagged in unbalanced_families(report)[system].items() if flagged[seg]]
        positions = sorted({i for f in families for i in unpaired_positions(text, f)})
        spans = character_spans(report, system, seg, [(i, i + 1) for i in positions], "unbalanced", "no partner")
        return Finding((f"unpaired {', '.join(families)}; the source's are all paired",), tuple(spans))

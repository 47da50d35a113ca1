"""``markup_mismatch``: what a translator must carry over unchanged — placeholders, markup, entities, addresses —
is not in the output as in the source (the tag, placeholder and URL checks of the translators' QA tools: Xbench,
Okapi CheckMate, Verifika). The items of each kind are compared as multisets: how many of each, and their values.

- placeholders: ``{0}``, ``{name}``, ``${var}``, ``{{ var }}`` (inner spaces ignored), printf ``%s``, ``%d``,
  ``%1$d``, ``%.2f``, ``%(name)s``, and Qt/Windows ``%1``;
- tags: ``<b>``, ``</b>``, ``<br/>`` — by name and kind (opening, closing, self-closing), case-insensitive; the
  attributes may differ (``alt="…"`` and ``title="…"`` are translated);
- character entities (``&amp;``, ``&#160;``, ``&#x2014;``), URLs (``http://``, ``https://``, ``ftp://``,
  ``www.``; punctuation ending a sentence is not part of it), e-mail addresses, @handles and #hashtags: exact.

Every pattern is linear: literal anchors and bounded classes, no nested or lazy quantifiers over unbounded input
(a 100,000-character segment is scanned in milliseconds). Texts with none of the characters an item starts with
are not scanned at all.

The name says what is compared: markup in the wide sense translators use it — everything of a segment that is
code or an address rather than language."""

from __future__ import annotations

import re
from collections import Counter

import numpy as np
import pandas as pd

from mtdiag.triage.checks.base import Check, Finding, by_pair, character_spans

KINDS: dict[str, str] = {  # item kind -> linear pattern (no capture groups of its own); tried in this order
    "URL": r"\b(?:https?|ftp)://[A-Za-z0-9\-._~:/?#@!$&*+,;=%]+|\bwww\.[A-Za-z0-9\-._~:/?#@!$&*+,;=%]+",
    "e-mail address": r"(?<![\w.%+-])[A-Za-z0-9._%+-]{1,64}@[A-Za-z0-9-]{1,63}(?:\.[A-Za-z0-9-]{1,63})+",
    "placeholder": (r"\{\{[^{}\n]{1,100}\}\}"  # {{ var }}
                    r"|\$?\{[\w.:,!\-]{0,64}\}"  # {0} {name} {} ${var} {0:.2f}
                    r"|%\([A-Za-z_]\w{0,63}\)[-+0#]{0,4}\d{0,3}(?:\.\d{1,3})?[sdifuxXoeEgGcr]"  # %(name)s
                    r"|%(?:\d{1,2}\$)?[-+0#]{0,4}\d{0,3}(?:\.\d{1,3})?[sdifuxXoeEgGc@](?![A-Za-z])"  # %s %1$d %.2f
                    r"|%\d{1,2}(?![\d$A-Za-z.,])"),  # Qt / Windows %1
    "tag": r"</?[A-Za-z][\w:.-]{0,63}\b[^<>]{0,1000}>",
    "entity": r"&(?:[A-Za-z][A-Za-z0-9]{1,31}|#\d{1,7}|#[xX][0-9A-Fa-f]{1,6});",
    "handle": r"(?<![\w.@/])@[A-Za-z0-9_]{1,50}(?![A-Za-z0-9_@])",
    "hashtag": r"(?<![\w&#/])#[^\W\d_]\w{0,99}",
}
_GROUPS = {kind: f"k{i}" for i, kind in enumerate(KINDS)}
_KIND_OF = {group: kind for kind, group in _GROUPS.items()}
PROTECTED = re.compile("|".join(f"(?P<{_GROUPS[k]}>{p})" for k, p in KINDS.items()))
_TRIGGER = r"[{%<&@#]|://|www\."  # every item contains one of these: texts without one are not scanned
_URL_END = re.compile(r"[.,;:!?]+$")
_TAG = re.compile(r"<(/?)([A-Za-z][\w:.-]*)")


def canonical(kind: str, text: str) -> str:
    """The value an item is compared by.

    A tag by name and kind (``<b>``, ``</b>``, ``<br/>``), a ``{{ var }}`` without its inner spaces, a URL without the
    punctuation that ends its sentence, any other item as written."""
    if kind == "tag":
        slash, name = _TAG.match(text).groups()
        return f"<{slash}{name.lower()}{'/' if text.endswith('/>') else ''}>"
    if kind == "URL":
        return _URL_END.sub("", text)
    if kind == "placeholder" and text.startswith("{{"):
        return re.sub(r"\s+", "", text)
    return text


def items(text: str) -> list[tuple[str, str, int, int]]:
    """Every protected item of one text: ``(kind, value, start, end)``.

    ``start`` and ``end`` are the character offsets of the item as written, a URL's sentence punctuation left out."""
    found = []
    for match in PROTECTED.finditer(text):
        kind = _KIND_OF[match.lastgroup]
        value = canonical(kind, match.group(0))
        end = match.start() + len(value) if kind == "URL" else match.end()
        found.append((kind, value, match.start(), end))
    return found


def extract(texts: pd.Series) -> pd.DataFrame:
    """``row, kind, value``: every protected item of every text (``row``: the text's position).

    Vectorised — one ``extractall`` over the texts that contain a trigger character."""
    texts = texts.astype(str).reset_index(drop=True)
    texts = texts[texts.str.contains(_TRIGGER, regex=True)]
    found = texts.str.extractall(PROTECTED) if len(texts) else pd.DataFrame()
    if found.empty:
        return pd.DataFrame({"row": pd.Series(dtype=np.int64), "kind": pd.Series(dtype=object),
                             "value": pd.Series(dtype=object)})
    stacked = found.stack().dropna()  # (row, match, group) -> matched text
    kind = stacked.index.get_level_values(-1).map(_KIND_OF).to_numpy(dtype=object)
    return pd.DataFrame({"row": stacked.index.get_level_values(0).to_numpy(dtype=np.int64), "kind": kind,
                         "value": [canonical(k, t) for k, t in zip(kind, stacked.to_numpy(dtype=object))]})


def mismatches(report) -> dict[str, pd.DataFrame]:
    """Per system: every item whose count in the output differs from its count in the source.

    Columns ``seg, kind, value, source, output``; the source and every output are read in one pass."""
    def build():
        ev = report.evalset
        n = ev.n_segments
        sides = [ev.src, *(ev.hyps[s] for s in ev.systems)]
        found = extract(pd.concat([t.astype(str) for t in sides], ignore_index=True))
        found = found.assign(side=found["row"] // max(n, 1), seg=found["row"] % max(n, 1))
        counts = found.groupby(["seg", "kind", "value", "side"]).size().unstack("side", fill_value=0)
        counts = counts.reindex(columns=range(len(sides)), fill_value=0)
        out = {}
        for column, system in enumerate(ev.systems, start=1):
            differ = counts[counts[column] != counts[0]]
            out[system] = pd.DataFrame({"source": differ[0], "output": differ[column]}).reset_index()
        return out

    return report.context.memo(("checks", "markup"), build)


def _shown(value: str, limit: int = 80) -> str:
    return value if len(value) <= limit else value[: limit - 1] + "…"


class MarkupMismatch(Check):
    """The ``markup_mismatch`` check: a protected item of the source is missing from the output, changed, or added.

    The items are placeholders, tags, entities, URLs, e-mail addresses, @handles and #hashtags."""
    name = "markup_mismatch"
    label = "placeholders and markup"
    help = ("a placeholder, tag, entity, URL, e-mail address, @handle or #hashtag of the source is missing from the "
            "output, changed, or added")
    needs = ("source",)
    claims = ("Accuracy/Omission", "Accuracy/Mistranslation", "Locale convention", "Design and markup", "Markup")
    marks = ("markup",)

    def fires(self, report) -> pd.Series:
        """One boolean per pair: some item's count differs between the output and the source (:func:`mismatches`)."""
        n = report.evalset.n_segments
        flagged = {}
        for system, differ in mismatches(report).items():
            mask = np.zeros(n, dtype=bool)
            mask[differ["seg"].to_numpy(dtype=np.int64)] = True
            flagged[system] = mask
        return by_pair(report, flagged)

    def explain(self, report, system, seg):
        """Why ``markup_mismatch`` fired on one pair: each item missing or added, the added ones marked."""
        source = Counter((k, v) for k, v, _, _ in items(str(report.evalset.src.iat[seg])))
        found = items(str(report.evalset.hyps.at[seg, system]))
        output = Counter((k, v) for k, v, _, _ in found)
        missing = [(k, v, n - output[(k, v)]) for (k, v), n in source.items() if n > output[(k, v)]]
        extra = {(k, v) for (k, v), n in output.items() if n > source[(k, v)]}
        sentences = [f"{kind} {_shown(value)} is missing from the output" + (f" ({n} of {source[(kind, value)]})"
                                                                              if source[(kind, value)] > 1 else "")
                     for kind, value, n in missing]
        sentences += [f"{kind} {_shown(value)} is not in the source" + (f" as often ({output[(kind, value)]} × "
                                                                          f"against {source[(kind, value)]})"
                                                                          if source[(kind, value)] else "")
                      for kind, value in sorted(extra)]
        marked = [(start, end) for kind, value, start, end in found if (kind, value) in extra]
        spans = character_spans(report, system, seg, marked, "markup", "not in the source as written")
        return Finding(tuple(sentences), tuple(spans))

"""Predicted error spans of every (system, segment) of a report: :func:`predict_spans`.

Two sources of evidence, each located in the output as written (:mod:`mtdiag.core.offsets`):

- phrases the references and the other systems do not support (:mod:`mtdiag.spans.phrases`), kind
  ``unsupported``, ``no_reference`` or ``no_consensus``;
- the marks of the triage checks that fired on the output (``mtdiag.triage.checks``: ``repetition`` loops,
  ``untranslated`` copied words, ``number_mismatch``, ``markup_mismatch``, ``llm_artefact``, ``wrong_language``,
  ``mixed_language``, ``word_order``, ``unbalanced``, …), kind = the check's name; a critical check that marks
  no words (``empty``, ``truncated``) gives one zero-width span at the output's end (what is missing).

Each span gets a confidence and a severity (:mod:`mtdiag.spans.confidence`). A span is predicted when its
confidence reaches the threshold (default :data:`~mtdiag.spans.confidence.DEFAULT_THRESHOLD`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from mtdiag.triage import checks
from mtdiag.spans.confidence import (DEFAULT_THRESHOLD, check_confidence, check_severity, lexical_confidence,
                                     phrase_severity)
from mtdiag.core.offsets import outputs_token_offsets, span_characters
from mtdiag.spans.phrases import phrases
from mtdiag.spans.support import word_support

SPAN_COLUMNS = ["system", "seg", "start", "end", "text", "severity", "confidence", "kind"]


def predict_spans(report, threshold: float = DEFAULT_THRESHOLD, segments=None) -> pd.DataFrame:
    """Every predicted span with ``confidence >= threshold``, ordered by system, segment and start.

    :data:`SPAN_COLUMNS` (``seg`` 0-based, ``start`` and ``end`` character offsets into the output,
    ``text = output[start:end]``), systems in the report's order. The frame of a threshold is computed once per report
    and shared (every segment drawn, the records and the counts read the same one: do not modify it); each source of
    spans is computed once per report, and a check whose confidence is below the threshold is not asked at all.

    ``segments`` (0-based; None: all): only the spans of these segments' outputs — the rows of the whole frame for them,
    read from it when it is computed already, else computed for these segments alone (every source of spans is a
    function of one segment's outputs and references; a check's flags are the whole report's). The Segments page shows
    one segment: it waited ~1 s for the spans of all 10,000 outputs of a dev set."""
    threshold = float(threshold)
    if segments is None:
        return report.context.memo(("spans", "predicted", threshold), lambda: _predicted(report, threshold))
    segments = tuple(sorted({int(s) for s in segments}))
    whole = report.context.stored(("spans", "predicted", threshold))
    if whole is not None:
        return whole[whole["seg"].isin(segments)].reset_index(drop=True)
    return report.context.memo(("spans", "predicted", threshold, segments),
                               lambda: _predicted(report, threshold, segments))


def _predicted(report, threshold: float, segments: tuple[int, ...] | None = None) -> pd.DataFrame:
    found = phrase_spans(report, segments)
    confidence = lexical_confidence(found["kind"].iat[0], found["min_sigma"].to_numpy(), found["words"].to_numpy()) \
        if len(found) else np.zeros(0)  # one kind of evidence per set
    parts = [found.assign(confidence=confidence)[SPAN_COLUMNS]]
    for check in checks.active_checks(report):
        confidence = check_confidence(check.name, critical=check.critical)
        if confidence < threshold or not (check.marks or check.critical):
            continue
        found = check_spans(report, check, segments) if check.marks else whole_output_spans(report, check, segments)
        parts.append(found.assign(confidence=confidence)[SPAN_COLUMNS])
    frame = pd.concat(parts, ignore_index=True)
    frame = frame[frame["confidence"] >= threshold]
    order = {s: i for i, s in enumerate(report.evalset.systems)}
    frame = frame.assign(rank=frame["system"].map(order)).sort_values(["rank", "seg", "start", "end", "kind"])
    return frame[SPAN_COLUMNS].reset_index(drop=True)


class TokenLocator:
    """Token offsets of outputs in their text as written, every output of a system located at once.

    By :func:`mtdiag.core.offsets.outputs_token_offsets`, the first time one of the system's ranges is asked for."""

    def __init__(self, report):
        self.report = report
        options = report.context.options
        self.fold = {"lowercase": options.lowercase, "typography": options.typography,
                     "entities": options.tokenize == "13a"}
        self.texts = {s: report.evalset.hyps[s].astype(str).tolist() for s in report.evalset.systems}
        self.offsets: dict[str, tuple[np.ndarray, np.ndarray]] = {}

    def system_offsets(self, system: str) -> tuple[np.ndarray, np.ndarray]:
        """``(offsets, bounds)``: (start, end) of every token of the system's outputs, and where each output's are.

        Segment i's tokens are ``offsets[bounds[i]:bounds[i + 1]]``."""
        if system not in self.offsets:
            tokens = self.report.context.tokens
            side = tokens.hyps[system]
            self.offsets[system] = (outputs_token_offsets(self.texts[system], tokens.vocab[side.ids].tolist(),
                                                          side.offsets, **self.fold), side.offsets)
        return self.offsets[system]

    def characters(self, system: str, seg: int, first: int, last: int) -> tuple[int, int] | None:
        """The characters of tokens ``first``..``last`` (inclusive) of one output."""
        offsets, bounds = self.system_offsets(system)
        offsets = offsets[bounds[seg]:bounds[seg + 1]]
        if first >= len(offsets) or last < first:
            return None
        return span_characters(offsets, first, min(last, len(offsets) - 1))

    def frame(self, tokens: pd.DataFrame) -> pd.DataFrame:
        """Token ranges with their characters: ``start``, ``end`` and ``text`` added.

        The ranges have ``system``, ``seg``, ``first``, ``last`` inclusive and any further columns; ranges whose tokens
        cannot be located are left out. A range whose two end tokens were both located spans from the first's start
        to the last's end (one lookup for all ranges of a system); the others are looked up one by one
        (:func:`~mtdiag.core.offsets.span_characters`)."""
        start = np.full(len(tokens), -1, dtype=np.int64)
        end = np.full(len(tokens), -1, dtype=np.int64)
        systems = tokens["system"].to_numpy()
        segs, firsts, lasts = (tokens[column].to_numpy(dtype=np.int64) for column in ("seg", "first", "last"))
        for system in pd.unique(systems):
            rows = np.flatnonzero(systems == system)
            offsets, bounds = self.system_offsets(system)
            seg, first, last = segs[rows], firsts[rows], lasts[rows]
            length = bounds[seg + 1] - bounds[seg]
            inside = (first < length) & (last >= first)
            if not inside.any():  # no range of this system names a token it has (its offsets may be empty)
                continue
            a = bounds[seg] + first
            b = bounds[seg] + np.minimum(last, length - 1)
            both = inside & (offsets[np.where(inside, a, 0), 0] >= 0) & (offsets[np.where(inside, b, 0), 1] >= 0)
            start[rows[both]] = offsets[a[both], 0]
            end[rows[both]] = offsets[b[both], 1]
            for row, g, f, l in zip(rows[inside & ~both], seg[inside & ~both], first[inside & ~both],
                                    last[inside & ~both]):
                found = self.characters(system, int(g), int(f), int(l))
                if found is not None:
                    start[row], end[row] = found
        located = start >= 0
        frame = tokens[located].reset_index(drop=True)
        frame["start"] = start[located]
        frame["end"] = end[located]
        frame["text"] = [self.texts[s][int(g)][a:b] for s, g, a, b in
                         zip(frame["system"], frame["seg"], frame["start"], frame["end"])]
        return frame


def locator(report) -> TokenLocator:
    """The report's :class:`TokenLocator` (one per report)."""
    return report.context.memo(("spans", "locator"), lambda: TokenLocator(report))


def phrase_spans(report, segments: tuple[int, ...] | None = None) -> pd.DataFrame:
    """The phrases the references and the other systems do not support, located.

    The phrases of :func:`mtdiag.spans.phrases.phrases`, as :data:`SPAN_COLUMNS` but ``confidence``, with the phrase's
    ``words`` and ``min_sigma``; of the outputs of ``segments`` only when given."""
    def build():
        found = locator(report).frame(phrases(word_support(report, segments)))
        return found.assign(severity=phrase_severity(found["words"].to_numpy()))

    return report.context.memo(("spans", "phrases", segments), build)


def check_spans(report, check, segments: tuple[int, ...] | None = None) -> pd.DataFrame:
    """The marks of one check on every output it fired on, located.

    The check is one of ``mtdiag.triage.checks``; outputs of ``segments`` only when given. :data:`SPAN_COLUMNS` but
    ``confidence``; kind = the check's name."""
    def build():
        fired = checks.fired(report, check)
        if segments is not None:
            fired = fired & fired.index.get_level_values("seg").isin(segments)
        rows = [(system, int(seg), span.start, span.end - 1) for system, seg in fired.index[fired.to_numpy()]
                for span in check.explain(report, system, seg).spans if span.end > span.start]
        tokens = pd.DataFrame(rows, columns=["system", "seg", "first", "last"]).astype(
            {"system": object, "seg": np.int64, "first": np.int64, "last": np.int64})
        found = locator(report).frame(tokens).drop_duplicates(["system", "seg", "start", "end"])
        return found.assign(severity=check_severity(check.name, check.critical), kind=check.name)

    return report.context.memo(("spans", "check", check.name, tuple(sorted(check.options.items())), segments), build)


def whole_output_spans(report, check, segments: tuple[int, ...] | None = None) -> pd.DataFrame:
    """One zero-width ``critical`` span at the end of every output that a critical check marking no words fired on.

    Such checks are ``empty`` and ``truncated``: what is wrong is what is missing. The span is where WMT23's error spans
    put an omission; outputs of ``segments`` only when given; :data:`SPAN_COLUMNS` but ``confidence``."""
    fired = checks.fired(report, check)
    if segments is not None:
        fired = fired & fired.index.get_level_values("seg").isin(segments)
    pairs = fired.index[fired.to_numpy()]
    texts = [str(report.evalset.hyps.at[seg, system]) for system, seg in pairs]
    return pd.DataFrame({"system": pd.Series([system for system, _ in pairs], dtype=object),
                         "seg": np.array([seg for _, seg in pairs], dtype=np.int64),
                         "start": np.array([len(t) for t in texts], dtype=np.int64),
                         "end": np.array([len(t) for t in texts], dtype=np.int64),
                         "text": pd.Series([""] * len(texts), dtype=object), "severity": "critical",
                         "kind": check.name})

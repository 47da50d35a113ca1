"""A Pearmut campaign of the worst-first queue, with mtdiag's predicted error spans pre-filled
(:func:`pearmut_campaign`; ``mtdiag pearmut export``, the Segments page; ``docs/pearmut.md``).

Pearmut (Zouhar & Kocmi 2026, PyPI ``pearmut``) runs WMT's human evaluation: ESA (Kocmi et al. 2024), MQM (Freitag
et al. 2021) and "ESA with AI-pre-filled error spans" (ESA^AI, Zouhar et al. 2025). The campaign is the JSON that
``pearmut add`` reads (its ``cli.py``, ``_add_single_campaign`` and ``_validate_item_structure``):

- **items**: the segments of the queue's first ``top`` (system, segment) pairs, each once, in the order the queue
  first reaches them (the worst first); one page per segment. An item holds the source (``src``), the reference
  (``ref``) when asked for or when the set has no source (ESA and MQM are source-based in WMT: the annotator
  judges the translation against the source), and **every system's output** of the segment in ``tgt`` (Pearmut's
  multi-output item: the annotator compares them side by side; Pearmut shuffles their order per page and hides
  the system names by default);
- **pre-filled spans**: per output, the error spans mtdiag predicts at the confidence ``threshold``
  (:func:`mtdiag.spans.predict_spans`, as ``mtdiag spans`` writes them) in Pearmut's ``error_spans``, converted to
  its offsets — UTF-16 code units, ``end_i`` inclusive (:func:`mtdiag.io.pearmut_log.to_pearmut`; an omission, a
  zero-width span at the end of an empty or truncated output, on Pearmut's ``[missing]`` token) — with their
  severity (ESA knows minor and major only: a critical span is major there; MQM adds Critical to Pearmut's
  severities) and no category (an MQM annotator chooses it). Pearmut never lets an annotator draw overlapping
  spans, and its page finds a span's controls by its first character, so spans of one output that overlap (a
  check's mark inside a phrase: 10 of 4,064 marked outputs on TED zh-en) are pre-filled as one span, their union,
  with the most severe severity. Each pre-filled span carries ``mtdiag: {kind, confidence}`` (Pearmut keeps it in
  the log while the annotator keeps the span);
- **ids** (:data:`mtdiag.io.pearmut_log.IDS_KEY`): the segment's 1-based id in the whole set, the system of each model
  key and the protocol, so the log is read back onto the set (``--annotations``, :mod:`mtdiag.io.pearmut_log`);
  ``item_id`` is the segment id (Pearmut's own results group scores by it);
- **annotators**: ``users`` annotators, each annotating every page (``task-based`` assignment with one identical
  task per annotator: every output is judged by all of them, so their agreement can be measured; Pearmut's
  ``single-stream`` would share the pages out instead, one annotator per page). Pearmut names them. Pearmut's
  format has no way to give one task to several annotators (``task-based`` reads one task per annotator,
  ``pearmut add``'s ``_add_single_campaign``), so the file repeats the task for each; mtdiag holds it once
  (``data["data"]`` is one list repeated) and writes its text once per annotator
  (:func:`campaign_text`). At most :data:`MAX_USERS` annotators, and a file of at most :data:`MAX_CAMPAIGN_MB` MB,
  its size computed from one task before anything is written.

A model key is the system's name, except a name Pearmut refuses (only digits: its page orders keys as numbers)
or would put into its page's markup unescaped (``< > & " '``): that system's key is ``system-K``, and the ids say
whose output it is. An output, source or reference that starts like a media tag (``<img ``, ``<video ``,
``<audio ``, ``<iframe ``) is inserted into Pearmut's page as HTML, not shown as text: such a segment is left out,
with a note (an MT output is untrusted text).
"""

from __future__ import annotations

import json
import re
import unicodedata
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from mtdiag.triage import ranking
from mtdiag.io.pearmut_log import IDS_KEY, PROTOCOLS, to_pearmut
from mtdiag.spans import predict_spans
from mtdiag.spans.protocol import protocol_spans

DEFAULT_TOP = ranking.FIRST_SCREEN
"""Pairs of the queue by default: its first screen, one pair per source (:data:`mtdiag.triage.ranking.FIRST_SCREEN`)."""
DEFAULT_USERS = 1
MAX_USERS = 100
"""Annotators of one campaign (``--users``, the Segments page's "Annotators"): each gets a copy of every page."""
MAX_CAMPAIGN_MB = 100
"""Megabytes of one campaign file (``pearmut add`` reads it whole into memory): refused before it is written."""
MEDIA_PREFIXES = ("<audio ", "<video ", "<img ", "<iframe ")  # pearmut web/src/utils.ts, isMediaContent
SEVERITY_ORDER = ("minor", "major", "critical")
MQM_SEVERITIES = ["Minor", "Major", "Critical"]
_UNSAFE_KEY = re.compile(r"[<>&\"'`]")
_CAMPAIGN_ID = re.compile(r"[^A-Za-z0-9._-]+")
MAX_CAMPAIGN_ID_BYTES = 200
"""Bytes of UTF-8 of a campaign id: Pearmut names its log ``ID.jsonl``, and a file name is at most 255 bytes."""

INSTRUCTIONS = {
    "ESA": (
        "<p>Each page shows a source text and several translations of it. For each translation, mark every error: "
        "click its first character, then its last, and choose its severity — <b>minor</b> (style, grammar or word "
        "choice that could be better) or <b>major</b> (the meaning is changed, or the text is hard to understand). "
        "Mark content the translation leaves out on the <code>[missing]</code> token. Then score the translation "
        "from 0 (no meaning kept) to 100 (the meaning kept, grammar perfect).</p>"),
    "MQM": (
        "<p>Each page shows a source text and several translations of it. For each translation, mark every error: "
        "click its first character, then its last, and choose its category and severity — <b>minor</b> (a flaw "
        "that does not change the meaning), <b>major</b> (the meaning is changed, or the text is hard to "
        "understand) or <b>critical</b> (the translation is unusable). Mark content the translation leaves out on "
        "the <code>[missing]</code> token. The errors are the score: no overall score is asked.</p>"),
}
PREFILLED_NOTE = (
    "<p><b>Some errors are already marked, by an automatic tool, and it is often wrong.</b> Check each marked "
    "error: remove it when it is no error, change its severity (or its extent: remove it and mark again) when "
    "needed, and mark every error it missed.</p>")


@dataclass(frozen=True)
class Campaign:
    """A Pearmut campaign: its JSON, the segments it holds, its pre-filled spans and the notes of segments left out.

    ``data``: the JSON ``pearmut add`` reads; the segments it holds (1-based ids of the whole set, page order); its
    pre-filled spans per system (``spans``: ``system, seg_id, start, end, severity`` — mtdiag's offsets, after merging
    overlaps) and the notes of segments left out."""

    data: dict
    segments: list[int]
    spans: pd.DataFrame
    notes: list[str] = field(default_factory=list)


def campaign_segments(pairs: pd.DataFrame, top: int) -> list[int]:
    """The segments of the first ``top`` pairs, each once, in the order the queue first reaches them.

    The segments are the 0-based positions ``seg`` of ``pairs``."""
    if top < 1:
        raise ValueError(f"top must be at least 1, got {top}")
    return list(dict.fromkeys(int(s) for s in pairs["seg"].head(top)))


def model_keys(systems: list[str]) -> dict[str, str]:
    """Each system's key in Pearmut's ``tgt``: its name, or ``system-K`` for a name Pearmut cannot take as it is.

    ``K`` is the system's position from 1; a name Pearmut refuses (only digits) or would put into its page's markup
    unescaped gets ``system-K``."""
    keys: dict[str, str] = {}
    taken = set(systems)
    for position, system in enumerate(systems, start=1):
        if system and not system.isdigit() and not _UNSAFE_KEY.search(system) and system.strip() == system:
            keys[system] = system
            continue
        key = f"system-{position}"
        while key in taken:
            key += "'"
        keys[system] = key
        taken.add(key)
    return keys


def merged_spans(spans: pd.DataFrame) -> pd.DataFrame:
    """Spans with those of one output that overlap (share a character) merged into their union.

    The spans have ``start, end, severity, confidence, kind``, per output when ``system`` and ``seg`` are columns. The
    union has the most severe severity, the highest confidence, the kinds joined by ``+`` in alphabetical order
    (``number_mismatch+unsupported`` whichever span starts first: one combination, one name). Spans that only touch stay
    apart. Sorted by output and start; vectorised over every output at once."""
    keys = [c for c in ("system", "seg") if c in spans.columns]
    rows = spans.sort_values([*keys, "start", "end"], kind="stable").reset_index(drop=True)
    columns = [*keys, "start", "end", "severity", "confidence", "kind"]
    if not len(rows):
        return rows[columns]
    output = rows.groupby(keys, sort=False).ngroup().to_numpy() if keys else np.zeros(len(rows), dtype=np.int64)
    end = rows["end"].to_numpy(dtype=np.int64)
    reach = pd.Series(end).groupby(output).cummax().to_numpy()  # the furthest end so far within the output
    first = np.ones(len(rows), dtype=bool)
    first[1:] = (output[1:] != output[:-1]) | (rows["start"].to_numpy()[1:] >= reach[:-1])
    group = np.cumsum(first) - 1
    rank = rows["severity"].map({s: i for i, s in enumerate(SEVERITY_ORDER)}).to_numpy()
    merged = rows[first].reset_index(drop=True)[[*keys, "start"]]
    merged["end"] = np.maximum.reduceat(end, np.flatnonzero(first))
    merged["severity"] = np.array(SEVERITY_ORDER, dtype=object)[np.maximum.reduceat(rank, np.flatnonzero(first))]
    merged["confidence"] = np.maximum.reduceat(rows["confidence"].to_numpy(dtype=float), np.flatnonzero(first))
    kinds: list[set[str]] = [set() for _ in range(len(merged))]
    for g, kind in zip(group, rows["kind"]):
        kinds[g].add(kind)
    merged["kind"] = ["+".join(sorted(k)) for k in kinds]  # one name per combination, whichever span came first
    return merged[columns]


def campaign_id_for(name: str, protocol: str) -> str:
    """A campaign id from the test set's name: ``mtdiag-NAME-PROTOCOL``.

    Characters other than letters, digits, ``.``, ``_`` and ``-`` are replaced (the id names Pearmut's files and appears
    in its links)."""
    return _CAMPAIGN_ID.sub("_", f"mtdiag-{name}-{protocol}").strip("_")


def check_campaign_id(campaign_id: str) -> str:
    """``campaign_id`` when Pearmut can store and show it, else ``ValueError``.

    It must be: not empty, ``.`` or ``..``; no ``/`` or ``\\`` (it names the campaign's files); no control or format
    character (a line break, or U+202E, which turns the text of Pearmut's links around); at most
    :data:`MAX_CAMPAIGN_ID_BYTES` bytes of UTF-8 (a file name is at most 255 bytes, ``.jsonl`` added)."""
    shown = repr(campaign_id if len(campaign_id) <= 40 else campaign_id[:40] + "…")
    size = len(campaign_id.encode("utf-8", "surrogatepass"))
    if size > MAX_CAMPAIGN_ID_BYTES:
        raise ValueError(f"campaign id {shown}: {size:,} bytes of UTF-8; at most {MAX_CAMPAIGN_ID_BYTES} (it names "
                         "Pearmut's files)")
    if not campaign_id.strip() or campaign_id in (".", "..") or "/" in campaign_id or "\\" in campaign_id:
        raise ValueError(f"campaign id {shown}: Pearmut needs a name without '/' or '\\' (it names the "
                         "campaign's files)")
    hidden = next((c for c in campaign_id if unicodedata.category(c) in ("Cc", "Cf", "Cs", "Zl", "Zp")), None)
    if hidden is not None:
        raise ValueError(f"campaign id {shown}: no control or format character (U+{ord(hidden):04X}): it names "
                         "Pearmut's files and shows in its links")
    return campaign_id


def pearmut_campaign(report, pairs: pd.DataFrame | None = None, *, top: int = DEFAULT_TOP,
                     users: int = DEFAULT_USERS, protocol: str = "esa", threshold: float | None = None,
                     campaign_id: str | None = None, with_reference: bool = False,
                     strict: bool = False) -> Campaign:
    """A ``protocol`` (``esa``/``mqm``) Pearmut campaign of the first ``top`` pairs' segments for ``users`` annotators.

    ``pairs``: ``system, seg`` (0-based positions in ``report``) in queue order (the Segments page's, as filtered;
    default :func:`mtdiag.triage.ranking.worst_first` with ``strict``); mtdiag's spans pre-filled (module docstring):
    confidence ≥ ``threshold`` (None: the protocol's operating point, :func:`mtdiag.spans.protocol.protocol_spans`)."""
    if protocol not in PROTOCOLS:
        raise ValueError(f"protocol {protocol!r}: choose one of {', '.join(PROTOCOLS)}")
    if not 1 <= users <= MAX_USERS:
        raise ValueError(f"annotators (users): {users:,} — from 1 to {MAX_USERS}")
    name = PROTOCOLS[protocol]
    evalset = report.evalset
    campaign_id = check_campaign_id(campaign_id or campaign_id_for(evalset.name, protocol))
    pairs = ranking.worst_first(report, strict=strict) if pairs is None else pairs
    keys = model_keys(evalset.systems)
    has_source = bool(evalset.src.astype(str).str.len().gt(0).any())
    ref = evalset.ref_names[0] if evalset.ref_names and (with_reference or not has_source) else None
    positions = campaign_segments(pairs, top)
    predicted = protocol_spans(report, protocol) if threshold is None else predict_spans(report, threshold)
    merged = merged_spans(predicted[predicted["seg"].isin(positions)])
    by_output = merged.groupby(["system", "seg"], sort=False).indices
    columns = {c: merged[c].to_numpy() for c in ("start", "end", "severity", "kind", "confidence")}
    segs = np.asarray(positions, dtype=np.int64)
    sources = evalset.src.astype(str).to_numpy()[segs]
    references = evalset.refs[ref].astype(str).to_numpy()[segs] if ref is not None else None
    hyps = evalset.hyps.astype(str).to_numpy()[segs]
    items, kept, notes, chosen = [], [], [], []
    for row, seg in enumerate(segs.tolist()):
        seg_id = int(evalset.seg_ids[seg])
        texts = {"src": sources[row]} if has_source else {}
        if references is not None:
            texts["ref"] = references[row]
        outputs = dict(zip(evalset.systems, hyps[row].tolist()))
        media = [what for what, text in [*texts.items(), *outputs.items()] if text.startswith(MEDIA_PREFIXES)]
        if media:
            notes.append(f"segment {seg_id} left out: Pearmut would insert {', '.join(media)} as HTML, not show it "
                         "as text (it starts like a media tag)")
            continue
        error_spans = {}
        for system, text in outputs.items():
            at = by_output.get((system, seg), np.zeros(0, dtype=np.int64))
            error_spans[keys[system]] = _pearmut_spans(text, {c: v[at] for c, v in columns.items()}, name)
            chosen.append(at)
        items.append({"item_id": str(seg_id), **texts, "tgt": {keys[s]: t for s, t in outputs.items()},
                      "error_spans": error_spans,
                      IDS_KEY: {"seg_id": seg_id, "systems": {keys[s]: s for s in outputs}, "protocol": name}})
        kept.append(seg_id)
    if not items:
        raise ValueError("no segment to annotate: the queue as filtered is empty" if not notes else notes[0])
    info = {"assignment": "task-based", "protocol": name, "instructions": INSTRUCTIONS[name] + PREFILLED_NOTE}
    if name == "MQM":
        info |= {"sliders": [], "mqm_severities": MQM_SEVERITIES}
    task = [[item] for item in items]  # one page (Pearmut: a document) per segment
    data = {"campaign_id": campaign_id, "info": info, "data": [task] * users}  # one task, each annotator's
    spans = merged.iloc[np.concatenate(chosen)] if chosen else merged.iloc[:0]
    spans = spans.assign(seg_id=evalset.seg_ids[spans["seg"].to_numpy()])
    return Campaign(data, kept, spans[["system", "seg_id", "start", "end", "severity"]].reset_index(drop=True), notes)


def campaign_text(campaign: Campaign, limit_mb: float = MAX_CAMPAIGN_MB) -> list[str]:
    """The campaign's JSON file as pieces of text to write one after the other.

    The task is serialised once and written once per annotator. ``ValueError`` when the file would pass ``limit_mb``
    megabytes (its size is exact, computed from the one task before any piece is joined)."""
    data = campaign.data
    tasks = data["data"]
    head = json.dumps({key: value for key, value in data.items() if key != "data"}, ensure_ascii=False, indent=1)
    opening, closing = head[:head.rindex("}")].rstrip() + ',\n "data": [\n', "\n ]\n}\n"
    task = json.dumps(tasks[0], ensure_ascii=False, indent=1) if tasks else ""
    size = (len(opening.encode()) + len(tasks) * len(task.encode()) + 2 * max(len(tasks) - 1, 0)
            + len(closing))
    if size > limit_mb * 2**20:
        raise ValueError(f"the campaign would be {size / 2**20:,.1f} MB ({len(tasks):,} annotators × "
                         f"{len(task.encode()) / 2**20:,.2f} MB of pages); at most {limit_mb:,g} MB: fewer annotators "
                         "or pairs of the queue")
    pieces = [opening]
    for k in range(len(tasks)):
        pieces += [task, ",\n"] if k < len(tasks) - 1 else [task]
    return pieces + [closing]


def _pearmut_spans(text: str, spans: dict[str, np.ndarray], protocol: str) -> list[dict]:
    """Pearmut's ``error_spans`` of one output (``spans``: its merged spans' columns): offsets in UTF-16 units with
    the end inclusive, the severity as the protocol knows it (ESA: minor or major), no category, and mtdiag's kind
    and confidence."""
    if not len(spans["start"]):
        return []
    start_i, end_i = to_pearmut(text, spans["start"], spans["end"])
    severities = spans["severity"]
    if protocol == "ESA":
        severities = np.where(severities == "critical", "major", severities)
    return [{"start_i": int(a), "end_i": int(b), "severity": str(s), "category": None,
             IDS_KEY: {"kind": k, "confidence": round(float(c), 4)}}
            for a, b, s, k, c in zip(start_i, end_i, severities, spans["kind"], spans["confidence"])]

"""Term inputs and term matching (Alam et al. 2021 §2.2; ``docs/metrics.md``, "Terminology").

A *term occurrence* is one row of ``EvalSet.terms``: ``seg`` (0-based), ``src_term``, ``tgt_terms`` (target
alternatives joined by ``|``), ``ref_surface`` (the term's form in the reference, "" when unknown) and ``term_id``.
Three inputs produce them:

(a) inline tags ``<term id=… type=… src="…" tgt="alt1|alt2">surface</term>`` in source and reference lines (WMT21
    terminology / TICO-19 format), read case-insensitively (``<TERM>``): a reference tag pairs with a source tag of
    the same ``id`` — the j-th reference occurrence of an id with the j-th source occurrence — and, without ids, with
    the same ``src`` and ``tgt`` attributes; never by position, because reference tags follow the target language's
    word order (:func:`terms_from_tags`). The tags are stripped from the text every other metric sees
    (:func:`strip_term_tags`); a stray ``</term>`` or an unclosed ``<term …>`` is removed with a warning;
(b) a terms TSV ``seg_id, src_term, tgt_term`` (1-based ``seg_id``; ``|`` between alternatives; the TICO-19 names
    ``src_term_lemma``/``tgt_term_alternatives``/``ref_surface`` are accepted too) (:func:`terms_from_table`). The
    source term may be a lemma (``infection`` annotating ``infections``, as in the terminology paper's release):
    the metrics are target-side, so such a row is loaded; its source side is located case-insensitively, else by
    a lemma-like stem (:func:`find_source_term`), and the rows located neither way are counted in one warning;
(c) a glossary TSV ``source, target`` matched automatically (:func:`match_glossary`): an entry is an occurrence in
    a segment when its source term is in the source (whole tokens, case-insensitive, longest match first) and one
    of its targets is in the reference — the paper's recipe for silver annotations.

Matching (:func:`find_matches`): a term's matches in a token list are the leftmost non-overlapping matches of any
of its alternatives, taking the longest alternative at a position.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import pandas as pd

from mtdiag.core.errors import InputError

TERM_COLUMNS = ["seg", "term_id", "src_term", "tgt_terms", "ref_surface"]
_TAG = re.compile(r"<(/?)term\b([^<>]*+)>", re.IGNORECASE)
"""An opening or closing term tag. Linear on any line: tried only at a ``<``, its attributes (possessive)
stop at the next ``<`` or ``>``; a term's surface is the slice between an opening tag and the next closing one
(:func:`strip_term_tags`), never a lazy ``.*?`` tried again from every unclosed tag."""
_OPENING = re.compile(r"<term\b", re.IGNORECASE)
_STRAY_TAG = re.compile(r"</?term\b[^>]*+>?", re.IGNORECASE)
_ATTRIBUTE = re.compile(r"""(?<!\w)(\w++)\s*+=\s*+(?:"([^"]*+)"|'([^']*+)')""")
_ALIASES = {
    "seg_id": ("seg_id", "segment", "seg"),
    "src_term": ("src_term", "src_term_lemma", "source_term", "src"),
    "tgt_term": ("tgt_term", "tgt_term_alternatives", "tgt_alternatives", "target_term", "tgt"),
}


@dataclass(frozen=True)
class TermTag:
    """One inline ``<term>`` tag: its attributes and its surface text in the stripped line."""

    term_id: str
    src: str
    tgt: str
    surface: str


def empty_terms() -> pd.DataFrame:
    """An empty frame of term occurrences (:data:`TERM_COLUMNS`)."""
    return pd.DataFrame({c: pd.Series(dtype="int64" if c == "seg" else "object") for c in TERM_COLUMNS})


def strip_term_tags(line: str, name: str, line_no: int,
                    warnings: list[str] | None = None) -> tuple[str, list[TermTag]]:
    """The line without ``<term>`` tags (each replaced by its surface) and the tags in order.

    Tags are read case-insensitively (``<TERM …>…</Term>``). A nested tag or a tag without ``src``/``tgt`` raises
    :class:`InputError` naming the file and the line. A stray tag — a ``</term>`` without an opening tag, or a
    ``<term …>`` never closed — is removed from the text (so it is not scored as words) and reported in
    ``warnings`` (``"<file>: line <n>: …"``) when a list is given.
    """
    tags: list[TermTag] = []
    pieces, copied, opened = [], 0, None
    for match in _TAG.finditer(line):
        if match.group(1) != "/":
            opened = opened or match  # a later opening tag before the closing one is inside the term: nested
            continue
        if opened is None:
            continue  # a stray closing tag, removed below
        surface = line[opened.end():match.start()].strip()
        if _OPENING.search(surface):
            raise InputError(name, "nested <term> tags are not supported", line_no)
        attributes = {k.lower(): (v1 if v1 is not None else v2) for k, v1, v2 in _ATTRIBUTE.findall(opened.group(2))}
        missing = [a for a in ("src", "tgt") if not attributes.get(a, "").strip()]
        if missing:
            raise InputError(name, f"a <term> tag has no {' or '.join(missing)} attribute: "
                                   f"{line[opened.start():match.end()][:80]}", line_no)
        tags.append(TermTag(attributes.get("id", "").strip(), attributes["src"].strip(), attributes["tgt"].strip(),
                            surface))
        pieces += [line[copied:opened.start()], f" {surface} "]
        copied, opened = match.end(), None
    stripped = "".join(pieces) + line[copied:]
    strays = _STRAY_TAG.findall(stripped)
    if strays:
        if warnings is not None:
            listed = ", ".join(repr(tag[:40]) for tag in strays)
            warnings.append(f"{name}: line {line_no}: stray term tag(s) without a partner removed: {listed}")
        stripped = _STRAY_TAG.sub(" ", stripped)
    return " ".join(stripped.split()) if tags or strays else line, tags


def has_term_tags(lines: list[str]) -> bool:
    """Whether any line holds a ``<term`` or ``</term`` tag (any case)."""
    return any(_STRAY_TAG.search(line) for line in lines)


def terms_from_tags(src_tags: list[list[TermTag]], ref_tags: list[list[TermTag]] | None, name: str,
                    ref_name: str | None = None) -> pd.DataFrame:
    """Term occurrences from the tags of source lines, each with the surface of its partner reference tag.

    A reference tag's partner is the source tag of the same ``id`` in the segment (the j-th reference occurrence
    of an id pairs with the j-th source occurrence, ids naming terms that can occur twice); when the reference tag
    has no id, the source tag with the same ``src`` and ``tgt`` attributes, likewise in order. Never by position:
    reference tags follow the target language's word order (METRICS.md §3 (a)). A reference tag without a source
    partner raises :class:`InputError` naming ``ref_name`` (default ``name``) and the line; a source tag without a
    reference partner has no reference surface (its alternatives still count).
    """
    rows = []
    for seg, tags in enumerate(src_tags):
        surfaces: list[str | None] = [None] * len(tags)  # None: no reference partner (yet)
        for ref_tag in ref_tags[seg] if ref_tags is not None else []:
            key = (lambda t: t.term_id == ref_tag.term_id) if ref_tag.term_id else (
                lambda t: (t.src, t.tgt) == (ref_tag.src, ref_tag.tgt))
            partner = next((k for k, tag in enumerate(tags) if key(tag) and surfaces[k] is None), None)
            if partner is None:
                what = f"id {ref_tag.term_id!r}" if ref_tag.term_id else f"src {ref_tag.src!r} and tgt {ref_tag.tgt!r}"
                raise InputError(ref_name or name, f"the reference term tag {ref_tag.surface!r} has no source term tag "
                                                   f"with {what} in this segment", seg + 1)
            surfaces[partner] = ref_tag.surface
        for tag, surface in zip(tags, surfaces):
            rows.append((seg, tag.term_id, tag.src, tag.tgt, surface or ""))
    return pd.DataFrame(rows, columns=TERM_COLUMNS) if rows else empty_terms()


def _column(header: list[str], role: str) -> int | None:
    lowered = [h.strip().lower() for h in header]
    for alias in _ALIASES[role]:
        if alias in lowered:
            return lowered.index(alias)
    return None


def is_glossary_header(header: list[str]) -> bool:
    """Whether a header is a glossary's: ``source`` and ``target`` columns, and no ``seg_id``."""
    lowered = {h.strip().lower() for h in header}
    return {"source", "target"} <= lowered and _column(header, "seg_id") is None


def terms_from_table(header: list[str], rows: list[list[str]], name: str, n_segments: int,
                     src_tokens: list[list[str]] | None = None, tokenize=None,
                     warnings: list[str] | None = None) -> pd.DataFrame:
    """Term occurrences from a terms TSV (header on line 1, ``rows`` from line 2).

    With ``src_tokens`` (lower-cased source tokens per segment) and ``tokenize`` (text -> lower-cased tokens), each
    source term (its ``src_surface`` when the file has one) is looked for in its segment's source, as written
    (case-insensitively), else by a lemma-like stem (:func:`find_source_term`). A row not found as written is
    still loaded — the metrics are target-side, and term lists often give the source term as a lemma — and the
    number of such rows (how many by stem, how many not at all) is reported as one warning in ``warnings``.
    """
    seg_col, src_col, tgt_col = (_column(header, r) for r in ("seg_id", "src_term", "tgt_term"))
    if seg_col is None or src_col is None or tgt_col is None:
        raise InputError(name, f"a terms file needs the columns seg_id, src_term, tgt_term; found {', '.join(header)}", 1)
    lowered = [h.strip().lower() for h in header]
    optional = {key: lowered.index(key) if key in lowered else None
                for key in ("term_id", "ref_surface", "tgt_term_in_ref", "src_surface")}
    out, unmatched = [], []
    for i, row in enumerate(rows, start=2):
        if len(row) < len(header):
            raise InputError(name, f"expected {len(header)} columns, found {len(row)}", i)
        seg_text = row[seg_col].strip()
        if not seg_text.isdigit() or not 1 <= int(seg_text) <= n_segments:
            raise InputError(name, f"seg_id {seg_text!r} is not a segment number between 1 and {n_segments}", i)
        seg = int(seg_text) - 1
        src_term, tgt = row[src_col].strip(), row[tgt_col].strip()
        if not src_term or not tgt:
            raise InputError(name, "empty source or target term", i)
        ref_surface = next((row[optional[k]].strip() for k in ("ref_surface", "tgt_term_in_ref")
                            if optional[k] is not None), "")
        if src_tokens is not None and tokenize is not None:
            surface = row[optional["src_surface"]].strip() if optional["src_surface"] is not None else src_term
            surface_tokens = list(tokenize(surface))
            if not find_matches(src_tokens[seg], [surface_tokens]):
                unmatched.append((i, surface, seg, bool(find_source_term(src_tokens[seg], surface_tokens))))
        term_id = row[optional["term_id"]].strip() if optional["term_id"] is not None else ""
        out.append((seg, term_id, src_term, tgt, ref_surface))
    if unmatched and warnings is not None:
        line, surface, seg, _ = unmatched[0]
        stems = sum(found for *_, found in unmatched)
        warnings.append(f"{name}: {len(unmatched)} source term(s) do not occur as written in their segment's source "
                        f"({stems} found as a lemma-like stem, {len(unmatched) - stems} not at all; first: line {line}, "
                        f"{surface!r} in segment {seg + 1}); they are scored on the target side all the same")
    return pd.DataFrame(out, columns=TERM_COLUMNS) if out else empty_terms()


def alternatives(tgt_terms: str, ref_surface: str = "") -> list[str]:
    """A term's target alternatives (``|``-separated), plus its reference surface form when known."""
    alts = [a.strip() for a in tgt_terms.split("|") if a.strip()]
    if ref_surface and ref_surface not in alts:
        alts.append(ref_surface)
    return alts


def find_matches(tokens: list[str], alternatives_tokens: list[list[str]]) -> list[tuple[int, int]]:
    """Leftmost non-overlapping ``(start, end)`` matches of any alternative, the longest at each position."""
    options = sorted({tuple(a) for a in alternatives_tokens if a}, key=len, reverse=True)
    matches, i = [], 0
    while i < len(tokens):
        for alt in options:
            if tuple(tokens[i : i + len(alt)]) == alt:
                matches.append((i, i + len(alt)))
                i += len(alt)
                break
        else:
            i += 1
    return matches


STEM_SLACK = 2
MIN_STEM = 3


def _stem_equal(term_token: str, src_token: str) -> bool:
    """A lemma-like stem match: the source token starts with the term token without its last ``STEM_SLACK``
    characters (never fewer than ``MIN_STEM``): ``infection``~``infections``, ``child``~``children``."""
    stem = term_token[: max(len(term_token) - STEM_SLACK, MIN_STEM)]
    return src_token.startswith(stem)


def find_source_term(src_tokens: list[str], term_tokens: list[str]) -> list[tuple[int, int]]:
    """Where a source term is in a source (lower-cased tokens): the spans of its matches.

    Its exact matches (:func:`find_matches`), else the leftmost non-overlapping spans whose every token stem-matches the
    term's (:func:`_stem_equal`) — a term list may give the source term as a lemma (``infection`` for ``infections``).
    Empty when neither finds it."""
    exact = find_matches(src_tokens, [term_tokens])
    if exact or not term_tokens:
        return exact
    n, spans, i = len(term_tokens), [], 0
    while i + n <= len(src_tokens):
        if all(_stem_equal(t, s) for t, s in zip(term_tokens, src_tokens[i : i + n])):
            spans.append((i, i + n))
            i += n
        else:
            i += 1
    return spans


def match_glossary(entries: list[tuple[str, str]], src_tokens: list[list[str]], ref_tokens: list[list[str]],
                   tokenize) -> pd.DataFrame:
    """Silver term occurrences: glossary entries whose source is in the source and a target in the reference.

    ``entries`` are ``(source, target)`` pairs (targets may hold ``|`` alternatives); ``tokenize`` maps a text to
    lower-cased tokens with the options the token lists were made with. In each source, entries are matched at
    whole tokens, left to right, the longest entry first at each position, without overlap.
    """
    by_first: dict[str, list[tuple[tuple[str, ...], int]]] = {}
    for idx, (source, _) in enumerate(entries):
        toks = tuple(tokenize(source))
        if toks:
            by_first.setdefault(toks[0], []).append((toks, idx))
    for candidates in by_first.values():
        candidates.sort(key=lambda c: len(c[0]), reverse=True)
    target_tokens = [[list(tokenize(a)) for a in alternatives(target)] for _, target in entries]
    rows = []
    for seg, (src, ref) in enumerate(zip(src_tokens, ref_tokens)):
        i = 0
        while i < len(src):
            hit = next(((toks, idx) for toks, idx in by_first.get(src[i], []) if tuple(src[i : i + len(toks)]) == toks), None)
            if hit is None:
                i += 1
                continue
            toks, idx = hit
            if find_matches(ref, target_tokens[idx]):
                source, target = entries[idx]
                rows.append((seg, f"glossary:{idx + 1}", source, target, ""))
            i += len(toks)
    return pd.DataFrame(rows, columns=TERM_COLUMNS) if rows else empty_terms()


def _language_tokenizer(lang: str | None) -> str:
    """The tokeniser used to find terms at load time: ``ja-mecab`` for Japanese, ``zh`` for Chinese, else 13a."""
    return {"ja": "ja-mecab", "zh": "zh"}.get((lang or "").lower(), "13a")


def _lowered_tokens(lang: str | None):
    from mtdiag.core.tokenize import TokenizeOptions, tokenize_text

    options = TokenizeOptions(_language_tokenizer(lang), lowercase=True)
    return lambda text: tokenize_text(text, options)


@dataclass(frozen=True)
class TermFile:
    """A read terms or glossary table: display name, header and rows (row i is on line i + 2)."""

    name: str
    header: list[str]
    rows: list[list[str]]


def build_terms(src_lines: list[str] | None, ref_lines: list[str], lang_pair: str | None,
                files: list[TermFile], warnings: list[str] | None = None) -> pd.DataFrame:
    """Term occurrences from term files: terms TSVs as they are, glossary TSVs matched against the texts.

    Terms TSVs are read as they are (their source terms located in the source when there is one; the unlocated counted
    in one warning per file, appended to ``warnings``); glossary TSVs are matched against source and first reference
    (several glossaries are pooled)."""
    src_lang, tgt_lang = (lang_pair.split("-", 1) if lang_pair and "-" in lang_pair else (None, None))
    src_tokenize, tgt_tokenize = _lowered_tokens(src_lang), _lowered_tokens(tgt_lang)
    # the source is tokenised only when a term file needs it (at 1M lines the token lists are the loading peak)
    src_tokens = [list(src_tokenize(line)) for line in src_lines] if src_lines is not None and files else None
    frames, glossary = [], []
    for file in files:
        if is_glossary_header(file.header):
            lowered = [h.strip().lower() for h in file.header]
            i_src, i_tgt = lowered.index("source"), lowered.index("target")
            glossary += [(row[i_src].strip(), row[i_tgt].strip()) for row in file.rows
                         if row[i_src].strip() and row[i_tgt].strip()]
        else:
            frames.append(terms_from_table(file.header, file.rows, file.name, len(ref_lines), src_tokens, src_tokenize,
                                           warnings))
    if glossary:
        if src_tokens is None:
            raise InputError(files[0].name, "a glossary needs the source text to find its terms (give a source file)")
        frames.append(match_glossary(glossary, src_tokens, [list(tgt_tokenize(r)) for r in ref_lines], tgt_tokenize))
    frames = [f for f in frames if len(f)]
    return pd.concat(frames, ignore_index=True) if frames else empty_terms()

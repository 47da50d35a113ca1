"""Term inputs and term matching (Alam et al. 2021 §2.2; ``shared/spec/METRICS.md`` §3).

A *term occurrence* is one row of ``EvalSet.terms``: ``seg`` (0-based), ``src_term``, ``tgt_terms`` (target
alternatives joined by ``|``), ``ref_surface`` (the term's form in the reference, "" when unknown) and ``term_id``.
Three inputs produce them:

(a) inline tags ``<term id=… type=… src="…" tgt="alt1|alt2">surface</term>`` in source and reference lines (WMT21
    terminology / TICO-19 format): the k-th target tag pairs with the k-th source tag; the tags are stripped from
    the text every other metric sees (:func:`strip_term_tags`);
(b) a terms TSV ``seg_id, src_term, tgt_term`` (1-based ``seg_id``; ``|`` between alternatives; the TICO-19 names
    ``src_term_lemma``/``tgt_term_alternatives``/``ref_surface`` are accepted too) (:func:`terms_from_table`);
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

from mtdiag.errors import InputError

TERM_COLUMNS = ["seg", "term_id", "src_term", "tgt_terms", "ref_surface"]
_TAG = re.compile(r"<term\b([^>]*)>(.*?)</term\s*>", re.DOTALL)
_ATTRIBUTE = re.compile(r"""(\w+)\s*=\s*(?:"([^"]*)"|'([^']*)')""")
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
    return pd.DataFrame({c: pd.Series(dtype="int64" if c == "seg" else "object") for c in TERM_COLUMNS})


def strip_term_tags(line: str, name: str, line_no: int) -> tuple[str, list[TermTag]]:
    """The line without ``<term>`` tags (each replaced by its surface) and the tags in order.

    Malformed tags (an unclosed ``<term``, a nested tag, a tag without ``src``/``tgt``) raise :class:`InputError`
    naming the file and the line.
    """
    tags: list[TermTag] = []

    def replace(match: re.Match) -> str:
        attributes = {k: (v1 if v1 is not None else v2) for k, v1, v2 in _ATTRIBUTE.findall(match.group(1))}
        surface = match.group(2).strip()
        if "<term" in surface:
            raise InputError(name, "nested <term> tags are not supported", line_no)
        missing = [a for a in ("src", "tgt") if not attributes.get(a, "").strip()]
        if missing:
            raise InputError(name, f"a <term> tag has no {' or '.join(missing)} attribute: {match.group(0)[:80]}", line_no)
        tags.append(TermTag(attributes.get("id", ""), attributes["src"].strip(), attributes["tgt"].strip(), surface))
        return f" {surface} "

    stripped = _TAG.sub(replace, line)
    if re.search(r"</?term\b", stripped):
        raise InputError(name, "a <term> tag is not closed (or a </term> has no opening tag)", line_no)
    return " ".join(stripped.split()) if tags else line, tags


def has_term_tags(lines: list[str]) -> bool:
    return any("<term" in line for line in lines)


def terms_from_tags(src_tags: list[list[TermTag]], ref_tags: list[list[TermTag]] | None, name: str) -> pd.DataFrame:
    """Term occurrences from the tags of source lines, paired k-th with the reference lines' tags."""
    rows = []
    for seg, tags in enumerate(src_tags):
        targets = ref_tags[seg] if ref_tags is not None else []
        if ref_tags is not None and len(targets) not in (0, len(tags)):
            raise InputError(name, f"{len(tags)} source term tag(s) but {len(targets)} in the reference", seg + 1)
        for k, tag in enumerate(tags):
            ref_surface = targets[k].surface if targets else ""
            rows.append((seg, tag.term_id, tag.src, tag.tgt, ref_surface))
    return pd.DataFrame(rows, columns=TERM_COLUMNS) if rows else empty_terms()


def _column(header: list[str], role: str) -> int | None:
    lowered = [h.strip().lower() for h in header]
    for alias in _ALIASES[role]:
        if alias in lowered:
            return lowered.index(alias)
    return None


def is_glossary_header(header: list[str]) -> bool:
    lowered = {h.strip().lower() for h in header}
    return {"source", "target"} <= lowered and _column(header, "seg_id") is None


def terms_from_table(header: list[str], rows: list[list[str]], name: str, n_segments: int,
                     src_tokens: list[list[str]] | None = None, tokenize=None) -> pd.DataFrame:
    """Term occurrences from a terms TSV (header on line 1, ``rows`` from line 2).

    With ``src_tokens`` (lower-cased source tokens per segment) and ``tokenize`` (text -> lower-cased tokens), each
    source term (its ``src_surface`` when the file has one) must occur in its segment's source, else an
    :class:`InputError` names the line.
    """
    seg_col, src_col, tgt_col = (_column(header, r) for r in ("seg_id", "src_term", "tgt_term"))
    if seg_col is None or src_col is None or tgt_col is None:
        raise InputError(name, f"a terms file needs the columns seg_id, src_term, tgt_term; found {', '.join(header)}", 1)
    lowered = [h.strip().lower() for h in header]
    optional = {key: lowered.index(key) if key in lowered else None
                for key in ("term_id", "ref_surface", "tgt_term_in_ref", "src_surface")}
    out = []
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
            if not find_matches(src_tokens[seg], [list(tokenize(surface))]):
                raise InputError(name, f"the source term {surface!r} does not occur in segment {seg + 1}'s source", i)
        term_id = row[optional["term_id"]].strip() if optional["term_id"] is not None else ""
        out.append((seg, term_id, src_term, tgt, ref_surface))
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
    from mtdiag.tokenize import TokenizeOptions, tokenize_text

    options = TokenizeOptions(_language_tokenizer(lang), lowercase=True)
    return lambda text: tokenize_text(text, options)


@dataclass(frozen=True)
class TermFile:
    """A read terms or glossary table: display name, header and rows (row i is on line i + 2)."""

    name: str
    header: list[str]
    rows: list[list[str]]


def build_terms(src_lines: list[str] | None, ref_lines: list[str], lang_pair: str | None,
                files: list[TermFile]) -> pd.DataFrame:
    """Term occurrences from term files: terms TSVs are read as they are (checked against the source when there is
    one); glossary TSVs are matched against source and first reference (several glossaries are pooled)."""
    src_lang, tgt_lang = (lang_pair.split("-", 1) if lang_pair and "-" in lang_pair else (None, None))
    src_tokenize, tgt_tokenize = _lowered_tokens(src_lang), _lowered_tokens(tgt_lang)
    src_tokens = [list(src_tokenize(line)) for line in src_lines] if src_lines is not None else None
    frames, glossary = [], []
    for file in files:
        if is_glossary_header(file.header):
            lowered = [h.strip().lower() for h in file.header]
            i_src, i_tgt = lowered.index("source"), lowered.index("target")
            glossary += [(row[i_src].strip(), row[i_tgt].strip()) for row in file.rows
                         if row[i_src].strip() and row[i_tgt].strip()]
        else:
            frames.append(terms_from_table(file.header, file.rows, file.name, len(ref_lines), src_tokens, src_tokenize))
    if glossary:
        if src_tokens is None:
            raise InputError(files[0].name, "a glossary needs the source text to find its terms (give a source file)")
        frames.append(match_glossary(glossary, src_tokens, [list(tgt_tokenize(r)) for r in ref_lines], tgt_tokenize))
    frames = [f for f in frames if len(f)]
    return pd.concat(frames, ignore_index=True) if frames else empty_terms()

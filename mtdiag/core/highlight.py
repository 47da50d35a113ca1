"""Tokens + spans -> escaped HTML, for the dashboard's segment displays. Pure functions; no Streamlit.

Every piece of segment text that reaches HTML goes through :func:`html.escape` here (``quote=True``, so it is safe
in attribute values too): the dashboard renders these strings with ``unsafe_allow_html`` and a segment such as
``<script>…</script>`` or ``<img onerror=…>`` must show as text, never run. Nothing else in the code base builds
HTML from segment text.

Vocabulary:

- a :class:`Span` marks tokens ``[start, end)`` of one text with a *kind* (a CSS class, see :data:`KINDS`) and an
  optional tooltip;
- :func:`ngram_spans` finds every occurrence of n-grams (tokens joined by one space, as the metrics report them)
  in a token list;
- :func:`render_tokens` joins the tokens with spaces and wraps runs of tokens that carry the same kinds in one
  ``<span>``; :func:`render_text` escapes plain text (a source without tokens);
- :func:`render_alignment` draws an edit-operation alignment as aligned token pairs;
- long texts are cut (:data:`MAX_TOKENS` tokens, :data:`MAX_CHARS` characters) with a visible note.
"""

from __future__ import annotations

import bisect
import html
import re
from dataclasses import dataclass, field
from typing import Iterable, Mapping, Sequence

from mtdiag.core.offsets import token_offsets as locate
from mtdiag.core.tokenize import normalise_typography

MAX_TOKENS = 400  # tokens shown per text before the display is cut (a segment may have 10,000 words)
MAX_CHARS = 4_000  # characters shown of a plain text
MAX_ALIGNMENT = 400  # edit operations shown in an alignment strip
MAX_SPANS = 1_000  # marks drawn on one text (docs/dashboard.md): a file may put 16,000 error spans on one output
MAX_TITLES = 10  # tooltips listed on one stretch of marked text, then "… and N more"

# kind -> (CSS declarations, legend label). Colours are chosen to stay readable on light and dark themes.
KINDS: dict[str, tuple[str, str]] = {
    "over1": ("background:#f59e0b;color:#111;", "repeated word (over-matched unigram)"),
    "over": ("background:#fde68a;color:#111;", "part of an over-matched n-gram"),
    "under1": ("background:#60a5fa;color:#111;", "missing word (under-matched unigram)"),
    "under": ("background:#bfdbfe;color:#111;", "part of an under-matched n-gram"),
    "term_ok": ("outline:2px solid #16a34a;outline-offset:1px;", "term, translated correctly"),
    "term_miss": ("outline:2px dashed #dc2626;outline-offset:1px;", "term, missing from the hypothesis"),
    "window": ("text-decoration:underline dotted #7c3aed 2px;text-underline-offset:3px;", "term window"),
    "match": ("color:inherit;", "match"),
    "substitute": ("background:#fde68a;color:#111;", "substitution"),
    "insert": ("background:#bbf7d0;color:#111;", "insertion (word only in the hypothesis)"),
    "delete": ("background:#fecaca;color:#111;", "deletion (reference word missing)"),
    "diff": ("background:#e9d5ff;color:#111;", "differs from the other system"),
    "ngram": ("background:#a5f3fc;color:#111;", "the selected n-gram"),
    "loop": ("background:#fb923c;color:#111;", "repeated in a loop"),
    "moved": ("text-decoration:underline double #0f766e 2px;text-underline-offset:3px;", "out of the reference's word order"),
    "copied": ("background:#d4d4d8;color:#111;font-style:italic;", "copied from the source (untranslated)"),
    "number": ("outline:2px solid #b91c1c;outline-offset:1px;", "number not in the source"),
    "unshared": ("background:#f5d0fe;color:#111;", "used by no other system's output"),
    "language": ("background:#c7d2fe;color:#111;", "not in the target language"),
    "artefact": ("background:#e5e7eb;color:#111;text-decoration:line-through #6b7280 1px;",
                 "not part of the translation (an LLM's preamble, note or wrapper)"),
    "markup": ("outline:2px dashed #7c3aed;outline-offset:1px;", "placeholder or markup not in the source as written"),
    "unbalanced": ("background:#fca5a5;color:#111;font-weight:700;", "bracket or quote without its pair"),
    "human_critical": ("text-decoration:underline wavy #7f1d1d 3px;text-underline-offset:4px;font-weight:700;",
                       "human-marked critical error"),
    "human_major": ("text-decoration:underline wavy #b91c1c 2px;text-underline-offset:4px;", "human-marked major error"),
    "human_minor": ("text-decoration:underline wavy #d97706 1px;text-underline-offset:4px;", "human-marked minor error"),
    # metric-predicted spans (xCOMET): a dashed bottom border, so they combine with a human span's underline
    "metric_critical": ("border-bottom:3px dashed #1e3a8a;", "metric-predicted critical error (e.g. xCOMET)"),
    "metric_major": ("border-bottom:2px dashed #2563eb;", "metric-predicted major error"),
    "metric_minor": ("border-bottom:2px dashed #7dd3fc;", "metric-predicted minor error"),
    # spans mtdiag predicts (mtdiag.spans): a dotted line *over* the words, so they combine with a human span's
    # wavy underline and a metric span's dashed bottom border on the same words
    "predicted_critical": ("border-top:3px dotted #581c87;", "mtdiag-predicted critical error"),
    "predicted_major": ("border-top:2px dotted #9333ea;", "mtdiag-predicted major error"),
    "predicted_minor": ("border-top:2px dotted #c084fc;", "mtdiag-predicted minor error"),
}
HUMAN_KINDS = ("human_critical", "human_major", "human_minor")  # by severity, the legend's order
METRIC_KINDS = ("metric_critical", "metric_major", "metric_minor")
PREDICTED_KINDS = ("predicted_critical", "predicted_major", "predicted_minor")

STYLE = (
    "<style>"
    ".mtd-text{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:0.92rem;"
    "line-height:1.9;white-space:pre-wrap;overflow-wrap:anywhere;margin:0 0 0.4rem 0;}"
    ".mtd-label{font-weight:600;font-size:0.85rem;opacity:0.8;margin-right:0.4rem;}"
    ".mtd-note{font-size:0.8rem;opacity:0.75;font-style:italic;}"
    ".mtd-text span[class^='mtd-k-'],.mtd-text span[class*=' mtd-k-']{border-radius:3px;padding:0 1px;}"
    ".mtd-align{display:flex;flex-wrap:wrap;gap:4px 2px;font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,"
    "monospace;font-size:0.85rem;}"
    ".mtd-op{display:inline-flex;flex-direction:column;border:1px solid rgba(128,128,128,0.35);border-radius:3px;"
    "padding:0 3px;min-width:1.2em;text-align:center;}"
    ".mtd-op .mtd-h{border-bottom:1px solid rgba(128,128,128,0.35);}"
    ".mtd-op .mtd-gap{opacity:0.45;}"
    ".mtd-legend{font-size:0.8rem;margin:0.2rem 0 0.6rem 0;}"
    ".mtd-legend{display:flex;flex-wrap:wrap;gap:4px 0.9rem;}"
    ".mtd-legend span.mtd-sw{padding:0 4px;border-radius:3px;white-space:nowrap;}"
    + "".join(f".mtd-k-{kind}{{{css}}}" for kind, (css, _) in KINDS.items())
    + "</style>"
)


@dataclass(frozen=True)
class Span:
    """Tokens ``[start, end)`` of one text marked with ``kind`` (a key of :data:`KINDS`) and a tooltip."""

    start: int
    end: int
    kind: str
    title: str = ""


def escape(text: object) -> str:
    """``html.escape`` with quotes escaped too (safe in element content and in attribute values)."""
    return html.escape(str(text), quote=True)


def segment_number(seg: int) -> int:
    """The number people see for the core's 0-based segment index ``seg``: ``seg + 1``.

    1-based, like the lines of the files and the ``seg_id`` of terms and human-score TSVs (the one conversion at the
    display edge)."""
    return int(seg) + 1


_MD_PUNCTUATION = re.compile(r"([!-/:-@\[-`{-~])")  # every ASCII punctuation character
_MD_SHORTCODE = re.compile(r"\\:(?=\S)")  # an (escaped) colon that could open ':smile:', ':material/…:', 'http://'
_MD_LINE_START = re.compile(r"^[ \t]+", re.MULTILINE)  # 4 leading spaces would open a code block
WORD_JOINER = "\u2060"


def escape_markdown(text: object) -> str:
    """``text`` as Markdown source that Streamlit renders as exactly this text: user-derived text is data, never markup.

    It is for ``st.markdown``, ``st.error``, ``st.caption``, widget labels, progress text …

    - Every ASCII punctuation character is backslash-escaped (CommonMark §2.4 allows it for all of them), which
      neutralises links and images (``[x](javascript:…)``, ``![t](http://…)``), emphasis, headings, lists, code,
      tables, raw HTML (``<script>``, ``<img onerror>``: ``\\<`` is a literal ``<``), entities (``&lt;``), GFM
      autolinks (``http\\:\\/\\/``), Streamlit's directives (``:red[…]``, ``:blue-background[…]``) and LaTeX
      (``$…$``).
    - Emoji shortcodes (``:smile:``), Material icons (``:material/home:``) and GFM's ``http://`` links are found in
      the *text* after Markdown parsing, where a backslash is already gone; a word joiner (U+2060, invisible, zero
      width) is put after each colon followed by a non-space, so they stay literal. A copied text carries that
      invisible character. (``www.x.org`` and e-mail addresses may still become links whose text is literal.)
    - Leading spaces and tabs of a line become no-break spaces (U+00A0), so indentation cannot open a code block.

    HTML we build (:func:`escape`, ``st.html``) uses :func:`escape`, not this.
    """
    value = _MD_PUNCTUATION.sub(r"\\\1", str(text))
    value = _MD_SHORTCODE.sub("\\:" + WORD_JOINER, value)
    return _MD_LINE_START.sub(lambda m: "\u00a0" * len(m.group(0).expandtabs(4)), value)


def ngram_spans(tokens: Sequence[str], ngrams: Mapping[str, tuple[str, str]] | Iterable[str],
                kind: str = "ngram") -> list[Span]:
    """Every occurrence in ``tokens`` of each n-gram (tokens joined by one space).

    ``ngrams`` is either an iterable of n-gram strings (all marked ``kind``) or a mapping ``ngram -> (kind,
    title)``. Occurrences may overlap; each is one span.
    """
    if isinstance(ngrams, Mapping):
        wanted = {tuple(g.split(" ")): kt for g, kt in ngrams.items() if g}
    else:
        wanted = {tuple(g.split(" ")): (kind, "") for g in ngrams if g}
    by_order: dict[int, dict[tuple[str, ...], tuple[str, str]]] = {}
    for gram, kt in wanted.items():
        by_order.setdefault(len(gram), {})[gram] = kt
    spans = []
    tokens = list(tokens)
    for n, grams in sorted(by_order.items()):
        for i in range(len(tokens) - n + 1):
            hit = grams.get(tuple(tokens[i : i + n]))
            if hit is not None:
                spans.append(Span(i, i + n, hit[0], hit[1]))
    return spans


def _cut(tokens: Sequence[str], max_tokens: int | None) -> tuple[list[str], str]:
    tokens = list(tokens)
    if max_tokens is not None and len(tokens) > max_tokens:
        note = f"… shortened for display: showing {max_tokens:,} of {len(tokens):,} tokens"
        return tokens[:max_tokens], note
    return tokens, ""


def render_tokens(tokens: Sequence[str], spans: Iterable[Span] = (), *, max_tokens: int | None = MAX_TOKENS,
                  label: str | None = None) -> str:
    """The tokens as one ``<div class="mtd-text">``: joined by spaces, each run with the same kinds in one ``<span>``.

    Everything is escaped. Texts longer than ``max_tokens`` are cut with a note, and marks beyond :data:`MAX_SPANS` are
    not drawn (:func:`_marks`)."""
    shown, note = _cut(tokens, max_tokens)
    marks, _, dropped = _marks(spans, len(shown))
    parts: list[str] = []
    i = 0
    while i < len(shown):
        j = i + 1
        while j < len(shown) and marks[j].kinds == marks[i].kinds and marks[j].titles == marks[i].titles:
            j += 1
        parts.append(_marked(" ".join(shown[i:j]), marks[i].kinds, marks[i].titles))
        i = j
    if dropped:
        note = (f"{note}, " if note else "… shortened for display: ") + dropped
    return _wrap(" ".join(parts), label, note)


def token_offsets(text: str, tokens: Sequence[str]) -> list[tuple[int, int]] | None:
    """Character offsets of each token in ``text`` as written, or None when a token cannot be found.

    None means the tokeniser rewrote the text beyond recognition: then show the tokens instead.

    The tokens are located by :func:`mtdiag.core.offsets.token_offsets` in the text folded as tokens are (case,
    typography — ``„`` read as ``"``, ``…`` as ``...`` —, 13a's HTML entities), searching left to right, and mapped
    back to the characters they came from; spaces the tokeniser dropped and punctuation it split are no obstacle.
    """
    found = locate(text, [normalise_typography(token).lower() for token in tokens], lowercase=True, typography=True,
                   entities=True)  # a shown token is as written (an en dash stays one): folded as the text is
    if (found < 0).any():
        return None
    return [(int(start), int(end)) for start, end in found]


def char_span_tokens(offsets: Sequence[tuple[int, int]], start: int, end: int) -> tuple[int, int] | None:
    """The tokens ``[first, last + 1)`` whose characters overlap the character span ``[start, end)``; None if none do.

    The characters of the tokens are ``offsets`` (:func:`token_offsets`, in text order); an empty span marks the token
    it falls in. Two binary searches: locating every span of a long output costs spans × log(tokens)."""
    first = bisect.bisect_right(offsets, start, key=lambda offset: offset[1])  # the first token ending after start
    if start == end:
        return (first, first + 1) if first < len(offsets) and offsets[first][0] <= start else None
    last = bisect.bisect_left(offsets, end, key=lambda offset: offset[0])  # past the last token starting before end
    return (first, last) if first < last else None


def render_marked_text(text: str, tokens: Sequence[str], spans: Iterable[Span] = (), *,
                       max_tokens: int | None = MAX_TOKENS, max_chars: int | None = MAX_CHARS,
                       label: str | None = None) -> str:
    """The original ``text`` with the token ``spans`` highlighted on it (tokens located by :func:`token_offsets`).

    Falls back to :func:`render_tokens` when the tokens cannot be located. Escaped; cut after ``max_tokens`` tokens or
    ``max_chars`` characters with a note."""
    text = "" if text is None else str(text)
    spans = list(spans)
    tokens = list(tokens)
    n_shown = len(tokens) if max_tokens is None else min(len(tokens), max_tokens)
    offsets = token_offsets(text, tokens[:n_shown])
    if offsets is None:
        return render_tokens(tokens, spans, max_tokens=max_tokens, label=label)
    notes = []
    end = len(text)
    if n_shown < len(tokens):
        end = offsets[n_shown - 1][1] if n_shown else 0
        notes.append(f"showing {n_shown:,} of {len(tokens):,} tokens")
    if max_chars is not None and end > max_chars:
        end = max_chars
        notes.append(f"showing {max_chars:,} of {len(text):,} characters")
    while n_shown and offsets[n_shown - 1][1] > end:
        n_shown -= 1
    tok_marks, gap_marks, dropped = _marks(spans, n_shown)
    notes += [dropped] if dropped else []
    pieces: list[tuple[str, _Mark]] = []
    pos = 0
    for i in range(n_shown):
        start, stop = offsets[i]
        if start > pos:
            pieces.append((text[pos:start], gap_marks[i - 1] if i > 0 else _UNMARKED))
        pieces.append((text[start:stop], tok_marks[i]))
        pos = stop
    if pos < end:
        pieces.append((text[pos:end], _UNMARKED))
    merged: list[list] = []
    for piece, mark in pieces:
        if merged and merged[-1][1].kinds == mark.kinds and merged[-1][1].titles == mark.titles:
            merged[-1][0] += piece
        else:
            merged.append([piece, mark])
    note = ("… shortened for display: " + ", ".join(notes)) if notes else ""
    return _wrap("".join(_marked(piece, mark.kinds, mark.titles) for piece, mark in merged), label, note)


@dataclass
class _Mark:
    """The kinds and the titles (in the order the spans give them, each once) on one token or gap."""

    kinds: set[str] = field(default_factory=set)
    titles: list[str] = field(default_factory=list)


_UNMARKED = _Mark()


def _marks(spans: Iterable[Span], n: int) -> tuple[list[_Mark], list[_Mark], str]:
    """The marks of each of ``n`` tokens and of the gap after each (marked when one span covers both its
    neighbours), and a note when spans beyond :data:`MAX_SPANS` were left undrawn.

    Linear in the spans: one (kind, title) marks a token once, so each span only visits the tokens that no
    earlier span of the same kind and title covered (the next unmarked token is found through a table of jumps
    with path compression); a token's titles come in the order of the first span giving each, as when every span
    visits its tokens."""
    spans = list(spans)
    note = ""
    if len(spans) > MAX_SPANS:
        note = f"drawing the first {MAX_SPANS:,} of {len(spans):,} marks"
        spans = spans[:MAX_SPANS]
    tokens, gaps = [_Mark() for _ in range(n)], [_Mark() for _ in range(n)]
    titled: list[set[str]] = [set() for _ in range(2 * n)]  # the titles of tokens, then of gaps, for membership
    jumps: dict[tuple[str, str], dict[int, int]] = {}
    for span in spans:
        if span.kind not in KINDS:
            raise ValueError(f"unknown highlight kind {span.kind!r}; known: {', '.join(KINDS)}")
        first, last = max(span.start, 0), min(span.end, n) - 1
        jump = jumps.setdefault((span.kind, span.title), {})
        for marks, offset, stop in ((tokens, 0, last), (gaps, n, last - 1)):
            i = _unmarked(jump, offset + first)
            while i <= offset + stop:
                mark = marks[i - offset]
                mark.kinds.add(span.kind)
                if span.title and span.title not in titled[i]:
                    titled[i].add(span.title)
                    mark.titles.append(span.title)
                jump[i] = i + 1
                i = _unmarked(jump, i + 1)
    return tokens, gaps, note


def _unmarked(jump: dict[int, int], i: int) -> int:
    """The first position from ``i`` on that ``jump`` does not pass over (marked positions jump to the next one);
    the path is compressed so a position is passed over once."""
    found = i
    while found in jump:
        found = jump[found]
    while i in jump and jump[i] != found:
        jump[i], i = found, jump[i]
    return found


def _marked(piece: str, kinds: set[str], titles: list[str]) -> str:
    """One stretch of text, escaped, in a ``<span>`` of its kinds and titles (the first :data:`MAX_TITLES`) when
    it has any."""
    if not kinds:
        return escape(piece)
    classes = " ".join(f"mtd-k-{k}" for k in sorted(kinds))
    if len(titles) > MAX_TITLES:
        titles = titles[:MAX_TITLES] + [f"… and {len(titles) - MAX_TITLES:,} more"]
    title = f' title="{escape("; ".join(titles))}"' if titles else ""
    return f'<span class="{classes}"{title}>{escape(piece)}</span>'


def render_text(text: str, *, max_chars: int | None = MAX_CHARS, label: str | None = None) -> str:
    """Plain text (e.g. the source, which is not tokenised) escaped, cut after ``max_chars`` with a note."""
    text = "" if text is None else str(text)
    note = ""
    if max_chars is not None and len(text) > max_chars:
        note = f"… shortened for display: showing {max_chars:,} of {len(text):,} characters"
        text = text[:max_chars]
    return _wrap(escape(text), label, note)


def _wrap(body: str, label: str | None, note: str) -> str:
    head = f'<span class="mtd-label">{escape(label)}</span>' if label else ""
    empty = '<span class="mtd-note">(empty)</span>' if not body else ""
    tail = f' <span class="mtd-note">{escape(note)}</span>' if note else ""
    return f'<div class="mtd-text">{head}{body}{empty}{tail}</div>'


def render_alignment(rows: Iterable[tuple[str, str, str]], *, max_ops: int | None = MAX_ALIGNMENT,
                     hyp_label: str = "hyp", ref_label: str = "ref") -> str:
    """An edit-operation alignment ``(op, hyp token, ref token)`` as aligned pairs, coloured by operation.

    The hypothesis token stands above the reference token; the operations are match / substitute / insert / delete."""
    rows = list(rows)
    note = ""
    if max_ops is not None and len(rows) > max_ops:
        note = f"… shortened for display: showing {max_ops:,} of {len(rows):,} operations"
        rows = rows[:max_ops]
    cells = [
        f'<span class="mtd-op"><span class="mtd-h mtd-note">{escape(hyp_label)}</span>'
        f'<span class="mtd-note">{escape(ref_label)}</span></span>'
    ]
    for op, hyp, ref in rows:
        if op not in KINDS:
            raise ValueError(f"unknown edit operation {op!r}")
        h = escape(hyp) if hyp else '<span class="mtd-gap">·</span>'
        r = escape(ref) if ref else '<span class="mtd-gap">·</span>'
        cells.append(f'<span class="mtd-op mtd-k-{op}" title="{escape(op)}"><span class="mtd-h">{h}</span>'
                     f"<span>{r}</span></span>")
    tail = f'<div class="mtd-note">{escape(note)}</div>' if note else ""
    return f'<div class="mtd-align">{"".join(cells)}</div>{tail}'


def render_legend(kinds: Iterable[str]) -> str:
    """A one-line legend for the given highlight kinds."""
    items = []
    for kind in kinds:
        _, label = KINDS[kind]
        items.append(f'<span class="mtd-sw mtd-k-{kind}">{escape(label)}</span>')
    return f'<div class="mtd-legend">{"".join(items)}</div>'


def diff_spans(ops: Iterable[tuple[str, int, int]], side: str) -> list[Span]:
    """Spans marking the tokens of one side that an alignment of two token lists does not match.

    ``ops`` are ``(op, a_pos, b_pos)`` rows of an alignment of text *a* against text *b* (op as in
    :func:`render_alignment`; a position of -1 means no token on that side); ``side`` is ``"a"`` or ``"b"``.
    """
    if side not in ("a", "b"):
        raise ValueError("side must be 'a' or 'b'")
    positions = sorted({int(a if side == "a" else b) for op, a, b in ops
                        if op != "match" and (a if side == "a" else b) is not None and (a if side == "a" else b) >= 0})
    spans: list[Span] = []
    for pos in positions:  # runs of adjacent differing tokens become one span
        if spans and spans[-1].end == pos:
            spans[-1] = Span(spans[-1].start, pos + 1, "diff")
        else:
            spans.append(Span(pos, pos + 1, "diff"))
    return spans

"""Where each token of an output sits in the output *as written*: character offsets (Python string indices, as
xCOMET and the human MQM/ESA spans give them — code points, not UTF-8 bytes: an emoji is one character).

The report's tokens are the text tokenised by sacrebleu (13a, zh, ja-mecab, …), then case-folded and with
typographic variants written the plain way (``docs/metrics.md``, "Typography"): ``“matter”`` becomes ``"``
``matter`` ``"``, ``…`` becomes ``...``, and 13a decodes ``&amp;``, ``&quot;``, ``&lt;``, ``&gt;``. Each token is
searched for, left to right, in the text folded the same way, and every position of the folded text maps back to
the characters of the original it came from (an entity's one character to the whole entity). A token that cannot
be found (a tokeniser that rewrote it beyond recognition) gets ``(-1, -1)`` and the search goes on after the
previous token: one odd token never hides the others.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from mtdiag.core.tokenize import normalise_typography

ENTITIES_13A = {"&quot;": '"', "&amp;": "&", "&lt;": "<", "&gt;": ">"}  # what sacrebleu's 13a decodes


def _fold_char(piece: str, lowercase: bool, typography: bool) -> str:
    piece = normalise_typography(piece) if typography else piece
    return piece.lower() if lowercase else piece


def fold(text: str, *, lowercase: bool = True, typography: bool = True,
         entities: bool = False) -> tuple[str, np.ndarray | None, np.ndarray | None]:
    """``(folded, first, last)``: ``text`` folded as the tokens are, with where each folded position comes from.

    For each folded position, the first and one-past-the-last character of ``text`` it stands for (both None when
    position i is character i). ``entities``: decode 13a's four HTML entities."""
    folded = _fold_char(text, lowercase, typography)
    if len(folded) == len(text) and not (entities and "&" in text):
        return folded, None, None
    pieces: list[str] = []
    first: list[int] = []
    last: list[int] = []
    i = 0
    while i < len(text):  # rare: '…' -> '...', 'İ' -> 'i̇', '&amp;' -> '&'
        width, piece = 1, None
        if entities and text[i] == "&":
            entity = next((e for e in ENTITIES_13A if text.startswith(e, i)), None)
            if entity is not None:
                width, piece = len(entity), ENTITIES_13A[entity]
        piece = _fold_char(text[i] if piece is None else piece, lowercase, typography)
        pieces.append(piece)
        first.extend([i] * len(piece))
        last.extend([i + width] * len(piece))
        i += width
    return "".join(pieces), np.asarray(first, dtype=np.int64), np.asarray(last, dtype=np.int64)


def token_offsets(text: str, tokens: Sequence[str], *, lowercase: bool = True, typography: bool = True,
                  entities: bool = False) -> np.ndarray:
    """``offsets[i] = (start, end)``: the characters of ``text`` that token i covers, ``(-1, -1)`` if not located.

    The tokens are as the report holds them — made from the text by a tokeniser (``entities``: the 13a tokeniser,
    which decodes four HTML entities), then folded as ``lowercase`` and ``typography`` say (``TokenizeOptions``) — and
    are searched for in the text folded the same way."""
    folded, first, last = fold(text, lowercase=lowercase, typography=typography, entities=entities)
    starts, ends = [], []
    pos = 0
    find = folded.find
    for token in tokens:
        start = find(token, pos) if token else -1
        if start < 0:
            starts.append(-1)
            ends.append(-1)
            continue
        pos = start + len(token)
        starts.append(start)
        ends.append(pos)
    offsets = np.array([starts, ends], dtype=np.int64).T.reshape(len(starts), 2)
    if first is not None:
        located = offsets[:, 0] >= 0
        offsets[located, 0] = first[offsets[located, 0]]
        offsets[located, 1] = last[offsets[located, 1] - 1]
    return offsets


# every character Python's ``str.isspace`` calls white space lies below U+3001 (U+3000, the ideographic space, is the
# last): the characters a token cannot hold when the tokens, joined, are the folded text without its white space
_SPACES = np.array([c for c in range(0x3001) if chr(c).isspace()], dtype=np.uint32)


def _code_points(text: str) -> np.ndarray:
    """The code points of ``text``, one uint32 each."""
    return np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)


def outputs_token_offsets(texts: Sequence[str], tokens: Sequence[str], bounds: np.ndarray, *,
                          lowercase: bool = True, typography: bool = True, entities: bool = False) -> np.ndarray:
    """:func:`token_offsets` of many texts at once: ``offsets[k] = (start, end)``, the characters of token k.

    The tokens of text i are ``tokens[bounds[i]:bounds[i + 1]]``, and their characters are those of text i. Where
    the tokens of a text, joined, are its folded text without white space (nearly always: a tokeniser splits and
    keeps every other character), token j starts at the folded text's position of its first non-space character —
    exactly where :func:`token_offsets`' left-to-right search finds it, since a token holding no white space cannot
    start on white space — so every token of those texts is placed by one vectorised pass over all of them. The
    other texts (a fold that changes a text's length, a decoded entity, a token the tokeniser rewrote) are located
    one by one by :func:`token_offsets`. The result is identical to calling it on each text."""
    bounds = np.asarray(bounds, dtype=np.int64)
    n_texts = len(texts)
    offsets = np.full((int(bounds[-1]) if len(bounds) else 0, 2), -1, dtype=np.int64)
    if n_texts == 0:
        return offsets
    folded = [_fold_char(text, lowercase, typography) for text in texts]
    plain = np.fromiter((len(f) == len(t) and not (entities and "&" in t) for f, t in zip(folded, texts)),
                        dtype=bool, count=n_texts)
    token_lengths = np.fromiter(map(len, tokens), dtype=np.int64, count=len(tokens))
    # the folded texts' characters, and which text each belongs to
    text_lengths = np.fromiter(map(len, folded), dtype=np.int64, count=n_texts)
    text_start = np.cumsum(text_lengths) - text_lengths
    chars = _code_points("".join(folded))
    char_text = np.repeat(np.arange(n_texts), text_lengths)
    solid = np.flatnonzero(~np.isin(chars, _SPACES))  # positions (in all texts) of the non-space characters
    solid_text = char_text[solid]
    # the tokens' characters, and which text each belongs to
    tokens_per_text = np.diff(bounds)
    token_text = np.repeat(np.arange(n_texts), tokens_per_text)
    token_chars = _code_points("".join(tokens))
    token_char_text = np.repeat(token_text, token_lengths)
    same = plain & (np.bincount(solid_text, minlength=n_texts) == np.bincount(token_char_text, minlength=n_texts))
    # among the texts of as many non-space characters as token characters, those whose characters differ
    kept_solid, kept_tokens = same[solid_text], same[token_char_text]
    differs = chars[solid[kept_solid]] != token_chars[kept_tokens]
    same[np.unique(solid_text[kept_solid][differs])] = False
    # place the tokens of the texts that agree: token j's first character is non-space character number c_j
    placed = same[token_text] & (token_lengths > 0)
    solid_start = np.cumsum(np.bincount(solid_text, minlength=n_texts)) - np.bincount(solid_text, minlength=n_texts)
    token_char_start = np.cumsum(token_lengths) - token_lengths
    text_token_chars = np.bincount(token_char_text, minlength=n_texts)
    text_char_start = np.cumsum(text_token_chars) - text_token_chars
    first = solid_start[token_text] + token_char_start - text_char_start[token_text]
    idx = np.flatnonzero(placed)
    offsets[idx, 0] = solid[first[idx]] - text_start[token_text[idx]]
    offsets[idx, 1] = solid[first[idx] + token_lengths[idx] - 1] + 1 - text_start[token_text[idx]]
    for i in np.flatnonzero(~same):
        a, b = int(bounds[i]), int(bounds[i + 1])
        offsets[a:b] = token_offsets(texts[i], list(tokens[a:b]), lowercase=lowercase, typography=typography,
                                     entities=entities).reshape(b - a, 2)
    return offsets


def span_characters(offsets: np.ndarray, first: int, last: int) -> tuple[int, int] | None:
    """The characters ``[start, end)`` from token ``first`` to token ``last`` (inclusive); None if none was located.

    They run from the first located token of that range to the last."""
    start, end = int(offsets[first, 0]), int(offsets[last, 1])
    if start >= 0 and end >= 0:  # both ends located: the usual case
        return start, end
    found = np.flatnonzero(offsets[first:last + 1, 0] >= 0)
    if len(found) == 0:
        return None
    return int(offsets[first + found[0], 0]), int(offsets[first + found[-1], 1])

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

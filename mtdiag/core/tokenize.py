"""Tokenisation, done once per distinct text and shared by every metric.

Tokenisers are sacrebleu's (``none``, ``13a``, ``intl``, ``zh``, ``ja-mecab``, ``char``), applied to the
right-stripped line exactly as sacrebleu's BLEU does, then split on whitespace; ``13a`` and ``zh``'s
post-tokeniser are transcribed here without regular-expression templates (faster, and tested to give sacrebleu's
strings on every dev text). Lower-casing is an explicit
option (default on, as the seed papers report case-insensitive scores; see ``docs/metrics.md``, "Tokens and case").

Decision (``docs/metrics.md``, "Tokens and case"): a text is tokenised **as written** and the tokens
are then case-folded, for every tokeniser. A segmenter with a dictionary must see the original case: folded first,
MeCab splits the full-width ``Ｇ７`` into ``ｇ`` ``７`` and cuts ``VAT`` differently. For the case-agnostic tokenisers
(``13a``, ``none``, ``intl``, ``zh``, ``char``) both orders give the same tokens (a test checks it on the sample
data), so the lower-cased tokens are served from the one cased pass. sacrebleu's own order (fold, then tokenise)
is kept only inside sacrebleu-identical metrics that lower-case themselves (TER, :mod:`mtdiag.metrics.ter`); BLEU
and chrF are case-sensitive and use the cased tokens.

The result of tokenising an :class:`~mtdiag.core.evalset.EvalSet` is a :class:`TokenizedSet`: every text as an array of
integer token ids over one shared vocabulary, which the n-gram counter (:mod:`mtdiag.metrics.ngram_index`) and the edit
distance (rapidfuzz) consume directly.
"""

from __future__ import annotations

import itertools
import re
import unicodedata
from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import Callable, Hashable, Iterable, Sequence

import numpy as np
import pandas as pd

TOKENIZERS: tuple[str, ...] = ("13a", "none", "intl", "zh", "ja-mecab", "char")
DEFAULT_TOKENIZER = "13a"
DEFAULT_LOWERCASE = True
DEFAULT_TYPOGRAPHY = True  # normalise typographic variants before the diagnostic metrics see a text

# Typographic variants that write the same thing (docs/metrics.md, "Typography"): curly and low quotes, primes and
# guillemets -> ASCII quotes; en/em/figure dashes, the minus sign and non-breaking hyphens -> "-"; the ellipsis
# character -> "..."; full-width ASCII forms (U+FF01-FF5E) -> their ASCII letters, digits and signs; ideographic,
# non-breaking, thin and other fixed-width spaces -> " ". Deliberately not NFKC: that also rewrites ligatures,
# superscripts, CJK compatibility ideographs and half-width katakana, which are spelling, not typography.
_TYPOGRAPHY = str.maketrans(
    {**{c: "'" for c in "\u2018\u2019\u201a\u201b\u2032\u2035\u2039\u203a\uff07"},
     **{c: '"' for c in "\u201c\u201d\u201e\u201f\u2033\u2036\u00ab\u00bb\uff02"},
     **{c: "-" for c in "\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe58\ufe63\uff0d"},
     "\u2026": "...",
     **{chr(c): chr(c - 0xFEE0) for c in range(0xFF01, 0xFF5F) if chr(c) not in "\uff02\uff07\uff0d"},
     **{c: " " for c in "\u00a0\u2007\u2009\u200a\u202f\u205f\u3000"}}
)


_TYPOGRAPHIC = re.compile("[" + "".join(map(chr, _TYPOGRAPHY)) + "]")


def normalise_typography(text: str) -> str:
    """``text`` with typographic variants written the plain way.

    E.g. ``don’t`` -> ``don't``, ``„Haus“`` -> ``"Haus"``, ``１０％`` -> ``10%``, ``–`` -> ``-``: one ``str.translate``,
    only when the text has such a character (a regular-expression scan is far faster than a translation that changes
    nothing)."""
    return text.translate(_TYPOGRAPHY) if _TYPOGRAPHIC.search(text) else text


_LANGUAGE_TOKENIZERS = {"ja": "ja-mecab", "zh": "zh"}

_TOKENIZER_CLASSES = {
    "none": ("sacrebleu.tokenizers.tokenizer_none", "NoneTokenizer"),
    "intl": ("sacrebleu.tokenizers.tokenizer_intl", "TokenizerV14International"),
    "zh": ("sacrebleu.tokenizers.tokenizer_zh", "TokenizerZh"),
    "ja-mecab": ("sacrebleu.tokenizers.tokenizer_ja_mecab", "TokenizerJaMecab"),
    "char": ("sacrebleu.tokenizers.tokenizer_char", "TokenizerChar"),
}


def default_tokenizer(lang: str | None) -> str:
    """The default tokeniser for a target language, as sacrebleu chooses it.

    ``ja-mecab`` for Japanese, ``zh`` for Chinese, ``13a`` otherwise (and when the language is unknown)."""
    return _LANGUAGE_TOKENIZERS.get((lang or "").lower().split("-")[0], DEFAULT_TOKENIZER)


@dataclass(frozen=True)
class TokenizeOptions:
    """How texts become tokens.

    ``tokenize``: a sacrebleu tokeniser name; ``lowercase``: fold the tokens' case; ``typography``: normalise
    typographic variants first (:func:`normalise_typography`)."""

    tokenize: str = DEFAULT_TOKENIZER
    lowercase: bool = DEFAULT_LOWERCASE
    typography: bool = DEFAULT_TYPOGRAPHY

    def __post_init__(self) -> None:
        if self.tokenize not in TOKENIZERS:
            raise ValueError(f"unknown tokenizer {self.tokenize!r}; choose one of {', '.join(TOKENIZERS)}")

    @property
    def signature_fields(self) -> tuple[tuple[str, str], ...]:
        """``tok``, ``case`` and ``typo`` as signature fields."""
        return (("tok", self.tokenize), ("case", "lc" if self.lowercase else "mixed"),
                ("typo", "norm" if self.typography else "keep"))

    def fold(self, token: str) -> str:
        """What a cased, unnormalised token becomes under these options (for lining display tokens up)."""
        token = normalise_typography(token) if self.typography else token
        return token.lower() if self.lowercase else token


# sacrebleu's ``TokenizerRegexp`` (the post-tokeniser of ``13a`` and ``zh``: mteval-v13a's rules) runs four
# ``re.sub`` calls with templates, which Python 3.11 expands in Python once per match — the first rule pads every
# space. :class:`_PostTokenizer` gives the same string with no template:
# 1. ``re.sub(r'(C)', r' \1 ', s)`` is exactly ``' '.join(re.split(r'(C)', s))`` (each captured separator gets one
#    space on either side, consecutive ones included);
# 2.-4. padding a period or comma after a non-digit, one before a non-digit, and a dash after a digit only ever adds
#    whitespace next to those characters, which the final ``split`` folds; the rules see the same neighbours in the
#    original text, except where two periods/commas touch (``...``, ``.,``): there sacrebleu's matches consume each
#    other, so such a text keeps sacrebleu's own three substitutions. With no touching pair, rules 1-4 are one
#    split on lookarounds. ``tests/test_tokenize_fast.py`` checks the equality on every dev text and 20,000 strings
#    of the characters the rules treat specially.
_RULE_1 = r"[\{-\~\[-\` -\&\(-\+\:-\@\/]"
_SPACED = re.compile(f"({_RULE_1})")
# each alternative starts with the character it pads (the engine then skips other characters fast)
_PADDED = re.compile(f"({_RULE_1}|[.,](?:(?<=[^0-9][.,])|(?=[^0-9]))|-(?<=[0-9]-))")
_TOUCHING = re.compile(r"[.,][.,]")


class _PostTokenizer:
    """sacrebleu's ``TokenizerRegexp``, string for string, without template expansion (see above)."""

    def __init__(self) -> None:
        self._rules = [(re.compile(r"([^0-9])([\.,])"), r"\1 \2 "),
                       (re.compile(r"([\.,])([^0-9])"), r" \1 \2"),
                       (re.compile(r"([0-9])(-)"), r"\1 \2 ")]

    def __call__(self, line: str) -> str:
        if _TOUCHING.search(line) is None:
            return " ".join(" ".join(_PADDED.split(line)).split())
        line = " ".join(_SPACED.split(line))
        for pattern, replacement in self._rules:
            line = pattern.sub(replacement, line)
        return " ".join(line.split())


class _Tokenizer13a:
    """sacrebleu's ``Tokenizer13a`` (mteval-v13a): its language-independent part transcribed (``<skipped>`` and
    line breaks removed, four HTML entities decoded), then :class:`_PostTokenizer`. Written out so that scoring with
    the default tokeniser does not import the ``sacrebleu`` package (~30 ms a process); the test suite checks every
    result against sacrebleu's class."""

    _post = _PostTokenizer()

    def __call__(self, line: str) -> str:
        line = line.replace("<skipped>", "").replace("-\n", "").replace("\n", " ")
        if "&" in line:
            line = line.replace("&quot;", '"').replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">")
        return self._post(f" {line} ")


@lru_cache(maxsize=None)
def sacrebleu_tokenizer(name: str) -> Callable[[str], str]:
    """The sacrebleu tokeniser for ``name`` (imported lazily: MeCab is heavy).

    ``13a`` is :class:`_Tokenizer13a`; ``zh`` gets the faster, identical :class:`_PostTokenizer` in place of
    sacrebleu's regular-expression post-tokeniser."""
    if name not in TOKENIZERS:
        raise ValueError(f"unknown tokenizer {name!r}; choose one of {', '.join(TOKENIZERS)}")
    if name == "13a":
        return _Tokenizer13a()
    import importlib

    module_name, class_name = _TOKENIZER_CLASSES[name]
    try:
        tokenizer = getattr(importlib.import_module(module_name), class_name)()
    except RuntimeError as exc:  # sacrebleu raises this when MeCab/ipadic are missing
        raise RuntimeError(f"tokenizer {name!r} is not available: {exc}".strip()) from exc
    if name == "zh":
        tokenizer._post_tokenizer = _PostTokenizer()
    return tokenizer


@lru_cache(maxsize=2**18)
def _tokenize_cased(name: str, text: str) -> str:
    """``text`` tokenised by ``name``, its tokens joined by single spaces. One string, not a tuple of tokens: the
    cache holds far less, and :func:`tokenize_distinct` splits all texts at once (``13a`` already joins so)."""
    tokenized = sacrebleu_tokenizer(name)(text.rstrip())
    return tokenized if name == "13a" else " ".join(tokenized.split())


@lru_cache(maxsize=2**18)
def _tokenize_lowered(name: str, text: str) -> str:
    """The cased tokens, each lower-cased (tokenise first, then fold: see the module docstring). Folding the
    tokens joined by spaces is folding each: no lower-case mapping makes or removes whitespace, and the one
    context-dependent mapping (Greek final sigma) stops at a space."""
    return _tokenize_cased(name, text).lower()


def clear_token_caches() -> None:
    """Forget every cached tokenisation.

    The caches keep the texts of every set tokenised since and their tokens (up to 2**18 texts each); a long-running
    server clears them with its expired reports (:func:`mtdiag.scoring.evaluate.clear_caches`), and a text is
    tokenised again when next needed."""
    _tokenize_cased.cache_clear()
    _tokenize_lowered.cache_clear()


def _tokenized(text: str, options: TokenizeOptions) -> str:
    """The tokens of one text under ``options``, joined by single spaces (cached per distinct text and setting)."""
    if options.typography:
        text = normalise_typography(text)
    return (_tokenize_lowered if options.lowercase else _tokenize_cased)(options.tokenize, text)


def tokenize_text(text: str, options: TokenizeOptions = TokenizeOptions()) -> tuple[str, ...]:
    """The tokens of one text under ``options`` (cached: a distinct text is tokenised once per setting)."""
    joined = _tokenized(text, options)
    return tuple(joined.split(" ")) if joined else ()


def tokenize_texts(texts: Iterable[str], options: TokenizeOptions = TokenizeOptions()) -> list[tuple[str, ...]]:
    """Tokens of many texts; identical texts share one tokenisation."""
    return [tokenize_text(text, options) for text in texts]


def is_punctuation(token: str) -> bool:
    """Whether ``token`` is punctuation: every character in a Unicode punctuation category (P*).

    The rule of METRICS.md §3 (term windows skip them) and §4 (they become ``<PUNC>``). Symbols (S*) are words. A
    token of letters and digits only (``str.isalnum``: no such character is in a P* category) is answered without
    looking up each character."""
    if not token or token.isalnum():
        return False
    return all(unicodedata.category(ch).startswith("P") for ch in token)


def collapse_spaces(texts: Iterable) -> list[str]:
    """Each text with its white space collapsed to single spaces and trimmed: its words as ``str.split`` reads them.

    The one way the checks compare texts "white space aside" (identical outputs, repeated sources, copies)."""
    return [" ".join(str(text).split()) for text in texts]


def characters_without_spaces(texts: Sequence) -> np.ndarray:
    """Per text, its characters without white space (what chrF counts; a length that means the same in every script).

    As :func:`mtdiag.metrics.ngram_index.char_sides` reads a text; floats, for ratios."""
    return np.fromiter((len("".join(str(text).split())) for text in texts), dtype=float, count=len(texts))


@dataclass(frozen=True)
class TokenSide:
    """One column of texts (a reference or a system) as token ids: ``ids[offsets[i]:offsets[i+1]]`` is segment i."""

    ids: np.ndarray
    offsets: np.ndarray

    @cached_property
    def lengths(self) -> np.ndarray:
        """The number of tokens of each segment."""
        return np.diff(self.offsets)

    @property
    def n_segments(self) -> int:
        """The number of segments."""
        return len(self.offsets) - 1

    def segment(self, i: int) -> np.ndarray:
        """The token ids of segment ``i``."""
        return self.ids[self.offsets[i] : self.offsets[i + 1]]

    def segments(self) -> list[np.ndarray]:
        """The token ids of every segment, one array each."""
        return np.split(self.ids, self.offsets[1:-1])


@dataclass(frozen=True)
class TokenizedSet:
    """Every reference and system of an EvalSet as token ids over one vocabulary."""

    vocab: np.ndarray  # object array: token id -> token string
    refs: dict[str, TokenSide]
    hyps: dict[str, TokenSide]
    options: TokenizeOptions

    def side(self, name: str) -> TokenSide:
        """The system or reference named ``name`` (a system first when both have that name)."""
        return self.hyps[name] if name in self.hyps else self.refs[name]

    def tokens(self, name: str, i: int) -> list[str]:
        """The tokens of segment ``i`` of the system or reference ``name``, as strings."""
        return self.vocab[self.side(name).segment(i)].tolist()


def encode_sides(
    columns: dict[str, Sequence[Sequence[str]]],
) -> tuple[np.ndarray, dict[str, TokenSide]]:
    """Map token sequences of several named sides onto one vocabulary of integer ids."""
    flat: list[str] = []
    bounds: dict[str, np.ndarray] = {}
    for name, sequences in columns.items():
        lengths = np.fromiter((len(seq) for seq in sequences), dtype=np.int64, count=len(sequences))
        offsets = np.zeros(len(sequences) + 1, dtype=np.int64)
        np.cumsum(lengths, out=offsets[1:])
        bounds[name] = offsets + len(flat)
        flat.extend(itertools.chain.from_iterable(sequences))
    codes, vocab = pd.factorize(pd.Series(flat, dtype=object)) if flat else (np.zeros(0, np.int64), pd.Index([]))
    codes = np.asarray(codes, dtype=np.int64)
    sides = {
        name: TokenSide(ids=codes[offsets[0] : offsets[-1]], offsets=offsets - offsets[0])
        for name, offsets in bounds.items()
    }
    return np.asarray(vocab, dtype=object), sides


def concat_ranges(starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """The ranges ``[starts[i], starts[i] + lengths[i])`` concatenated into one int64 array."""
    ends = np.cumsum(lengths, dtype=np.int64)
    total = int(ends[-1]) if len(ends) else 0
    return np.repeat(np.asarray(starts, dtype=np.int64) - ends + lengths, lengths) + np.arange(total, dtype=np.int64)


def tokenize_distinct(
    columns: dict[Hashable, Sequence[str]], options: TokenizeOptions
) -> tuple[np.ndarray, TokenSide, dict[Hashable, np.ndarray]]:
    """Tokenise each distinct text of several columns once.

    Returns the vocabulary, one :class:`TokenSide` over the distinct texts, and per column the distinct-text id
    of every segment (identical texts — repeated segments, a system equal to a reference — share one entry).
    The texts are told apart, and the tokenised texts split and numbered, in Arrow (pandas keeps texts as Arrow
    strings); only the tokenisers run in Python, once per distinct text.
    """
    import pyarrow as pa

    names = list(columns)
    arrays = [_arrow_strings(columns[name]) for name in names]
    pooled = pa.concat_arrays(arrays) if arrays else pa.array([], type=pa.large_string())
    encoded = pooled.dictionary_encode()
    text_of = encoded.indices.to_numpy(zero_copy_only=False).astype(np.int64)
    ends = np.cumsum([0] + [len(a) for a in arrays])
    text_ids = {name: text_of[ends[i]:ends[i + 1]] for i, name in enumerate(names)}
    vocab, distinct = _encode_joined([_tokenized(text, options) for text in encoded.dictionary.to_pylist()])
    return vocab, distinct, text_ids


def _arrow_strings(column: Sequence[str]):
    """A column of texts as one Arrow ``large_string`` array (no copy when pandas already holds it in Arrow)."""
    import pyarrow as pa

    array = pa.array(column.array if isinstance(column, pd.Series) else column)
    if isinstance(array, pa.ChunkedArray):
        array = array.combine_chunks()
    return array.cast(pa.large_string())


def _encode_joined(joined: list[str]) -> tuple[np.ndarray, TokenSide]:
    """Texts whose tokens are joined by single spaces, as token ids over one vocabulary in order of first
    appearance (as :func:`encode_sides`): split and numbered by Arrow."""
    import pyarrow as pa
    import pyarrow.compute as pc

    lists = pc.split_pattern(pa.array([text or None for text in joined], type=pa.large_string()), " ")
    lengths = pc.list_value_length(lists).fill_null(0).to_numpy(zero_copy_only=False).astype(np.int64)
    encoded = pc.list_flatten(lists).dictionary_encode()
    offsets = np.zeros(len(joined) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    ids = encoded.indices.to_numpy(zero_copy_only=False).astype(np.int64)
    return np.asarray(encoded.dictionary.to_pylist(), dtype=object), TokenSide(ids=ids, offsets=offsets)


def gather_side(distinct: TokenSide, text_ids: np.ndarray) -> TokenSide:
    """A column's :class:`TokenSide` from the distinct texts it consists of."""
    lengths = distinct.lengths[text_ids]
    offsets = np.zeros(len(text_ids) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    return TokenSide(ids=distinct.ids[concat_ranges(distinct.offsets[:-1][text_ids], lengths)], offsets=offsets)


def tokenize_evalset(refs: pd.DataFrame, hyps: pd.DataFrame, options: TokenizeOptions) -> TokenizedSet:
    """Tokenise every distinct text of the reference and system columns once, over one vocabulary."""
    columns = {("ref", name): refs[name] for name in refs.columns} | {("hyp", name): hyps[name] for name in hyps.columns}
    vocab, distinct, text_ids = tokenize_distinct(columns, options)
    return TokenizedSet(
        vocab=vocab,
        refs={name: gather_side(distinct, text_ids[("ref", name)]) for name in refs.columns},
        hyps={name: gather_side(distinct, text_ids[("hyp", name)]) for name in hyps.columns},
        options=options,
    )

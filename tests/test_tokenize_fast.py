"""mtdiag's ``13a`` tokeniser and its post-tokeniser for ``zh`` (no template expansion) give sacrebleu's tokens
exactly: on every dev and sample text, and on strings built from the characters the rules treat
specially."""

from __future__ import annotations

import random

import pytest

from mtdiag.core.tokenize import sacrebleu_tokenizer
from tests.conftest import DEV, REPO, read_lines


def _texts() -> list[str]:
    files = sorted(DEV.glob("*/*/*.txt")) + sorted((REPO / "sample_data").glob("**/*.txt"))
    assert len(files) > 30
    return [line for path in files for line in read_lines(path)]


def _tricky(n: int) -> list[str]:
    alphabet = list(" .,-0123456789aZé&;<>/\\{}[]`~@:'\"()+*!?#$%^_|=\t\u00a0中文。，") + ["&quot;", "&amp;", "<skipped>", "-\n", "\n"]
    rng = random.Random(14)
    return ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 30))) for _ in range(n)]


@pytest.mark.parametrize("name, module, cls", [("13a", "tokenizer_13a", "Tokenizer13a"),
                                               ("zh", "tokenizer_zh", "TokenizerZh")])
def test_the_fast_post_tokenizer_gives_sacrebleus_tokens(name, module, cls):
    import importlib

    reference = getattr(importlib.import_module(f"sacrebleu.tokenizers.{module}"), cls)()
    ours = sacrebleu_tokenizer(name)
    assert type(ours).__name__ == "_Tokenizer13a" or type(ours._post_tokenizer).__name__ == "_PostTokenizer"
    texts = _texts() + _tricky(20_000)
    different = [text for text in texts if ours(text) != reference(text)]
    assert not different, different[:5]


def test_folding_the_joined_tokens_is_folding_each_token():
    from mtdiag.core.tokenize import TokenizeOptions, tokenize_text

    greek = ["ΟΔΟΣ ΚΑΙ ΣΟΦΙΑ.", "Σ. ΑΣ'Σ", "ΑΣ, Σ-Σ ΟΔΟΣ(ΣΑ)", "İSTANBUL ΣΑΣ."]
    for text in _texts()[::5] + greek + _tricky(2_000):
        for name in ("13a", "zh", "intl"):
            cased = tokenize_text(text, TokenizeOptions(name, lowercase=False, typography=False))
            lowered = tokenize_text(text, TokenizeOptions(name, lowercase=True, typography=False))
            assert lowered == tuple(token.lower() for token in cased), text


def test_the_typography_scan_matches_exactly_the_translated_characters():
    from mtdiag.core.tokenize import _TYPOGRAPHIC, _TYPOGRAPHY

    found = {c for c in range(0x110000) if not 0xD800 <= c < 0xE000 and _TYPOGRAPHIC.search(chr(c))}
    assert found == set(_TYPOGRAPHY)


def test_no_letter_or_digit_is_punctuation_so_is_punctuation_may_skip_alphanumeric_tokens():
    import sys
    import unicodedata

    from mtdiag.core.tokenize import is_punctuation

    assert not [c for c in range(sys.maxunicode + 1) if chr(c).isalnum() and unicodedata.category(chr(c))[0] == "P"]
    assert is_punctuation("_") and is_punctuation("«...»") and not is_punctuation("a_b") and not is_punctuation("")

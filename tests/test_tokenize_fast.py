"""mtdiag's post-tokeniser for ``13a`` and ``zh`` (one ``str.translate`` for sacrebleu's first rule) gives
sacrebleu's tokens exactly: on every dev and sample text, and on strings built from the characters the rules treat
specially."""

from __future__ import annotations

import random

import pytest

from mtdiag.tokenize import sacrebleu_tokenizer
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
    assert type(ours._post_tokenizer).__name__ == "_PostTokenizer"
    texts = _texts() + _tricky(20_000)
    different = [text for text in texts if ours(text) != reference(text)]
    assert not different, different[:5]

"""Scale: ``mtdiag --help`` starts without pandas; the Arrow-backed reader (:func:`mtdiag.io.text.read_segments`) gives exactly the segments and errors of the
Python path (``split_lines(decode_text(...))``), and its vectorised checks agree with ``str.strip``/``str.split``."""

from __future__ import annotations

import codecs
import random
import sys

import numpy as np
import pytest

from mtdiag.core.errors import InputError
from mtdiag.io.text import (
    Limits,
    blank_mask,
    decode_text,
    read_segments,
    segment_warnings,
    split_lines,
)
from mtdiag.io.text.decoding import _PY_WHITESPACE


def python_path(data: bytes, allow_blank: bool):
    try:
        return split_lines(decode_text(data, "f.txt", allow_blank=allow_blank))
    except InputError as error:
        return str(error)


def arrow_path(data: bytes, allow_blank: bool):
    try:
        return list(read_segments(data, "f.txt", allow_blank=allow_blank))
    except InputError as error:
        return str(error)


def test_whitespace_class_is_pythons():
    assert _PY_WHITESPACE == "".join(chr(c) for c in range(sys.maxunicode + 1) if chr(c).isspace())


CASES = [b"", b"\n", b"\n\n", b"a", b"a\n", b"a\n\n", b"a\r\nb\rc\n", b"a\r\n\r\n", b" \t\n", b"x\x00y",
         b"ok\n\xffbad", b"ok\n\xe2\x82", codecs.BOM_UTF8 + "Grüße\n".encode(), codecs.BOM_UTF8,
         "h\u2028é\n\u3000\n".encode(), "x\ny\n".encode("utf-16"), codecs.BOM_UTF32_LE + b"a\x00\x00\x00",
         "a\nb\n".encode("utf-16-le"), b"\xed\xa0\x80\n", b"\xc0\xaf"]


@pytest.mark.parametrize("data", CASES)
@pytest.mark.parametrize("allow_blank", [False, True])
def test_same_segments_and_errors_as_python(data, allow_blank):
    assert arrow_path(data, allow_blank) == python_path(data, allow_blank)


def test_random_texts_match():
    rng = random.Random(7)
    alphabet = ["a", "é", "漢", " ", "\t", "\n", "\r", "\r\n", "\u2028", "\x85", "\u3000", "\x1c", "😀"]
    for _ in range(300):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 12)))
        data = text.encode()
        assert arrow_path(data, True) == python_path(data, True), repr(text)


def test_blank_mask_is_not_strip():
    values = ["", " ", "\u3000\x1c\x85", "a", " a ", "\u200b", "\ufeff", "x\ny"]
    assert blank_mask(values).tolist() == [not v.strip() for v in values]
    assert blank_mask([]).tolist() == []


def test_segment_warnings_vectorised_counts():
    limits = Limits(long_segment_words=3, long_segment_chars=10)
    values = ["one two", "", "a b c d", "x" * 11, " ", "a  b   c"]
    found = segment_warnings("f.txt", values, None, limits)
    assert found == [
        "f.txt: 2 empty lines (lines 2 and 5) kept as empty segments",
        "f.txt: 2 segments over 3 words or 10 characters (lines 3 and 4) kept whole; "
        "the dashboard shortens long segments on display",
    ]
    numbered = segment_warnings("t.tsv", ["", "ok"], [7, 9], limits, column="hyp")
    assert numbered == ['t.tsv: column "hyp": 1 empty value (line 7) kept as an empty segment']


def test_segments_are_one_arrow_buffer():
    lines = read_segments("a\nbb\nccc\n".encode(), "f.txt")
    assert str(lines.dtype) == "str"
    assert np.asarray(lines.astype(object)).tolist() == ["a", "bb", "ccc"]


def test_help_imports_neither_pandas_nor_the_metrics():
    import subprocess

    code = ("import sys\nfrom mtdiag.cli import main\ntry:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
            "print(sorted(m for m in ('pandas', 'numpy', 'mtdiag.metrics') if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "score     corpus (and segment) scores" in done.stdout
    assert done.stdout.rstrip().endswith("[]")


def test_score_help_still_lists_the_generated_metric_flags(capsys):
    from mtdiag.cli import main

    with pytest.raises(SystemExit):
        main(["score", "--help"])
    out = capsys.readouterr().out
    assert "--chrf-word-order" in out and "--otem-order" in out and "--dask ADDRESS" in out

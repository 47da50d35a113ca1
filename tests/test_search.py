"""mtdiag.core.search: user regular expressions (the Segments page's search box and the slice operator ``~``) are matched
in linear time and bounded memory (RE2); what RE2 cannot do is refused with one line saying what is not supported.

The catastrophic patterns are the classic ones (nested and overlapping quantifiers, a bounded repetition of a
greedy group) and a recursive pattern that cost the ``regex`` module about 770 MB per search."""

from __future__ import annotations

import pytest

from mtdiag.core import search
from mtdiag.scoring.evaluate import evaluate
from mtdiag.core.evalset import evalset_from_lists
from mtdiag.slices import ExpressionError, segment_mask


@pytest.mark.parametrize(("pattern", "refused"), [
    ("(?R)?x", "not supported: recursion"),
    ("(?1)", "not supported: recursion"),
    (r"(a)\1", "not supported: backreferences"),
    (r"(?P<x>a)(?P=x)", "not supported: backreferences"),
    ("Hund(?=e)", "not supported: lookaround"),
    ("(?<!k)Hund", "not supported: lookaround"),
    ("(?>a+)b", "not supported: atomic groups"),
    ("a++", "not supported: possessive"),
])
def test_what_re2_cannot_match_in_linear_time_is_refused_in_one_line(pattern, refused):
    with pytest.raises(ValueError) as caught:
        search.text_matches(pattern, ["x"])
    message = str(caught.value)
    assert message.startswith(f"the search {pattern!r}: {refused}") and "\n" not in message


@pytest.mark.parametrize(("pattern", "texts", "expected"), [
    (r"(a+)+$", ["a" * 20_000 + "b", "aaaa", "b"], [False, True, False]),
    (r"(a|aa)*c", ["a" * 20_000, "aac", "xc"], [False, True, True]),
    (r"^(a|aa)+$", ["a" * 20_000 + "b", "a" * 20_000], [False, True]),
    (r"(.*a){20}", ["a" * 19 + "b" * 20_000, "ba" * 20], [False, True]),
])
def test_catastrophic_patterns_give_the_right_answer_without_backtracking(pattern, texts, expected):
    assert search.text_matches(pattern, texts).tolist() == expected


def test_plain_words_unicode_classes_and_case_are_kept():
    texts = ["Der Hund bellt.", "Ärger über Größe", "日本語のテキスト", "a b", "x...y", "xabcy"]
    assert search.text_matches("HUND", texts).tolist() == [True, False, False, False, False, False]
    assert search.text_matches("ärger ÜBER", texts).tolist() == [False, True, False, False, False, False]
    assert search.text_matches(r"^\w+$", ["über", "日本語", "a b", "x_1"]).tolist() == [True, True, False, True]
    assert search.text_matches(r"größe\W*$", texts).tolist() == [False, True, False, False, False, False]
    assert search.text_matches(r"[\w]+ [\d]", ["ü 3", "ü x", "語 ٣"]).tolist() == [True, False, True]
    assert search.text_matches(r"\d+\s%", ["12 %", "١٢\u00a0%", "x %"]).tolist() == [True, True, False]
    assert search.text_matches("x...y", texts).tolist() == [False, False, False, False, True, True]  # a pattern
    assert search.text_matches(r"x\.\.\.y", texts).tolist() == [False, False, False, False, True, False]
    assert search.text_matches(r"\\w", [r"a\w", "aw"]).tolist() == [True, False]  # an escaped backslash stays one


def test_invalid_patterns_and_the_time_budget_are_one_line_errors():
    with pytest.raises(ValueError, match=r"^the search '\(Hund\[' is not a valid regular expression: missing \]"):
        search.text_matches("(Hund[", ["x"])
    with pytest.raises(ValueError, match="takes too long on these texts; simplify the pattern"):
        search.text_matches("a", ["x"] * 10, budget=0.0)


def test_the_slice_operator_refuses_the_recursive_pattern_with_its_column():
    report = evaluate(evalset_from_lists({"ref": ["a x", "b"]}, {"Online-W": ["a x", "xx"]}))
    with pytest.raises(ExpressionError) as caught:
        segment_mask(report, 'hyp[Online-W] ~ "(?R)?x"')
    assert str(caught.value) == ("where: the search '(?R)?x': not supported: recursion ((?R), (?1), (?&name)) "
                                 "at column 17")
    assert segment_mask(report, 'hyp[Online-W] ~ "(a+)+ x"').tolist() == [True, False]


# ------------------------------------------------------------------------- the work of a pattern (issue 39)


def _unicode_classes_before(pattern: str) -> str:
    """The rewriting as it was (quadratic: the rest of the pattern searched at every ``[:``), for equality."""
    out, i, n, in_class = [], 0, len(pattern), False
    while i < n:
        ch = pattern[i]
        if ch == "\\" and i + 1 < n:
            letter = pattern[i + 1]
            if letter == "Q":
                end = pattern.find("\\E", i + 2)
                end = n if end < 0 else end + 2
                out.append(pattern[i:end])
                i = end
                continue
            body = search._CLASSES.get(letter.lower())
            if body is None or (in_class and letter.isupper()):
                out.append(pattern[i : i + 2])
            else:
                out.append(body if in_class else f"[{body}]" if letter.islower() else f"[^{body}]")
            i += 2
            continue
        if in_class and pattern.startswith("[:", i) and ":]" in pattern[i + 2 :]:
            end = pattern.index(":]", i + 2) + 2
            out.append(pattern[i:end])
            i = end
            continue
        if not in_class and ch == "[":
            start = i + 1 + (pattern.startswith("^", i + 1))
            in_class = True
            if pattern.startswith("]", start):
                start += 1
            out.append(pattern[i:start])
            i = start
            continue
        if in_class and ch == "]":
            in_class = False
        out.append(ch)
        i += 1
    return "".join(out)


@pytest.mark.parametrize("pattern", [
    r"[[:alpha:]]+", r"[[:alpha:][:digit:]\w]", r"[[:a]b[:c:]]", r"[[:[:x:]]", r"[^]\d[:space:]]\W", r"\Q[[:\E[\s]",
    "[" + "[:" * 50, "[" + "[:" * 50 + ":]]", r"[[:alpha:]][[:x][[:y:]]", r"a[[:upper:]]\S\D[\W]",
])
def test_the_unicode_class_rewriting_is_unchanged(pattern):
    assert search._unicode_classes(pattern) == _unicode_classes_before(pattern)


def test_preparing_a_pattern_is_linear():
    """Issue 39, finding 6: ``[`` and ``[:`` repeated n times, no closing ``:]``: 40,000 (80 KB) took 5.7 s."""
    import time

    start = time.process_time()
    for n in (10_000, 40_000, 100_000):
        search._unicode_classes("[" + "[:" * n)
    assert time.process_time() - start < 0.5


def test_a_search_pattern_is_bounded_like_a_slice_expression():
    """Finding 8: the search box had no length limit (a 200 KB pattern cost 188 s of CPU per Enter)."""
    from mtdiag.slices.expression import MAX_CHARS

    assert search.MAX_PATTERN_CHARS == MAX_CHARS == 2_000
    with pytest.raises(ValueError) as caught:
        search.text_matches("[" + "[:" * 100_000, ["x"])
    assert str(caught.value) == "the search pattern has 200,001 characters; at most 2,000"
    long_ok = "a|" * 999 + "b"  # 1,999 characters: compiled and searched
    assert search.text_matches(long_ok, ["xbx", "c"]).tolist() == [True, False]
    message = str(pytest.raises(ValueError, search.text_matches, "[" + "[:" * 999, ["x"]).value)
    assert len(message) < 400 and "\n" not in message  # one line, the pattern and the reason shortened


def test_the_segments_search_compiles_its_pattern_once_for_every_column(monkeypatch):
    from mtdiag.views import segments

    report = evaluate(evalset_from_lists({"A": ["a x", "b"], "B": ["c", "d x"]},
                                         {f"s{i}": ["x", "y"] for i in range(10)}, src=["s x", "t"]))
    compiled = []
    real = search.compile_pattern
    monkeypatch.setattr(search, "compile_pattern", lambda pattern: compiled.append(pattern) or real(pattern))
    queue = segments.queue(report)
    found = segments.text_filter(report, queue, "x")
    assert compiled == ["x"]  # 13 columns (source, 2 references, 10 systems), one compilation
    assert len(found) == 20  # every pair: segment 1 by its source and outputs, segment 2 by its reference B
    assert len(segments.text_filter(report, queue, "y")) == 10  # the outputs of segment 2 only


# ------------------------------------------------------------------------- the budget inside one text


def _no_q(length: int) -> str:
    """``length`` characters with many z and no q: ``.{0,999}z.{0,999}q`` never matches, and RE2's automaton
    overflows on it (it falls back to its slowest matcher)."""
    import random

    rng = random.Random(0)
    return "".join(rng.choice("abcdefghijklmnoprstuvwxyz ") for _ in range(length))


def test_the_time_budget_holds_inside_one_long_text():
    # one 300,000-character text: the budget was checked between texts only, so this search ran its 6 s of CPU
    # (13 s under load) and answered False instead of stopping at the budget
    with pytest.raises(ValueError, match=r"^the search '\.\{0,999\}z\.\{0,999\}q' takes too long on these texts"):
        search.text_matches(".{0,999}z.{0,999}q", [_no_q(300_000)], budget=0.3)


def test_a_window_is_the_step_budget_over_the_program_size():
    compiled = search.compile_pattern(".{0,999}z.{0,999}q")
    assert compiled.programsize == 17_988
    assert search.window_bytes(compiled) == 100_000_000 // 17_988 == 5_559
    assert search.window_bytes(search.compile_pattern("Anfang.*Ende")) > 3_000_000  # a whole segment at the limit


@pytest.mark.parametrize("window", [2, 3, 7, 16, 64])
def test_windows_find_every_match_up_to_half_a_window_and_keep_anchors_exact(monkeypatch, window):
    """Searched in tiny windows, the answers are those of a search of the whole text (Python's ``re``), for matches
    up to half a window long, anchors and word boundaries at every window edge, and multi-byte characters cut."""
    import random
    import re

    monkeypatch.setattr(search, "window_bytes", lambda compiled: window)
    rng = random.Random(window)
    alphabet = "ab ä語😀"
    texts = ["".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 40))) for _ in range(300)]
    patterns = [p for p in ("a", "b", "ä", "語", "😀", "ab", "a b", "^a", "a$", r"\bb", r"b\b", "^$", "ä語")
                if len(p.encode()) <= window // 2]
    for pattern in patterns:
        expected = [re.search(pattern, t, re.IGNORECASE | re.ASCII) is not None for t in texts]
        assert search.text_matches(pattern, texts).tolist() == expected, pattern

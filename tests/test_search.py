"""mtdiag.search: user regular expressions (the Segments page's search box and the slice operator ``~``) are matched
in linear time and bounded memory (RE2); what RE2 cannot do is refused with one line saying what is not supported.

The catastrophic patterns are the classic ones (nested and overlapping quantifiers, a bounded repetition of a
greedy group) and a recursive pattern that cost the ``regex`` module about 770 MB per search."""

from __future__ import annotations

import pytest

from mtdiag import search
from mtdiag.api import evaluate
from mtdiag.evalset import evalset_from_lists
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

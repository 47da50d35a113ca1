"""The slice expression language (mtdiag.slices.expression, docs/slices.md): grammar, quoting, limits, errors."""

from __future__ import annotations

import pytest

from mtdiag.slices import expression as ex
from mtdiag.slices.expression import ExpressionError, parse


def test_precedence_not_binds_tightest_then_and_then_or():
    tree = parse("not a[X] or b[X] and c == 1")
    assert isinstance(tree, ex.Logical) and tree.op == "or"
    first, second = tree.operands
    assert isinstance(first, ex.Not) and isinstance(first.operand, ex.Truth)
    assert isinstance(second, ex.Logical) and second.op == "and"
    grouped = parse("not (a[X] or b[X])")
    assert isinstance(grouped, ex.Not) and grouped.operand.op == "or"


def test_every_comparison_membership_and_literal():
    for op in ex.COMPARISONS:
        tree = parse(f"chrf[A] {op} 40" if op not in ("~", "!~") else f'hyp[A] {op} "x"')
        assert isinstance(tree, ex.Comparison) and tree.op == op
    member = parse('doc not in ("a", \'b\',)')
    assert isinstance(member, ex.Membership) and member.negated
    assert [v.value for v in member.values] == ["a", "b"]
    assert [v.value for v in parse("x in (1, -2.5, .5, 1e3, true, false)").values] == [1.0, -2.5, 0.5, 1000.0,
                                                                                         True, False]


def test_system_names_bare_or_quoted():
    assert parse("chrf[Online-B] < 1").left == ex.Field("chrf", "Online-B", 1)
    assert parse("chrf[ newstest2021.en-de_2 ] < 1").left.key == "newstest2021.en-de_2"
    assert parse('chrf["Online B"] < 1').left.key == "Online B"
    assert parse("chrf['A]\"B'] < 1").left.key == 'A]"B'
    for name in ("Online-B", "Online B", 'say "hi"', "a\\b", "tab\there"):
        assert parse(f"chrf[{ex.key_text(name)}] < 1").left.key == name


@pytest.mark.parametrize("text", ["plain", 'with "quotes"', "back\\slash", "new\nline\ttab\r", "\\d+ %", ""])
def test_quote_reads_back_as_the_same_text(text):
    assert parse(f"doc == {ex.quote(text)}").right.value == text
    assert "\n" not in ex.quote(text) and "\t" not in ex.quote(text)


def test_backslashes_other_than_escapes_are_kept_for_regular_expressions():
    assert parse(r'hyp[A] ~ "\d+\b \w"').right.value == r"\d+\b \w"
    assert parse(r'hyp[A] ~ "a\\d"').right.value == r"a\d"


@pytest.mark.parametrize("text, column, words", [
    ("__import__('os')", 1, "no function calls"),
    ("open(\"x\")", 1, "no function calls"),
    ("load_extension('x')", 1, "no function calls"),
    ("chrf[A] < 40; DROP TABLE x", 13, "unexpected character ';'"),
    ("SELECT * FROM segments", 8, "unexpected character '*'"),
    ("chrf[A] = 40", 9, "use =="),
    ("a[X] && b[X]", 6, "use and"),
    ("a[X] || b[X]", 6, "use or"),
    ("doc == 'open", 8, "not closed"),
    ("chrf[Online B] < 1", 13, "expected ]"),
    ("[A] < 1", 1, "without a field name"),
    ("(doc == 'a'", 12, "expected )"),
    ("doc == 'a' doc", 12, "unexpected 'doc'"),
    ("1 < 2", 1, "a comparison of two values"),
    ("'a'", 1, "alone is no condition"),
    ("doc in 'a'", 8, "expected ( after in"),
    ("doc in ()", 9, "expected a value"),
    ("chrf[A] < 4x", 11, "is not a number"),
    ("lambda: 1", 7, "unexpected character ':'"),
    ("x = `id`", 3, "use =="),
    ("doc == $x", 8, "unexpected character '$'"),
])
def test_hostile_or_broken_expressions_are_one_line_errors_with_the_column(text, column, words):
    with pytest.raises(ExpressionError) as caught:
        parse(text)
    message = str(caught.value)
    assert message.startswith("where: ") and words in message and "\n" not in message
    assert caught.value.column == column and f"at column {column}" in message


def test_attribute_access_is_just_a_name_that_no_report_has():
    tree = parse("a.b")  # names may hold dots (system names do); no field is called 'a.b', see test_slices.py
    assert tree == ex.Truth(ex.Field("a.b", None, 1), 1)


def test_a_100000_character_expression_is_refused_before_it_is_tokenised(monkeypatch):
    monkeypatch.setattr(ex, "tokenize", lambda text: pytest.fail("tokenised"))
    with pytest.raises(ExpressionError, match=r"^where: the expression has 100,000 characters; at most 2,000$"):
        parse("x" * 100_000)
    with pytest.raises(ExpressionError, match="at most 2,000"):
        parse("(" * 1_000 + "a" + ")" * 1_000 + " ")


def test_nesting_and_size_are_bounded():
    deep = "(" * (ex.MAX_DEPTH + 1) + "a[X]" + ")" * (ex.MAX_DEPTH + 1)
    with pytest.raises(ExpressionError, match="nests more than 20 levels"):
        parse(deep)
    assert parse("(" * ex.MAX_DEPTH + "a[X]" + ")" * ex.MAX_DEPTH) == ex.Truth(ex.Field("a", "X", ex.MAX_DEPTH + 1),
                                                                            ex.MAX_DEPTH + 1)
    with pytest.raises(ExpressionError, match="nests more than 20 levels"):
        parse("not " * (ex.MAX_DEPTH + 1) + "a[X]")
    with pytest.raises(ExpressionError, match="more than 200 parts"):
        parse(" or ".join(f"s == {i}" for i in range(100)))


def test_empty_and_non_text_expressions():
    for text in ("", "   \n"):
        with pytest.raises(ExpressionError, match="is empty"):
            parse(text)
    with pytest.raises(ExpressionError, match="must be text"):
        parse(42)


def test_fields_of_lists_every_field_read():
    tree = parse('chrf[A] < chrf[B] and not (doc in ("x") or repetition[A])')
    assert [f.written for f in ex.fields_of(tree)] == ["chrf[A]", "chrf[B]", "doc", "repetition[A]"]


def test_has_and_not_has_take_a_field_and_a_quoted_text():
    tree = parse('errors[A] has "Fluency"')
    assert isinstance(tree, ex.Containment) and not tree.negated and tree.value.value == "Fluency"
    negated = parse("errors[A] not has 'Accuracy/Omission' and doc == \"x\"").operands[0]
    assert isinstance(negated, ex.Containment) and negated.negated and negated.field.key == "A"
    with pytest.raises(ExpressionError, match=r"^where: expected a quoted text after has, found '5' at column 15"):
        parse("errors[A] has 5")
    with pytest.raises(ExpressionError, match=r"^where: has needs a field on its left at column 1"):
        parse('"x" has "y"')
    assert [f.written for f in ex.fields_of(parse('hyp[A] has "x" or not ref has "y"'))] == ["hyp[A]", "ref"]

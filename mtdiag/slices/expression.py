"""The slice expression language: a tokenizer and a recursive-descent parser of its own (``docs/slices.md``).

An expression reads fields and compares them; that is all it can do. It is parsed here into a small tree of frozen
dataclasses — never handed to Python ``eval``, ``ast``, pandas ``query``/``eval`` or SQL — so a text such as
``__import__('os')``, ``a.b``, ``open("x")`` or ``load_extension('x')`` is a syntax or unknown-field error, not
code. Grammar (lowest precedence first)::

    expression := or_expr
    or_expr    := and_expr ("or" and_expr)*
    and_expr   := not_expr ("and" not_expr)*
    not_expr   := "not" not_expr | "(" or_expr ")" | condition
    condition  := operand [ op operand | ["not"] "in" "(" literal ("," literal)* [","] ")"
                            | ["not"] "has" STRING ]
    op         := "==" | "!=" | "<" | "<=" | ">" | ">=" | "~" | "!~"
    operand    := field | literal
    field      := NAME [ "[" KEY "]" ]           chrf[Online-B], chrf["Online B"], ref[A], doc
    literal    := NUMBER | STRING | "true" | "false"

``NAME`` starts with a letter or ``_`` and goes on with letters, digits, ``_``, ``-`` and ``.``; a bare ``KEY``
(system or reference name) is letters, digits, ``_``, ``-`` and ``.``, any other name is written as a quoted
string. Strings take double or single quotes; inside, ``\\"`` (or ``\\'``) is the quote, ``\\\\`` a backslash and
``\\n``, ``\\t``, ``\\r`` a newline, tab and carriage return; any other backslash is kept, so a regular expression
reads as written (``hyp[A] ~ "\\d+ %"``). Keywords (``and or not in has true false``) are lower-case.

The work an expression can cause is bounded before anything is read: at most :data:`MAX_CHARS` characters (a
longer text is refused before it is tokenised), :data:`MAX_DEPTH` levels of nesting and :data:`MAX_NODES` nodes.
Every error is an :class:`ExpressionError`: one line, ``where: … at column N``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Union

MAX_CHARS = 2_000
MAX_DEPTH = 20
MAX_NODES = 200
KEYWORDS = ("and", "or", "not", "in", "has", "true", "false")
COMPARISONS = ("==", "!=", "<", "<=", ">", ">=", "~", "!~")
NEGATED = {"!=": "==", "!~": "~"}  # a negated operator is exactly the negation of its positive one
_KEY_PUNCTUATION = "-_."
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\"}  # and the string's own quote
_QUOTE_HINT = 'quote a name with other characters: chrf["Online B"]'
_COMPARE_HINT = "compare fields with values, e.g. chrf[SYSTEM] < 40"


class ExpressionError(ValueError):
    """A slice expression that cannot be read or evaluated.

    One line, ``where: WHAT at column N; HINT``, with the 1-based ``column`` of the offending text when there is one."""

    def __init__(self, message: str, column: int | None = None, hint: str | None = None):
        self.column = column
        where = f" at column {column}" if column is not None else ""
        super().__init__(f"where: {message}{where}" + (f"; {hint}" if hint else ""))


# ------------------------------------------------------------------------------------------------ the tree


@dataclass(frozen=True)
class Field:
    """A field reference: ``name`` or ``name[key]`` (``key``: a system or reference name)."""

    name: str
    key: str | None
    column: int

    @property
    def written(self) -> str:
        """The field as an expression writes it: ``name`` or ``name[key]``."""
        return self.name if self.key is None else f"{self.name}[{key_text(self.key)}]"


@dataclass(frozen=True)
class Literal:
    """A literal of an expression: a number, a string, ``true`` or ``false``."""
    value: float | str | bool
    column: int


@dataclass(frozen=True)
class Comparison:
    """``left op right``: a field or literal compared with another by one of :data:`COMPARISONS`."""
    op: str
    left: Field | Literal
    right: Field | Literal
    column: int


@dataclass(frozen=True)
class Membership:
    """``field in (v, …)``, or ``not in`` when ``negated``."""

    field: Field
    values: tuple[Literal, ...]
    negated: bool
    column: int


@dataclass(frozen=True)
class Containment:
    """``field has "TEXT"``, or ``not has`` when ``negated``.

    A list field (``errors``) has the item (or an item under it: ``Fluency`` covers ``Fluency/Grammar``), a text field
    contains the text; case ignored."""

    field: Field
    value: Literal
    negated: bool
    column: int


@dataclass(frozen=True)
class Truth:
    """A field standing alone as a condition (a flag: ``repetition[A]``)."""

    field: Field
    column: int


@dataclass(frozen=True)
class Not:
    """``not operand``: the negation of a condition."""
    operand: "Node"
    column: int


@dataclass(frozen=True)
class Logical:
    """Two or more conditions joined by ``op``, ``and`` or ``or``."""
    op: str  # "and" | "or"
    operands: tuple["Node", ...]
    column: int


Node = Union[Comparison, Membership, Containment, Truth, Not, Logical]


# ------------------------------------------------------------------------------------------------ tokens


@dataclass(frozen=True)
class Token:
    """One token of an expression: its ``kind``, its ``text`` as written, its ``value`` and its ``column``."""
    kind: str  # name, key, number, string, op, keyword, "(", ")", ",", end
    text: str
    value: object
    column: int


def _is_name_start(ch: str) -> bool:
    return ch.isalpha() or ch == "_"


def _is_name_char(ch: str) -> bool:
    return ch.isalnum() or ch in _KEY_PUNCTUATION


def is_bare_key(name: str) -> bool:
    """Whether a system or reference name can be written without quotes inside ``[…]``."""
    return bool(name) and all(_is_name_char(ch) for ch in name)


def is_name(name: str) -> bool:
    """Whether ``name`` can be written as a field name (a label column, a metric)."""
    return (bool(name) and _is_name_start(name[0]) and all(_is_name_char(ch) for ch in name)
            and name not in KEYWORDS)


def quote(text: str) -> str:
    """``text`` as a double-quoted string literal that reads back as ``text`` (on one line)."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"')
    return '"' + escaped.replace("\n", "\\n").replace("\t", "\\t").replace("\r", "\\r") + '"'


def key_text(name: str) -> str:
    """A system or reference name as written inside ``[…]``: bare when it can be, else quoted."""
    return name if is_bare_key(name) else quote(name)


def _string(text: str, start: int) -> tuple[str, int]:
    """The string literal opening at ``text[start]`` (its quote): (value, index after the closing quote)."""
    quote_char = text[start]
    out, i = [], start + 1
    while i < len(text):
        ch = text[i]
        if ch == "\\" and i + 1 < len(text) and (text[i + 1] == quote_char or text[i + 1] in _ESCAPES):
            out.append(_ESCAPES.get(text[i + 1], text[i + 1]))
            i += 2
            continue
        if ch == quote_char:
            return "".join(out), i + 1
        out.append(ch)
        i += 1
    raise ExpressionError("the string is not closed", start + 1)


def _digit(text: str, i: int) -> bool:
    return i < len(text) and text[i].isascii() and text[i].isdigit()


def _starts_number(text: str, i: int) -> bool:
    """``5``, ``.5``, ``-5``, ``-.5``: a number starts at ``text[i]``."""
    if text[i] == "-":
        i += 1
    return _digit(text, i) or i < len(text) and text[i] == "." and _digit(text, i + 1)


def _number(text: str, start: int) -> tuple[float, int]:
    i = start + (text[start] == "-")
    while _digit(text, i) or i < len(text) and text[i] == ".":
        i += 1
    if i < len(text) and text[i] in "eE":
        j = i + 1 + (i + 1 < len(text) and text[i + 1] in "+-")
        if _digit(text, j):
            i = j
            while _digit(text, i):
                i += 1
    body = text[start:i]
    if (i < len(text) and _is_name_char(text[i])) or body.count(".") > 1:
        raise ExpressionError(f"{text[start:i + 1]!r} is not a number", start + 1)
    return float(body), i


def _key(text: str, start: int) -> Token:
    """``[KEY]`` opening at ``text[start]``: one key token (bare or quoted name)."""
    i = start + 1
    while i < len(text) and text[i].isspace():
        i += 1
    if i < len(text) and text[i] in "\"'":
        value, i = _string(text, i)
    else:
        begin = i
        while i < len(text) and _is_name_char(text[i]):
            i += 1
        value = text[begin:i]
        if not value:
            raise ExpressionError("expected a system or reference name inside [ ]", i + 1, _QUOTE_HINT)
    while i < len(text) and text[i].isspace():
        i += 1
    if i >= len(text) or text[i] != "]":
        raise ExpressionError("expected ] after the name", i + 1, _QUOTE_HINT)
    return Token("key", text[start:i + 1], value, start + 1)


def tokenize(text: str) -> list[Token]:
    """The tokens of ``text`` (after the length check of :func:`parse`), ending with an ``end`` token."""
    tokens: list[Token] = []
    i = 0
    while i < len(text):
        ch, column = text[i], i + 1
        if ch.isspace():
            i += 1
        elif ch in "(),":
            tokens.append(Token(ch, ch, ch, column))
            i += 1
        elif ch == "[":
            if not tokens or tokens[-1].kind != "name":
                raise ExpressionError("[ without a field name before it", column, "write chrf[SYSTEM]")
            token = _key(text, i)
            tokens.append(token)
            i += len(token.text)
        elif ch in "\"'":
            value, end = _string(text, i)
            tokens.append(Token("string", text[i:end], value, column))
            i = end
        elif _starts_number(text, i):
            value, end = _number(text, i)
            tokens.append(Token("number", text[i:end], value, column))
            i = end
        elif _is_name_start(ch):
            begin = i
            while i < len(text) and _is_name_char(text[i]):
                i += 1
            word = text[begin:i]
            tokens.append(Token("keyword" if word in KEYWORDS else "name", word, word, column))
        elif text.startswith(("==", "!=", "<=", ">=", "!~"), i):
            tokens.append(Token("op", text[i:i + 2], text[i:i + 2], column))
            i += 2
        elif ch in "<>~":
            tokens.append(Token("op", ch, ch, column))
            i += 1
        elif ch == "=":
            raise ExpressionError("use == to compare", column)
        elif ch == "!":
            raise ExpressionError("use not, != or !~", column)
        elif ch in "&|":
            raise ExpressionError(f"use {'and' if ch == '&' else 'or'} instead of {ch!r}", column)
        else:
            raise ExpressionError(f"unexpected character {ch!r}", column)
    tokens.append(Token("end", "", None, len(text) + 1))
    return tokens


# ------------------------------------------------------------------------------------------------ parser


class _Parser:
    def __init__(self, tokens: list[Token]):
        self.tokens, self.at, self.depth, self.nodes = tokens, 0, 0, 0

    @property
    def token(self) -> Token:
        return self.tokens[self.at]

    def take(self) -> Token:
        token = self.tokens[self.at]
        self.at += 1
        return token

    def keyword(self, word: str) -> bool:
        return self.token.kind == "keyword" and self.token.text == word

    def node(self, made):
        self.nodes += 1
        if self.nodes > MAX_NODES:
            raise ExpressionError(f"the expression has more than {MAX_NODES} parts", made.column)
        return made

    def nested(self, column: int) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise ExpressionError(f"the expression nests more than {MAX_DEPTH} levels deep", column)

    def expression(self) -> Node:
        node = self.or_expr()
        if self.token.kind != "end":
            raise ExpressionError(f"unexpected {_shown(self.token)}", self.token.column,
                                  "join conditions with and / or")
        return node

    def or_expr(self) -> Node:
        return self.logical("or", self.and_expr)

    def and_expr(self) -> Node:
        return self.logical("and", self.not_expr)

    def logical(self, word: str, operand) -> Node:
        column = self.token.column
        operands = [operand()]
        while self.keyword(word):
            self.take()
            operands.append(operand())
        return operands[0] if len(operands) == 1 else self.node(Logical(word, tuple(operands), column))

    def not_expr(self) -> Node:
        token = self.token
        if self.keyword("not"):
            self.take()
            self.nested(token.column)
            operand = self.not_expr()
            self.depth -= 1
            return self.node(Not(operand, token.column))
        if token.kind == "(":
            self.take()
            self.nested(token.column)
            inner = self.or_expr()
            self.depth -= 1
            if self.token.kind != ")":
                raise ExpressionError(f"expected ) to close the ( at column {token.column}, found "
                                      f"{_shown(self.token)}", self.token.column)
            self.take()
            return inner
        return self.condition()

    def condition(self) -> Node:
        left = self.operand()
        token = self.token
        if token.kind == "op":
            self.take()
            right = self.operand()
            if isinstance(left, Literal) and isinstance(right, Literal):
                raise ExpressionError("a comparison of two values", left.column, _COMPARE_HINT)
            return self.node(Comparison(token.text, left, right, token.column))
        after = self.tokens[min(self.at + 1, len(self.tokens) - 1)]
        following = after.text if after.kind == "keyword" else None
        negated = self.keyword("not") and following in ("in", "has")
        if (negated and following == "has") or self.keyword("has"):
            if negated:
                self.take()
            self.take()
            if not isinstance(left, Field):
                raise ExpressionError("has needs a field on its left", left.column)
            if self.token.kind != "string":
                raise ExpressionError(f"expected a quoted text after has, found {_shown(self.token)}",
                                      self.token.column, 'e.g. errors[SYSTEM] has "Fluency"')
            return self.node(Containment(left, self.literal(), negated, token.column))
        if negated or self.keyword("in"):
            if negated:
                self.take()
            self.take()
            if not isinstance(left, Field):
                raise ExpressionError("in needs a field on its left", left.column)
            return self.node(Membership(left, self.value_list(), negated, token.column))
        if isinstance(left, Literal):
            raise ExpressionError(f"{_shown_literal(left)} alone is no condition", left.column, _COMPARE_HINT)
        return self.node(Truth(left, left.column))

    def value_list(self) -> tuple[Literal, ...]:
        if self.token.kind != "(":
            raise ExpressionError(f"expected ( after in, found {_shown(self.token)}", self.token.column)
        self.take()
        values = []
        while True:
            values.append(self.literal())
            if self.token.kind == ",":
                self.take()
                if self.token.kind == ")":
                    break
                continue
            break
        if self.token.kind != ")":
            raise ExpressionError(f"expected , or ) in the list, found {_shown(self.token)}", self.token.column)
        self.take()
        return tuple(values)

    def literal(self) -> Literal:
        token = self.token
        if token.kind in ("number", "string"):
            self.take()
            return self.node(Literal(token.value, token.column))
        if token.kind == "keyword" and token.text in ("true", "false"):
            self.take()
            return self.node(Literal(token.text == "true", token.column))
        raise ExpressionError(f"expected a value (a number, a quoted string, true or false), found "
                              f"{_shown(token)}", token.column)

    def operand(self) -> Field | Literal:
        token = self.token
        if token.kind == "name":
            self.take()
            if self.token.kind == "(":
                raise ExpressionError(f"no function calls: '{token.text}('", token.column, _COMPARE_HINT)
            key = self.take().value if self.token.kind == "key" else None
            return self.node(Field(token.text, key, token.column))
        return self.literal()


def _shown(token: Token) -> str:
    return "the end of the expression" if token.kind == "end" else repr(token.text)


def _shown_literal(literal: Literal) -> str:
    value = literal.value
    if isinstance(value, bool):
        return "true" if value else "false"
    return quote(value) if isinstance(value, str) else f"{value:g}"


def parse(text: str) -> Node:
    """The tree of an expression; :class:`ExpressionError` for anything else (see the module docstring)."""
    if not isinstance(text, str):
        raise ExpressionError("the expression must be text")
    if len(text) > MAX_CHARS:
        raise ExpressionError(f"the expression has {len(text):,} characters; at most {MAX_CHARS:,}")
    if not text.strip():
        raise ExpressionError("the expression is empty")
    return _Parser(tokenize(text)).expression()


def fields_of(node: Node) -> list[Field]:
    """Every field the tree reads, in reading order."""
    if isinstance(node, Comparison):
        return [side for side in (node.left, node.right) if isinstance(side, Field)]
    if isinstance(node, (Membership, Containment, Truth)):
        return [node.field]
    if isinstance(node, Not):
        return fields_of(node.operand)
    return [field for operand in node.operands for field in fields_of(operand)]

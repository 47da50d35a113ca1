"""mtdiag.core.highlight: tokens + spans -> escaped HTML. Segment text must never become markup."""

from __future__ import annotations

import re

import pytest

from mtdiag.core.highlight import (KINDS, MAX_TOKENS, STYLE, Span, diff_spans, escape, ngram_spans, render_alignment, render_legend, render_marked_text, render_text, render_tokens, token_offsets)
from mtdiag.core.tokenize import tokenize_text
from tests.conftest import SAMPLE

SCRIPT = "<script>window.__xss=1</script>"
IMG = '<img src=x onerror="window.__xss=2">'
PAYLOAD = f"Hallo {SCRIPT} und {IMG} Ende & mehr"


def _no_markup_from_text(html: str) -> None:
    assert "<script" not in html.lower()
    assert "<img" not in html.lower()
    assert "onerror=\"" not in html


def test_escape_escapes_quotes_and_angle_brackets():
    assert escape('<a href="x">\'</a>') == "&lt;a href=&quot;x&quot;&gt;&#x27;&lt;/a&gt;"


def test_render_text_escapes_script_and_img():
    html = render_text(PAYLOAD, label="Source <b>")
    _no_markup_from_text(html)
    assert "&lt;script&gt;window.__xss=1&lt;/script&gt;" in html
    assert "&lt;img src=x onerror=&quot;window.__xss=2&quot;&gt;" in html
    assert "Source &lt;b&gt;" in html


def test_render_marked_text_escapes_text_titles_and_keeps_the_literal_text():
    tokens = list(tokenize_text(PAYLOAD))
    spans = [Span(0, 3, "over1", title='"><script>alert(1)</script>'), Span(2, 6, "under")]
    html = render_marked_text(PAYLOAD, tokens, spans)
    _no_markup_from_text(html)
    # the original characters are all there, escaped, in order (highlights only wrap them)
    text = re.sub(r"<[^>]+>", "", html)
    assert SCRIPT.replace("<", "&lt;").replace(">", "&gt;") in text
    assert 'title="&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;"' in html


def test_render_tokens_escapes_and_groups_runs_of_the_same_kind():
    html = render_tokens(["a", "<b>", "c", "d"], [Span(0, 2, "over"), Span(3, 4, "under1")])
    assert '<span class="mtd-k-over">a &lt;b&gt;</span> c <span class="mtd-k-under1">d</span>' in html


def test_render_tokens_marks_a_token_with_every_kind_covering_it():
    html = render_tokens(["x", "y"], [Span(0, 2, "over"), Span(1, 2, "term_ok")])
    assert '<span class="mtd-k-over mtd-k-term_ok">y</span>' in html


def test_unknown_kind_is_refused():
    with pytest.raises(ValueError, match="unknown highlight kind"):
        render_tokens(["x"], [Span(0, 1, "blink")])
    with pytest.raises(ValueError, match="unknown edit operation"):
        render_alignment([("teleport", "a", "b")])


def test_ngram_spans_finds_every_occurrence_including_overlaps():
    tokens = "the the the cat".split()
    assert ngram_spans(tokens, ["the the"]) == [Span(0, 2, "ngram"), Span(1, 3, "ngram")]
    spans = ngram_spans(tokens, {"cat": ("over1", "t"), "the cat": ("over", "")})
    assert Span(3, 4, "over1", "t") in spans and Span(2, 4, "over", "") in spans


def test_token_offsets_follow_13a_tokens_back_onto_the_text():
    text = "Check the check-valve, &amp; go."
    tokens = list(tokenize_text(text))  # 13a lower-cased; "&amp;" becomes "&"
    offsets = token_offsets(text, tokens)
    assert offsets is not None
    # every token covers the characters it came from: the decoded "&" the whole entity it was written as
    assert [text[a:b].lower() for a, b in offsets] == [t if t != "&" else "&amp;" for t in tokens]


def test_token_offsets_none_when_tokens_are_not_in_the_text():
    assert token_offsets("abc", ["abc", "zzz"]) is None


def test_render_marked_text_highlights_the_spaces_inside_a_span_only():
    html = render_marked_text("a  b c", ["a", "b", "c"], [Span(0, 2, "over")])
    assert html.startswith('<div class="mtd-text"><span class="mtd-k-over">a  b</span> c</div>')


def test_render_marked_text_falls_back_to_tokens():
    html = render_marked_text("completely different", ["x", "y"], [Span(0, 1, "over")])
    assert '<span class="mtd-k-over">x</span> y' in html


def test_long_texts_are_cut_with_a_note():
    text = " ".join(f"w{i}" for i in range(10_000))
    html = render_marked_text(text, text.split())
    assert f"showing {MAX_TOKENS:,} of 10,000 tokens" in html
    assert f"w{MAX_TOKENS - 1}" in html and f"w{MAX_TOKENS} " not in html
    assert "showing 400 of 10,000 tokens" in render_tokens(text.split(), max_tokens=400)
    assert "showing 100 of" in render_text(text, max_chars=100)
    assert "showing 3 of 5 operations" in render_alignment([("match", "a", "a")] * 5, max_ops=3)


def test_render_alignment_pairs_tokens_and_marks_gaps():
    html = render_alignment([("match", "a", "a"), ("insert", "<x>", ""), ("delete", "", "b")])
    assert "mtd-k-insert" in html and "mtd-k-delete" in html
    assert "&lt;x&gt;" in html and "<x>" not in html
    assert html.count("mtd-gap") == 2


def test_legend_and_style_cover_every_kind():
    legend = render_legend(KINDS)
    for kind in KINDS:
        assert f"mtd-k-{kind}" in legend
        assert f".mtd-k-{kind}{{" in STYLE


def test_diff_spans_merge_adjacent_tokens_per_side():
    ops = [("match", 0, 0), ("substitute", 1, 1), ("insert", 2, -1), ("match", 3, 2), ("delete", -1, 3)]
    assert diff_spans(ops, "a") == [Span(1, 3, "diff")]
    assert diff_spans(ops, "b") == [Span(1, 2, "diff"), Span(3, 4, "diff")]
    with pytest.raises(ValueError):
        diff_spans(ops, "c")


def test_empty_text_says_so():
    assert "(empty)" in render_marked_text("", [])
    assert "(empty)" in render_text("")


# ------------------------------------------------------------------------------------------ Markdown


def test_escape_markdown_escapes_every_markup_character_and_keeps_the_text():
    from mtdiag.core.highlight import WORD_JOINER, escape_markdown

    text = "![x](http://127.0.0.1:8000/img) [x](javascript:alert(1)) <script>f()</script> *a* _b_ `c` # h | t |"
    escaped = escape_markdown(text)
    assert escaped == ("\\!\\[x\\]\\(http\\:" + WORD_JOINER + "\\/\\/127\\.0\\.0\\.1\\:" + WORD_JOINER
                       + "8000\\/img\\) \\[x\\]\\(javascript\\:" + WORD_JOINER + "alert\\(1\\)\\) \\<script\\>f\\("
                       "\\)\\<\\/script\\> \\*a\\* \\_b\\_ \\`c\\` \\# h \\| t \\|")
    # what is shown (backslashes dropped, word joiners invisible) is the text itself
    import re

    assert re.sub(r"\\(.)", r"\1", escaped).replace(WORD_JOINER, "") == text


def test_escape_markdown_neutralises_streamlit_extensions_and_indentation():
    from mtdiag.core.highlight import WORD_JOINER, escape_markdown

    assert escape_markdown(":red[x] :material/home: :smile: $x^2$") == (
        "\\:" + WORD_JOINER + "red\\[x\\] \\:" + WORD_JOINER + "material\\/home\\: \\:" + WORD_JOINER
        + "smile\\: \\$x^2\\$".replace("^", "\\^"))
    assert escape_markdown("a\n    code\n\tb") == "a\n\u00a0\u00a0\u00a0\u00a0code\n\u00a0\u00a0\u00a0\u00a0b"
    assert escape_markdown("&lt; 1. x\n- y") == "\\&lt\\; 1\\. x\n\\- y"
    assert escape_markdown(3) == "3"


def test_segment_number_is_one_based():
    from mtdiag.core.highlight import segment_number

    assert [segment_number(s) for s in (0, 1, 199)] == [1, 2, 200]


def test_tokens_of_a_text_with_normalised_typography_are_found_in_the_text_as_written():
    """„…“ and … are read as \" and ... by the tokeniser; their offsets map back to the characters as written."""
    text = "„Sie versäumen es… große“ Studien"
    tokens = ['"', "sie", "versäumen", "es", "...", "große", '"', "studien"]
    offsets = token_offsets(text, tokens)
    assert [text[a:b] for a, b in offsets] == ["„", "Sie", "versäumen", "es", "…", "große", "“", "Studien"]
    assert token_offsets("abc", ["x"]) is None


def test_the_terminology_detail_shows_the_text_as_written_with_its_terms_marked():
    """Sample wmt21.en-de, segment 5 (0-based 4) of eTranslation: „Masken“ in a sentence with typographic quotes.
    Before, the tokens could not be located and the page fell back to lower-cased, tokenised text."""
    from mtdiag.scoring.evaluate import evaluate
    from mtdiag.io import load_folder
    from mtdiag.views import detail, terminology as terms

    report = evaluate(load_folder(SAMPLE / "wmt21.en-de"))
    occurrence = terms.term_table(report, "eTranslation")
    row = occurrence[occurrence["seg"] == 4].iloc[0]
    hyp_spans, _ = terms.term_spans(report, "eTranslation", row, 2)
    html_text = render_marked_text(report.evalset.hyps.at[4, "eTranslation"],
                                   detail.side_tokens(report, "eTranslation", 4).shown, hyp_spans)
    assert html_text.startswith('<div class="mtd-text">Das <span') and "„man keine Maske" in html_text
    assert "das" not in html_text.split("<span")[0]
    assert "mtd-k-term" in html_text

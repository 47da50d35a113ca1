"""What a wrapping table cell shows (mtdiag.views.fit_lines, wide_script; mtdiag.ui.widgets.wrapped): every text
whole or cut with "…" to the lines a row shows, and wide-script cells measured apart from the others."""

from __future__ import annotations

import pandas as pd

from mtdiag.ui import widgets
from mtdiag.views import fit_lines, wide_script
from mtdiag.views.cells import CELL_FONT_PX, CELL_PADDING_PX, LINE_MARGIN, NARROW_EM, WIDE_EM

ZH = ("不过爱因斯坦并没有意识到如果你把太阳压缩成直径6公里的球– 也就是说你把相当于地球质量一百万倍的物质压缩成直径6公里的球，"
      " 你将制造出一个黑洞， 这个物体的密度非常之大以至于如果光离它太近，也将无法逃脱")
EN = ("But Einstein did not realise that if you compress the sun into a ball 6 km in diameter, that is, you "
      "compress a million times the mass of the earth into a ball 6 km in diameter, you will create a black hole.")


def em(text: str) -> float:
    return sum(WIDE_EM if "\u4e00" <= ch <= "\u9fff" or ch in "，–" else NARROW_EM for ch in text)


def test_short_texts_and_values_that_are_no_text_stay_as_they_are():
    texts = pd.Series(["short", "", None, 5, "ok 好"], dtype=object)
    assert fit_lines(texts, 300, 3).tolist() == texts.tolist()


def test_a_long_text_is_cut_with_an_ellipsis_to_what_its_lines_show():
    line_em = (285 - CELL_PADDING_PX) / CELL_FONT_PX * LINE_MARGIN
    fitted = fit_lines(pd.Series([EN, ZH]), 285, 3)
    for original, shown in zip((EN, ZH), fitted):
        assert shown.endswith("…") and original.startswith(shown[:-1])
        assert em(shown) <= 3 * line_em + WIDE_EM
    # wrapped at spaces, English loses the end of each line: it keeps less than three full lines of characters
    assert len(fitted[0]) < 3 * line_em / NARROW_EM
    one_line = fit_lines(pd.Series([EN]), 285, 1)[0]
    assert one_line.endswith("…") and len(one_line) < len(fitted[0])


def test_wide_script_is_mostly_wide_characters():
    texts = pd.Series([ZH, EN, "COVID-19 疫苗", "ＡＢＣ ａｂｃ", "", None, "한국어 문장입니다"], dtype=object)
    assert wide_script(texts).tolist() == [True, False, False, True, False, False, True]


def test_a_table_of_two_scripts_draws_the_wide_cells_in_a_font_of_their_own():
    frame = pd.DataFrame({"src": [ZH, "短句"], "hyp": [EN, "A short one."], "n": [1, 2]})
    text = {"src": {"width": 285, "type_config": {"type": "text"}},
            "hyp": {"width": "large", "type_config": {"type": "text"}}}
    fitted, shown = widgets.wrapped(frame, text, 68)
    assert fitted["src"][0].endswith("…") and fitted["src"][1] == "短句" and fitted["n"].tolist() == [1, 2]
    styles = shown._compute().ctx  # {(row, column position): [(property, value)]}
    wide_cells = {(row, col) for (row, col), css in styles.items() if ("font-weight", "400") in css}
    assert wide_cells == {(0, 0), (1, 0)}
    same_script = frame.assign(src=["Ein Satz.", "Noch einer."])
    assert widgets.wrapped(same_script, text, 68)[1] is not None
    assert isinstance(widgets.wrapped(same_script, text, 68)[1], pd.DataFrame)  # one script: no Styler needed


def test_wide_characters_are_the_ranges_edges_included_and_nothing_beside_them():
    from mtdiag.views.cells import WIDE, WIDE_RANGES, _wide_counts

    edges = sorted({c for first, last in WIDE_RANGES for c in (first - 1, first, last, last + 1)})
    counted = _wide_counts(pd.Series([chr(c) for c in edges] + ["".join(chr(c) for c in edges), ""]))
    expected = [int(any(first <= c <= last for first, last in WIDE_RANGES)) for c in edges]
    assert counted[:-2].tolist() == expected
    assert counted[-2] == sum(expected) == 2 * len(WIDE_RANGES) and counted[-1] == 0
    assert [bool(WIDE.match(chr(c))) for c in edges] == [bool(e) for e in expected]  # the regex says the same

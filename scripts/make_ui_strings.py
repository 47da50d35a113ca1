"""Builds ``sample_data/ui-strings.en-de/``: a reference-free, localisation-style set made from real MT outputs
(the dashboard's sample without references).

Source: WMT21 news en→de (``tests/data/dev/wmt21/en-de``), three real systems (Online-W, eTranslation,
Facebook-AI). Every fourth source line of 5–22 words that has a number or a proper name also in the human reference
is kept (64 lines, in file order); then, as a UI string template would have them, the first number becomes the
placeholder ``{0}`` and the first such name becomes ``<b>name</b>``, ``{name}`` or ``%s`` (in turn). The same
replacement is made in each system's output *where the output has that number (same digits) or that name*; where
it does not — the system changed or dropped it — the output keeps its own text, so the placeholder is missing
there exactly as the real output lost the number or name (9 outputs of 192). No reference is written: the set is
for the reference-free views. ``lines.tsv`` maps each line to its newstest2021 line.

Run from the repository: ``python scripts/make_ui_strings.py``.
"""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DEV = REPO / "tests" / "data" / "dev" / "wmt21" / "en-de"
OUT = REPO / "mtdiag" / "sample_data" / "ui-strings.en-de"
SYSTEMS = ("Online-W", "eTranslation", "Facebook-AI")
NUMBER = re.compile(r"\b\d[\d.,]*\d\b|\b\d\b")
NAME = re.compile(r"(?<=\s)[A-Z][a-z]{2,}(?:\s[A-Z][a-z]{2,})?\b")


def lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").split("\n")[:-1]


def digits(text: str) -> str:
    return re.sub(r"\D", "", text)


def main() -> None:
    src, ref = lines(DEV / "src.txt"), lines(DEV / "ref.A.txt")
    outputs = {s: lines(DEV / f"newstest2021.en-de.{s}.txt") for s in SYSTEMS}
    candidates = [i for i, s in enumerate(src) if 5 <= len(s.split()) <= 22
                  and (NUMBER.search(s) or any(m.group(0) in ref[i] for m in NAME.finditer(s)))]
    chosen = candidates[::4][:64]
    new_src, new_out = [], {s: [] for s in SYSTEMS}
    for k, i in enumerate(chosen):
        text, texts = src[i], {s: outputs[s][i] for s in SYSTEMS}
        number = NUMBER.search(text)
        if number:
            text = text[:number.start()] + "{0}" + text[number.end():]
            for s, t in texts.items():
                hit = next((m for m in NUMBER.finditer(t) if digits(m.group(0)) == digits(number.group(0))), None)
                if hit:
                    texts[s] = t[:hit.start()] + "{0}" + t[hit.end():]
        name = next((m for m in NAME.finditer(text) if m.group(0) in ref[i]), None)
        if name:
            found = name.group(0)
            placeholder = (f"<b>{found}</b>", "{name}", "%s")[k % 3]
            text = text.replace(found, placeholder, 1)
            texts = {s: t.replace(found, placeholder, 1) for s, t in texts.items()}
        new_src.append(text)
        for s in SYSTEMS:
            new_out[s].append(texts[s])
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "src.txt").write_text("\n".join(new_src) + "\n", encoding="utf-8")
    for s in SYSTEMS:
        (OUT / f"{s}.txt").write_text("\n".join(new_out[s]) + "\n", encoding="utf-8")
    (OUT / "lines.tsv").write_text("line\tnewstest2021_line\n" + "".join(f"{k + 1}\t{i + 1}\n"
                                                                        for k, i in enumerate(chosen)),
                                   encoding="utf-8")


if __name__ == "__main__":
    main()

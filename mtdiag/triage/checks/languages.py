"""Language identification for the checks: Google's Compact Language Detector 2 through ``pycld2`` (compiled, its
model inside the wheel, nothing downloaded at run time; about 70,000 texts a second with per-passage vectors),
with two safeguards measured on clean human translations.

- **Which languages are expected.** The target is the set's ``lang_pair`` (``en-de`` → ``de``, or the scoring
  options' target) when CLD2 knows it; without a language pair, the language most outputs are reliably detected
  in; a declared target CLD2 does not know (e.g. Livonian) leaves it unknown, and the language checks stay quiet.
  The source language likewise (the pair's first code, else the dominant language of the sources).
- **Every output is read once**; an output CLD2 reads at least in part as another language (a passage of its
  vectors, or the whole text) is confirmed by a second reading (:func:`finding`) with what is not language
  blanked out, same length so offsets stay (:func:`blank_non_language`): capitalised words the source also has
  (names kept as written — CLD2 reads *Die Union Chain Bridge überquert den Fluss Tweed von Fishwick in den
  Scottish Borders…* as English, reliably), words with digits, and the protected items of
  :mod:`mtdiag.triage.checks.markup_mismatch` (URLs, tags, placeholders, handles). A passage is read again on its own:
  inside the output, CLD2 would absorb it into the text around it.
- **Function words must agree** (:func:`function_words_agree`) for languages written with spaces: CLD2 reads
  some plain French and German as English, reliably (*eine moderne Interpretation des Standards*: 97 %).
- **Long enough to be sure**: at least :data:`MIN_LETTER_BYTES` bytes of letters in UTF-8 (CLD2 scores bytes:
  about six words of a Latin-script language, ten Chinese or Japanese characters, fifteen Cyrillic letters), and
  CLD2 calls the reading reliable. On snippets of the human references of the dev sets (German, English,
  Japanese, French; 20,000 snippets of every length) these rules read no clean snippet as another language;
  CLD2 alone read 2 % of 20–30-byte and 1 % of 60–100-byte French snippets as English. CLD2 separates a passage
  inside a longer text from about a dozen words: a shorter fragment is not found (with references,
  ``untranslated`` finds copied words).
- **Close relatives are one language**: :data:`CLOSE` lists the written standards CLD2 confuses with each other
  (Scots and English; the Norwegian standards; Croatian, Serbian and Bosnian; Malay and Indonesian).
- **Bad input**: a text CLD2 refuses (C0/C1 controls other than tab and line breaks, DEL, non-characters, lone
  surrogates) is read again with those characters as spaces, one for one; any other error leaves it undetected.

Offsets: CLD2 reports byte offsets into the UTF-8 text; :func:`passages` turns them into character offsets of the
text (a Chinese character is three bytes, an emoji four)."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from typing import Sequence

import pycld2
import stopwordsiso

from mtdiag.core.gil import quick_gil_handoff
from mtdiag.triage.checks.markup_mismatch import PROTECTED

MIN_LETTER_BYTES = 30
UNSPACED = frozenset({"zh", "ja", "ko", "th", "lo", "km", "my", "bo", "dz"})  # written without spaces between words
CLOSE: tuple[frozenset[str], ...] = (frozenset({"en", "sco"}), frozenset({"no", "nn"}),
                                     frozenset({"hr", "sr", "bs", "sh"}), frozenset({"ms", "id"}))
_ALIASES = {"iw": "he", "jw": "jv", "in": "id", "fil": "tl", "nb": "no"}  # CLD2's old codes, synonyms -> ISO 639-1
_TO_CLD2 = {"he": "iw", "jv": "jw"}
_REFUSED = re.compile("[\x00-\x08\x0b\x0e-\x1f\x7f-\x9f\ud800-\udfff\ufdd0-\ufdef"
                      + "".join(chr(plane * 0x10000 + 0xFFFE) + chr(plane * 0x10000 + 0xFFFF) for plane in range(17))
                      + "]")
_NOT_LETTERS = re.compile(r"[\W\d_]+")
_WORD = re.compile(r"\w+")
_NAMES = {code: name for name, code in pycld2.LANGUAGES}


@lru_cache(maxsize=1024)
def normalise(code: str | None) -> str | None:
    """A language code as the checks compare them; None for unknown (``un``, CLD2's script-only ``xx-…``).

    Lower-case primary subtag, CLD2's old codes mapped to ISO 639-1 (``zh-Hant`` → ``zh``, ``iw`` → ``he``)."""
    if not code:
        return None
    code = code.strip().lower().replace("_", "-")
    if code in ("un", "xxx") or code.startswith(("xx-", "zz")):
        return None
    primary = code.split("-")[0]
    return _ALIASES.get(primary, primary)


_KNOWN = frozenset(filter(None, (normalise(code) for _, code in pycld2.LANGUAGES)))


def same_language(a: str | None, b: str | None) -> bool:
    """Both known and the same language, or close relatives CLD2 confuses (:data:`CLOSE`)."""
    if a is None or b is None:
        return False
    return a == b or any(a in group and b in group for group in CLOSE)


def language_name(code: str | None) -> str:
    """``de`` → ``German`` (CLD2's name), the code itself when CLD2 has no name for it."""
    name = _NAMES.get(_TO_CLD2.get(code or "", code or ""))
    return name.replace("_", " ").title() if name else str(code)


def letter_bytes(text: str) -> int:
    """Bytes of letters in UTF-8 (CLD2's measure of how much text it has)."""
    return len(_NOT_LETTERS.sub("", text).encode("utf-8"))


@dataclass(frozen=True)
class Detection:
    """CLD2's reading of one text: its top language, how sure it is, and the language of every passage.

    ``reliable``, the top ``language`` (normalised, None when unknown) and its ``percent`` of the text, and every
    passage's ``(byte start, byte end, language)``."""

    reliable: bool
    language: str | None
    percent: int
    vectors: tuple[tuple[int, int, str | None], ...]


UNDETECTED = Detection(False, None, 0, ())


def detect(text: str) -> Detection:
    """CLD2 on one text (plain text, not HTML; not hinted towards the expected language).

    A hint would hide short passages in another language. A text CLD2 refuses is read again with the refused characters
    as spaces, and any other error gives :data:`UNDETECTED`."""
    try:
        reliable, _, top, vectors = pycld2.detect(text, isPlainText=True, returnVectors=True)
    except (pycld2.error, ValueError, UnicodeError):
        try:
            reliable, _, top, vectors = pycld2.detect(_REFUSED.sub(" ", text), isPlainText=True,
                                                      returnVectors=True)
        except (pycld2.error, ValueError, UnicodeError):
            return UNDETECTED
    return Detection(bool(reliable), normalise(top[0][1]), int(top[0][2]),
                     tuple((start, start + length, normalise(code)) for start, length, _, code in vectors))


def detect_all(texts: Sequence[str]) -> list[Detection]:
    """:func:`detect` on every distinct text (one C call each; systems often give the same output for a segment)."""
    texts = [str(t) for t in texts]
    with quick_gil_handoff():
        read = {text: detect(text) for text in dict.fromkeys(texts)}
    return [read[text] for text in texts]


def dominant(detections: Sequence[Detection], texts: Sequence[str]) -> str | None:
    """The language most texts are reliably detected in, None when no text is.

    Only texts of at least :data:`MIN_LETTER_BYTES` count."""
    counts = Counter(d.language for d, t in zip(detections, texts)
                     if d.reliable and d.language is not None and letter_bytes(str(t)) >= MIN_LETTER_BYTES)
    return counts.most_common(1)[0][0] if counts else None


def declared_languages(report) -> tuple[str | None, str | None]:
    """(source, target) language codes as the set declares them (``lang_pair``), None where it doesn't.

    The target may be set by the scoring options."""
    pair = report.evalset.lang_pair
    source = normalise(pair.split("-")[0]) if pair and "-" in pair else None
    return source, normalise(report.context.tgt_lang)


def output_detections(report) -> dict[str, list[Detection]]:
    """Per system: CLD2's reading of every output."""
    def build() -> dict[str, list[Detection]]:
        systems = report.evalset.systems
        every = detect_all([text for s in systems for text in report.evalset.hyps[s].astype(str).tolist()])
        n = report.evalset.n_segments
        return {s: every[i * n:(i + 1) * n] for i, s in enumerate(systems)}

    return report.context.memo(("checks", "output_languages"), build)


def target_language(report) -> str | None:
    """The language the outputs should be in.

    The declared target when CLD2 knows it (None when it doesn't), else the dominant detected language of the
    outputs."""
    def build():
        declared = declared_languages(report)[1]
        if declared is not None:
            return declared if declared in _KNOWN else None
        detections = output_detections(report)
        systems = report.evalset.systems
        return dominant([d for s in systems for d in detections[s]],
                        [t for s in systems for t in report.evalset.hyps[s].astype(str)])

    return report.context.memo(("checks", "target_language"), build)


def source_language(report) -> str | None:
    """The language of the source: declared, else the dominant detected language of the sources, else None."""
    def build():
        declared = declared_languages(report)[0]
        if declared is not None:
            return declared
        texts = report.evalset.src.astype(str).tolist()
        return dominant(detect_all(texts), texts)

    return report.context.memo(("checks", "source_language"), build)


def blank_non_language(text: str, source: str) -> str:
    """``text`` with what is not language replaced by spaces of the same length.

    Protected items (URLs, tags, placeholders, handles, …), words with digits, and capitalised words the source also has
    (names kept as written)."""
    def blank(match: re.Match) -> str:
        return " " * len(match.group(0))

    text = PROTECTED.sub(blank, text)
    kept = set(_WORD.findall(source))
    return _WORD.sub(lambda m: blank(m) if (m.group(0)[0].isupper() and m.group(0) in kept)
                     or any(c.isdigit() for c in m.group(0)) else m.group(0), text)


@dataclass(frozen=True)
class LanguageFinding:
    """What is not in the target language in one output: the whole output, and the passages in other languages.

    The whole output: ``language`` and its ``percent``, None when the output is in the target language; the ``passages``
    in other languages: character ``start``, ``end``, language."""

    language: str | None
    percent: int
    passages: tuple[tuple[int, int, str], ...]


def passages(text: str, detection: Detection, target: str) -> tuple[tuple[int, int, str], ...]:
    """The passages of ``text`` that CLD2 reads as a known language other than ``target``, as character offsets.

    Only passages with at least :data:`MIN_LETTER_BYTES` bytes of letters; the space around them is left out."""
    data = text.encode("utf-8")
    found = []
    for start, end, language in detection.vectors:
        if language is None or same_language(language, target):
            continue
        piece = data[start:end].decode("utf-8", "ignore")
        if letter_bytes(piece) >= MIN_LETTER_BYTES:
            first = len(data[:start].decode("utf-8", "ignore"))
            first, last = first + len(piece) - len(piece.lstrip()), first + len(piece.rstrip())
            found.append((first, last, language))
    return tuple(found)


def _in_another_language(text: str, detection: Detection, target: str, source: str | None) -> bool:
    """CLD2 reliably reads the text as a known language other than ``target``, it is long enough, and its
    function words agree (:func:`function_words_agree`)."""
    return (detection.reliable and detection.language is not None
            and not same_language(detection.language, target) and letter_bytes(text) >= MIN_LETTER_BYTES
            and function_words_agree(text, detection.language, target, source))


@lru_cache(maxsize=64)
def _stop_words(code: str) -> frozenset[str]:
    return frozenset(w.lower() for w in stopwordsiso.stopwords(code)) if stopwordsiso.has_lang(code) else frozenset()


def function_words_agree(text: str, language: str, target: str, source: str | None = None) -> bool:
    """A second opinion on a language: the text has more function words of ``language`` than of ``target``.

    For languages written with spaces between words (stopwords-iso lists, words in both lists not counted). CLD2 alone
    reads *possible ; cela risque de devenir encore plus difficile au fur et à mesure…* as English (99 %, reliable); its
    words *cela, encore, à, les* are French only. A language without a list counts only when it is the ``source``'s (on
    short texts CLD2 guesses rare languages: Luxembourgish, Khasi, Corsican); no second opinion where the target has no
    list or a language is written without spaces (Chinese, Japanese, Thai …: there CLD2 reads the script, and reads it
    well)."""
    if language in UNSPACED or target in UNSPACED:
        return True
    theirs, ours = _stop_words(language), _stop_words(target)
    if not ours:
        return True
    if not theirs:
        return same_language(language, source)
    words = _WORD.findall(text.lower())
    return sum(w in theirs and w not in ours for w in words) > sum(w in ours and w not in theirs for w in words)


def finding(text: str, source: str, detection: Detection, target: str,
            source_language: str | None = None) -> LanguageFinding | None:
    """What of one output is not in ``target``; None when nothing is confirmed.

    The whole output and the passages CLD2 reads as another language, each confirmed by a second reading with the names
    kept from the source and the protected items blanked (:func:`blank_non_language`) — the whole blanked output, and
    each blanked passage on its own (read inside the output, a short passage would be absorbed by the text around
    it)."""
    whole = _in_another_language(text, detection, target, source_language)
    found = passages(text, detection, target)
    if not whole and not found:
        return None
    blanked = blank_non_language(text, source)
    reading = detect(blanked) if whole else UNDETECTED
    whole = whole and _in_another_language(blanked, reading, target, source_language)
    confirmed = []
    for start, end, _ in found:
        again = detect(blanked[start:end])
        if _in_another_language(blanked[start:end], again, target, source_language):
            confirmed.append((start, end, again.language))
    if not whole and not confirmed:
        return None
    return LanguageFinding(reading.language if whole else None, reading.percent if whole else 0, tuple(confirmed))


def language_findings(report) -> dict[str, dict[int, LanguageFinding]]:
    """Per system: the outputs with text in another language than the target; empty when the target is unknown.

    By segment, as :func:`finding` reads them."""
    def build():
        target = target_language(report)
        out: dict[str, dict[int, LanguageFinding]] = {s: {} for s in report.evalset.systems}
        if target is None:
            return out
        src, language = report.evalset.src.astype(str).tolist(), source_language(report)
        for system, detections in output_detections(report).items():
            texts = report.evalset.hyps[system].astype(str).tolist()
            with quick_gil_handoff():
                out[system] = {seg: found for seg, found in (
                    (seg, finding(texts[seg], src[seg], detections[seg], target, language))
                    for seg in _suspects(detections, target)) if found is not None}
        return out

    return report.context.memo(("checks", "language_findings"), build)


def _suspects(detections: Sequence[Detection], target: str) -> list[int]:
    """The outputs CLD2 reads, at least in part, as a known language other than ``target`` (before any
    threshold)."""
    return [i for i, d in enumerate(detections)
            if any(language is not None and not same_language(language, target) for _, _, language in d.vectors)
            or (d.language is not None and not same_language(d.language, target))]

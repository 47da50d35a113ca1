"""``llm_artefact``: a large language model's wrapper around (or instead of) the translation — what a prompt-based
system adds that is not part of the text. Each kind fires only when the source itself has none of that kind
(a source that says *Note:* is translated with *Hinweis:*; the patterns cover English, German, French, Spanish,
Chinese and Japanese, so a source in one of them excuses its own note in any other):

- **preamble**: the output opens with *Here is the translation:*, *Sure! Here's…*, *Translation:*, *German
  translation:*, *Hier ist die Übersetzung*, *Voici la traduction*, *Aquí está la traducción*, *以下是翻译*,
  *翻訳：* — at the start of its first line;
- **note**: *Note:*, *Translator's note*, *Hinweis:*, *Anmerkung:*, *Remarque :*, *Nota:*, *注：*, *译注：*,
  *注記：* at the start of a line, after a sentence or in brackets; or *Note that…* starting a line;
- **refusal**: *As an AI*, *as a language model*, *I'm sorry, but I can't translate…*, *Als KI*, *En tant
  qu'IA*, *Como IA*, *作为AI*, *AIとして*, *翻訳できません*;
- **closing remark**: *I hope this helps*, *Feel free to ask*, *Let me know if you need any further changes*,
  *Ich hoffe, das hilft*, *希望对你有帮助*, *お役に立てれば*;
- **code fence**: ```` ``` ````;
- **answer instead of a translation**: the source is a question (ends with ``?`` or ``？``), the output has no
  question mark at all and opens with an answer (*Yes,*, *No,*, *The answer is*, *Ja,*, *Oui,*, *Sí,*, *是的*,
  *答案是*, *はい、*). Conservative on purpose: an output that answers in a statement without such an opening is
  left to the other signals.

A whole output in quotation marks is **not** an artefact: a headline is often quoted (WMT23 zh-en *"…"* outputs
rated MQM −3.6, a minor style matter at most), and the source may quote it too; being critical, such a flag put
correct outputs ahead of outputs rated −18 to −40 (``docs/triage.md``, "Critical checks, measured").

Every pattern is linear — literal alternations, bounded classes (``[^\\n]{0,60}``), no nested or lazy quantifiers
over unbounded input: a 100,000-character output is scanned in milliseconds. A critical check: an output with a
wrapper is not a translation as delivered."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from mtdiag.triage.checks.base import Check, Finding, by_pair, character_spans

_TRANSLATION = r"(?:translation|übersetzung|traduction|traducción|翻译|译文|翻譯|譯文|翻訳|訳文)"
_LANGUAGE = (r"(?:english|german|french|spanish|chinese|japanese|deutsch|englisch|französisch|spanisch|chinesisch|"
             r"japanisch|anglais|allemand|français|espagnol|chinois|japonais|inglés|alemán|francés|español|chino|"
             r"japonés|英文|英语|中文|德语|法语|日语|西班牙语|英語|ドイツ語|日本語|フランス語|中国語|スペイン語)")
_NOTE_WORD = (r"(?:notes?|please note|translator['’]?s note|n\.b\.|hinweis|anmerkung(?: des übersetzers)?|remarque|"
              r"note du traducteur|nota(?: del traductor)?|注|备注|译注|注記|訳注)")

_START = r"\A[\s*#>_]{0,8}"  # an artefact at the start of the output, after spaces or Markdown decoration


def _prefilter(sources: list[str], start: bool) -> re.Pattern:
    """A quick superset of patterns, run on lower-cased texts: the word-boundary assertions left out, so that a
    pattern searched anywhere begins with literals, which the regular-expression engine scans for quickly
    (``\\b`` in front of an alternation makes it try every position, 100 times slower here). Only the few texts
    that pass are matched exactly, kind by kind."""
    union = "|".join(f"(?:{s.replace(chr(92) + 'b', '')})" for s in sources)
    return re.compile(_START + f"(?:{union})" if start else union)


class Pattern:
    """One kind of artefact: a pattern matched at the start of the text and one searched anywhere.

    ``start`` and ``anywhere``, both case-insensitive."""

    def __init__(self, start: str | None = None, anywhere: str | None = None, prefilter: str | None = None):
        self.start_source = start
        self.start = re.compile(_START + start, re.IGNORECASE) if start else None
        self.anywhere = re.compile(anywhere, re.IGNORECASE) if anywhere else None
        self.prefilter = _prefilter([prefilter or anywhere], start=False) if anywhere else None

    def found(self, texts: pd.Series) -> np.ndarray:
        """Per text: the pattern occurs."""
        hit = np.zeros(len(texts), dtype=bool)
        if self.start is not None:
            hit |= texts.str.match(self.start).to_numpy(dtype=bool)
        if self.anywhere is not None:
            hit |= texts.str.contains(self.anywhere, regex=True).to_numpy(dtype=bool)
        return hit

    def spans(self, text: str) -> list[tuple[int, int]]:
        """Character spans of every occurrence in one text."""
        found = []
        if self.start is not None and (match := self.start.match(text)):
            found.append(match.span())
        if self.anywhere is not None:
            found += [m.span() for m in self.anywhere.finditer(text)]
        return found


PATTERNS: dict[str, Pattern] = {
    "preamble": Pattern(start=(
        r"(?:"
        r"(?:sure|certainly|of course|okay|ok|absolutely|gladly)\b[^\n]{0,30}?\b(?:here|below)\b"
        r"|(?:here(?:'s|’s| is| are)|below is|the following is)\b[^\n]{0,60}?translat"
        r"|(?:hier (?:ist|sind)|nachfolgend|im folgenden|gerne|natürlich|selbstverständlich)\b[^\n]{0,60}?übersetz"
        r"|(?:voici|voilà|ci-dessous)\b[^\n]{0,60}?tradu"
        r"|(?:aquí (?:está|están|tienes|tiene)|he aquí|a continuación)\b[^\n]{0,60}?tradu"
        r"|(?:以下|下面|这是|這是|こちら)[^\n]{0,20}?(?:翻译|译文|翻譯|譯文|翻訳|訳文)"
        rf"|[^\n:：]{{0,40}}?{_TRANSLATION}[^\n:：]{{0,30}}[:：]"
        rf"|{_LANGUAGE}\s{{0,3}}[:：]"
        r")")),
    "note": Pattern(
        start=rf"(?:{_NOTE_WORD}[\s*_]{{0,4}}[:：]|(?:please )?note that\b)",
        anywhere=(rf"[\n(\[（【][\s*_]{{0,4}}{_NOTE_WORD}[\s*_]{{0,4}}[:：]"
                  rf"|[.!?。！？][\"”’»」]?\s{{1,4}}[*_]{{0,4}}{_NOTE_WORD}[\s*_]{{0,4}}[:：]"
                  r"|\n\s{0,8}(?:please )?note that\b"),
        prefilter=_NOTE_WORD),  # sentence ends are frequent: look for the word first
    "refusal": Pattern(anywhere=(
        r"\bas an ai\b|\bas an? (?:ai )?language model\b|\bi(?:'m|’m| am) an ai\b"
        r"|\bi(?:'m|’m| am)? ?(?:sorry|afraid),? (?:but )?i (?:can(?:'|’)?t|cannot|am unable to|won(?:'|’)t) "
        r"(?:translate|provide|assist|help with|comply|fulfil)"
        r"|\bi (?:can(?:'|’)?t|cannot|am unable to) (?:translate|provide a translation|comply with|fulfil)"
        r"|\bals (?:eine? )?(?:ki|künstliche intelligenz|sprachmodell|ki-sprachmodell)\b"
        r"|\bich kann (?:diesen text |den text |das |dies )?nicht übersetzen"
        r"|\ben tant qu['’](?:ia|intelligence artificielle|modèle de langage)\b|\bje ne peux pas traduire"
        r"|\bcomo (?:una? )?(?:ia|inteligencia artificial|modelo de lenguaje)\b|\bno puedo traducir"
        r"|作为(?:一个|一名)?(?:ai|人工智能|语言模型)|我(?:无法|不能)翻译|aiとして|言語モデルとして"
        r"|翻訳(?:することは|は)?できません")),
    "closing remark": Pattern(anywhere=(
        r"\b(?:i )?hope (?:this|that) helps\b|\bfeel free to (?:ask|let me know)\b"
        r"|\blet me know if you (?:need|have|would like|want) (?:any )?(?:further|more|other|additional)\b"
        r"|\bich hoffe,? (?:das|dies) hilft|\bj['’]espère que cela (?:vous )?(?:aide|sera utile)"
        r"|\bn['’]hésitez pas à (?:me )?demander|\bespero que (?:esto|te|le) (?:ayude|sirva)"
        r"|希望(?:这|以上|这个)?(?:对你|对您|能)?(?:有帮助|有所帮助)|お役に立て(?:れば|ましたら)")),
    "code fence": Pattern(anywhere=r"```"),
}
ANSWER = Pattern(start=(r"(?:(?:yes|no|yeah|nope|ja|nein|oui|non|sí|the answer is|die antwort (?:ist|lautet)|"
                         r"la réponse est|la respuesta es)\b[\s,.!:;]|是的|不是|答案是|はい[、。！]|いいえ|答えは)"))


_MAY_START = _prefilter([p.start_source for p in (*PATTERNS.values(), ANSWER) if p.start_source], start=True)
_REST_OF_LINE = re.compile(r"[^\n)）\]】]{0,300}")
KINDS = (*PATTERNS, "answer instead of a translation")
_SAID = {"answer instead of a translation": "answer instead of a translation: the source asks a question, the "
                                            "output answers it and asks none"}


def _found(texts: pd.Series) -> dict[str, np.ndarray]:
    """Per kind of :data:`PATTERNS` and the answer pattern: which texts have it — the exact patterns run only on
    the texts that pass the prefilters (:func:`_prefilter`: one for every pattern at the start, one per pattern
    searched anywhere)."""
    lowered = texts.str.lower()
    may_start = lowered.str.match(_MAY_START).to_numpy(dtype=bool)
    found = {}
    for kind, pattern in [*PATTERNS.items(), ("answer", ANSWER)]:
        maybe = may_start.copy()
        if pattern.prefilter is not None:
            maybe |= lowered.str.contains(pattern.prefilter, regex=True).to_numpy(dtype=bool)
        hit = np.zeros(len(texts), dtype=bool)
        if maybe.any():
            hit[maybe] = pattern.found(texts[maybe])
        found[kind] = hit
    return found


def artefacts(report) -> dict[str, dict[str, np.ndarray]]:
    """Per system and kind (:data:`KINDS`): which outputs have an artefact of that kind the source does not.

    The source and every output are read in one pass."""
    def build():
        ev = report.evalset
        n = ev.n_segments
        texts = pd.concat([ev.src.astype(str), *(ev.hyps[s].astype(str) for s in ev.systems)], ignore_index=True)
        found = {kind: hits.reshape(-1, n) for kind, hits in _found(texts).items()}
        asking = texts.str.contains("?", regex=False) | texts.str.contains("？", regex=False)
        asks = (asking | texts.str.contains("¿", regex=False)).to_numpy().reshape(-1, n)
        question = texts.iloc[:n].str.rstrip().str.slice(-1).isin(["?", "？"]).to_numpy()  # the source asks
        out = {}
        for row, system in enumerate(ev.systems, start=1):
            out[system] = {kind: found[kind][row] & ~found[kind][0] for kind in PATTERNS}
            out[system]["answer instead of a translation"] = found["answer"][row] & question & ~asks[row]
        return out

    return report.context.memo(("checks", "llm_artefacts"), build)


def artefact_spans(text: str, kind: str) -> list[tuple[int, int]]:
    """Character spans of one kind of artefact in an output.

    The preamble, refusal or closing phrase as matched, a note to the end of its line or bracket, each code fence, the
    answer."""
    if kind == "answer instead of a translation":
        return ANSWER.spans(text)
    spans = []
    for start, end in PATTERNS[kind].spans(text):
        matched = text[start:end]
        if kind == "note":
            end = _REST_OF_LINE.match(text, end).end()
        spans.append((start + len(matched) - len(matched.lstrip(" \t\n([（【.!?。！？\"”’»」*_#>")), end))
    return spans


class LlmArtefact(Check):
    """The ``llm_artefact`` check (critical): an LLM's preamble, note, refusal, closing remark, code fence or answer.

    The output has an LLM's preamble, note, refusal, closing remark or code fence, or answers the question it should
    translate."""
    name = "llm_artefact"
    label = "LLM artefact"
    help = ("the output has an LLM's preamble, note, refusal, closing remark or code fence, or answers the "
            "question it should translate")
    needs = ("source",)
    critical = True
    claims = ("Accuracy/Addition", "Non-translation", "Other")
    marks = ("artefact",)

    def fires(self, report) -> pd.Series:
        """One boolean per pair: the output has an artefact of any kind (:func:`artefacts`)."""
        return by_pair(report, {s: np.any(list(found.values()), axis=0) for s, found in artefacts(report).items()})

    def explain(self, report, system, seg):
        """Why ``llm_artefact`` fired on one pair: one sentence per kind of artefact, the artefacts marked."""
        text = str(report.evalset.hyps.at[seg, system])
        kinds = [k for k, found in artefacts(report)[system].items() if found[seg]]
        spans = character_spans(report, system, seg, [s for k in kinds for s in artefact_spans(text, k)],
                                "artefact", "not part of the translation")
        sentences = tuple(_SAID.get(k, f"{k}: not part of the translation (the source has none)") for k in kinds)
        return Finding(sentences, tuple(spans))

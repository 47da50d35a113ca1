"""The sidebar's options: the tokeniser, lower-casing, typography, and one widget per option the metric registry
declares (:class:`~mtdiag.metrics.OptionSpec`); any change recomputes the report, nothing else does."""

from __future__ import annotations

import streamlit as st

from mtdiag.pipeline.inputs import METRICS, Options
from mtdiag.core.tokenize import TOKENIZERS, default_tokenizer
from mtdiag.ui import state

LOWERCASE_NOTE = ("BLEU, chrF and TER are not affected: they keep sacrebleu's defaults (BLEU and chrF case-sensitive, "
                  "TER case-insensitive; TER's own option in *Metric options*).")


def option_widgets(data: state.Dataset) -> Options:
    """The sidebar's options for ``data``: the :class:`~mtdiag.scoring.evaluate.Options` the report is computed with."""
    sb = st.sidebar
    sb.subheader("Options")
    auto = default_tokenizer(data.evalset.tgt_lang)
    choice = sb.selectbox(
        "Tokeniser", ["auto", *TOKENIZERS], key="opt_tokenize",
        format_func=lambda t: f"auto ({auto} for this target language)" if t == "auto" else t,
        help="sacrebleu tokeniser for OTEM/UTEM, WAFT/NEVA, terms and n-grams (and BLEU). 'auto': ja-mecab for "
             "Japanese, zh for Chinese, 13a otherwise.")
    lowercase = sb.checkbox("Lower-case (case-insensitive scores)", value=True, key="opt_lowercase",
                            help="Folds case for OTEM/UTEM, WAFT/NEVA, terms and n-grams: the papers report "
                                 "case-insensitive scores.")
    sb.caption(LOWERCASE_NOTE)
    typography = sb.checkbox("Normalise typography (quotes, dashes, widths)", value=True, key="opt_typography",
                             help="Curly and straight quotes and apostrophes, dashes and full-width forms count as "
                                  "the same for OTEM/UTEM, WAFT/NEVA, terms and n-grams, so don’t vs don't is not a "
                                  "finding. BLEU, chrF and TER always see the texts as written.")
    chosen: dict[str, dict] = {}
    with sb.expander("Metric options"):
        for name, cls in METRICS.items():
            for spec in cls.info.options:
                value = _option_widget(cls.info, spec)
                if value is not None and value != spec.default:
                    chosen.setdefault(name, {})[spec.name] = value
    return Options(tokenize=None if choice == "auto" else choice, lowercase=lowercase, typography=typography,
                   metric_options=chosen)


def _option_widget(info, spec):
    """One widget drawn from a metric option's declaration (:class:`~mtdiag.metrics.OptionSpec`); the value chosen
    (None: the automatic default)."""
    label = f"{info.label}: {spec.help}"
    key = f"opt_{info.name}_{spec.name}"
    if spec.type is bool:
        if spec.default is None:
            picked = st.selectbox(label, ["auto", "yes", "no"], key=key)
            return None if picked == "auto" else picked == "yes"
        return st.checkbox(label, value=spec.default, key=key)
    if spec.choices is not None:
        return st.selectbox(label, list(spec.choices), index=list(spec.choices).index(spec.default), key=key)
    if spec.type is int:
        return int(st.number_input(label, min_value=None if spec.minimum is None else int(spec.minimum),
                                   max_value=None if spec.maximum is None else int(spec.maximum),
                                   value=spec.default, step=1, key=key))
    if spec.type is float:
        return float(st.number_input(label, min_value=spec.minimum, max_value=spec.maximum,
                                     value=float(spec.default), step=0.5, key=key))
    return st.text_input(label, value=spec.default, key=key)

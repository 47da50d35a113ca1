"""The Segments page's Pearmut download: the queue as filtered, as a Pearmut campaign with mtdiag's spans pre-filled
(:func:`mtdiag.report.campaign.pearmut_campaign`, the file ``mtdiag pearmut export`` writes; ``docs/pearmut.md``).

The campaign is made only when asked (a button), once per data, rows and options (kept for the server's sessions,
:func:`_made`), and the download hands over that file: a rerun of the page draws the options and the button, and
never makes or serialises a campaign. "Pairs" goes to the rows of the queue as filtered and "Annotators" to
:data:`mtdiag.report.campaign.MAX_USERS`; the file is refused past :func:`limit_mb`."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import pandas as pd
import streamlit as st

from mtdiag.report.campaign import (DEFAULT_TOP, DEFAULT_USERS, MAX_CAMPAIGN_MB, MAX_USERS, campaign_id_for,
                                    campaign_text, pearmut_campaign)
from mtdiag.core.highlight import escape_markdown
from mtdiag.io.pearmut_log import PROTOCOLS
from mtdiag.ui import state, widgets

PROTOCOL_LABELS = {"esa": "ESA: spans and a 0–100 score", "mqm": "MQM: spans with categories"}
BUDGET_SHARE = 20
"""A campaign file may take this share of the session's memory budget (and at most the command line's limit)."""


@dataclass(frozen=True)
class Made:
    """A campaign made for the page: its file (UTF-8 JSON), what it holds, and the notes of segments left out."""

    file: bytes
    summary: str
    notes: tuple[str, ...]


def limit_mb() -> float:
    """Megabytes a campaign file made here may take: the smaller of two bounds.

    :data:`~mtdiag.report.campaign.MAX_CAMPAIGN_MB` and 1/:data:`BUDGET_SHARE` of the session's memory budget
    (102 MB of the default 2,048 MB)."""
    return min(MAX_CAMPAIGN_MB, state.SESSION_BUDGET_MB / BUDGET_SHARE)


@st.cache_resource(show_spinner="Making the campaign …", max_entries=2, ttl=state.REPORT_TTL_S)
def _made(key: str, rows: str, top: int, users: int, protocol: str, threshold: float, with_reference: bool,
          _report, _pairs: pd.DataFrame) -> Made:
    """The campaign of ``_pairs`` on ``_report`` (``key``: the data and options, ``rows``: the pairs' digest), its
    file joined once; ``ValueError`` when it cannot be made or its file would pass :func:`limit_mb`."""
    campaign = pearmut_campaign(_report, _pairs, top=top, users=users, protocol=protocol, threshold=threshold,
                                with_reference=with_reference)
    file = "".join(campaign_text(campaign, limit_mb())).encode("utf-8")
    systems = len(_report.evalset.systems)
    summary = (f"{len(campaign.segments):,} sources × {systems} systems = {len(campaign.segments) * systems:,} "
               f"outputs to annotate, {len(campaign.spans):,} spans pre-filled (confidence at least {threshold:.2f}), {users} "
               f"annotator{'s' if users != 1 else ''}: {len(file) / 1e6:,.1f} MB")
    return Made(file, summary, tuple(campaign.notes))


def _digest(pairs: pd.DataFrame) -> str:
    """The rows of ``pairs`` (``system, seg``) as a short digest: what a made campaign is kept under."""
    hashed = pd.util.hash_pandas_object(pairs[["system", "seg"]], index=False).to_numpy()
    return hashlib.sha256(hashed.tobytes()).hexdigest()[:32]


def campaign_download(current: state.Current, pairs: pd.DataFrame, threshold: float, *, key: str) -> None:
    """Draw the campaign's options, the button that makes the campaign of ``pairs``, and its download.

    The options: pairs of the queue, annotators, protocol, the reference shown. ``pairs``: ``system, seg``, the
    queue as filtered, in its order, each segment by its 0-based position; the spans pre-filled are those of
    confidence at least ``threshold`` (the page's)."""
    st.markdown("**Annotate in Pearmut**")
    if not len(pairs):
        st.caption("No row matches these filters: there is nothing to annotate.")
        return
    systems = len(current.report.evalset.systems)
    # the number counts rows of the queue; what goes out is their sources with every system's output: the label
    # and the caption say both (N rows of 10 systems are up to N x 10 outputs, not N)
    top = int(st.number_input("Sources of the queue's first N rows", min_value=1, max_value=len(pairs),
                              value=min(DEFAULT_TOP, len(pairs)), step=1, key=f"{key}_top",
                              help=f"the sources of the first N rows of the queue as filtered (at most its "
                                   f"{len(pairs):,} rows), each once, with every system's output on its page: N "
                                   f"sources × {systems} systems outputs to annotate at most"))
    users = int(st.number_input("Annotators", min_value=1, max_value=MAX_USERS, value=DEFAULT_USERS, step=1,
                                key=f"{key}_users", help=f"each annotates every page (at most {MAX_USERS}; the file "
                                                         "holds the pages once per annotator)"))
    protocol = widgets.radio("Protocol", list(PROTOCOLS), key=f"{key}_protocol", default="esa",
                             format_func=PROTOCOL_LABELS.__getitem__, horizontal=True)
    with_reference = st.toggle("Show the reference", key=f"{key}_reference",
                               help="beside the source (ESA and MQM judge the translation against the source)")
    asked = (current.key, _digest(pairs), top, users, protocol, float(threshold), with_reference)
    if st.button("Make the campaign", key=f"{key}_make", icon=":material/build:",
                 help=f"a campaign file for Pearmut (at most {limit_mb():,.0f} MB), made once for these rows and "
                      "options"):
        st.session_state[f"{key}_asked"] = asked
    if st.session_state.get(f"{key}_asked") != asked:
        st.caption("Made when asked, for the rows and options above.")
        return
    try:
        made = _made(*asked, _report=current.report, _pairs=pairs)
    except ValueError as exc:  # every segment left out, or a file past the limit
        st.caption(escape_markdown(str(exc)))
        return
    st.caption(f"{escape_markdown(made.summary)}. Load it with `pearmut add FILE`; read the annotations back as "
               "human error spans (`data/annotations/*.jsonl`).")
    for note in made.notes:
        st.caption(escape_markdown(note))
    st.download_button("Pearmut campaign", data=lambda: made.file,
                       file_name=f"{campaign_id_for(current.report.evalset.name, protocol)}.json",
                       mime="application/json", key=f"{key}_download", on_click="ignore",
                       icon=":material/download:", help="a campaign file for Pearmut (pip install pearmut): "
                                                        "docs/pearmut.md")

"""The Segments page's Pearmut download: the queue as filtered, as a Pearmut campaign with mtdiag's spans pre-filled
(:func:`mtdiag.report.campaign.pearmut_campaign`, the file ``mtdiag pearmut export`` writes; ``docs/pearmut.md``)."""

from __future__ import annotations

import json

import pandas as pd
import streamlit as st

from mtdiag.report.campaign import DEFAULT_TOP, DEFAULT_USERS, campaign_id_for, pearmut_campaign
from mtdiag.core.highlight import escape_markdown
from mtdiag.io.pearmut_log import PROTOCOLS
from mtdiag.ui import state, widgets

PROTOCOL_LABELS = {"esa": "ESA: spans and a 0–100 score", "mqm": "MQM: spans with categories"}


def campaign_download(current: state.Current, pairs: pd.DataFrame, threshold: float, *, key: str) -> None:
    """Options (pairs of the queue, annotators, protocol, the reference shown) and the download of the campaign of
    ``pairs`` (``system, seg_id``: the queue as filtered, in its order); the spans pre-filled are those of
    confidence at least ``threshold`` (the page's)."""
    st.markdown("**Annotate in Pearmut**")
    if not len(pairs):
        st.caption("No row matches these filters: there is nothing to annotate.")
        return
    report = current.report
    systems = len(report.evalset.systems)
    # the number counts rows of the queue; what goes out is their sources with every system's output: the label
    # and the caption say both (N rows of 10 systems are up to N x 10 outputs, not N)
    top = int(st.number_input("Sources of the queue's first N rows", min_value=1, value=DEFAULT_TOP, step=1,
                              key=f"{key}_top",
                              help=f"the sources of the first N rows of the queue as filtered (all when fewer), each "
                                   f"once, with every system's output on its page: N sources × {systems} systems "
                                   "outputs to annotate at most"))
    users = int(st.number_input("Annotators", min_value=1, max_value=100, value=DEFAULT_USERS, step=1,
                                key=f"{key}_users", help="each annotates every page"))
    protocol = widgets.radio("Protocol", list(PROTOCOLS), key=f"{key}_protocol", default="esa",
                             format_func=PROTOCOL_LABELS.__getitem__, horizontal=True)
    with_reference = st.toggle("Show the reference", key=f"{key}_reference",
                               help="beside the source (ESA and MQM judge the translation against the source)")
    try:
        campaign = pearmut_campaign(report, pairs, top=top, users=users, protocol=protocol, threshold=threshold,
                                    with_reference=with_reference)
    except ValueError as exc:  # every segment left out (its texts would be HTML in Pearmut's page)
        st.caption(escape_markdown(str(exc)))
        return
    st.caption(f"{len(campaign.segments):,} sources × {systems} systems = {len(campaign.segments) * systems:,} "
               f"outputs to annotate, {len(campaign.spans):,} spans pre-filled (confidence at least {threshold:.2f}). "
               "Load it with `pearmut add FILE`; read the annotations back as human error spans (`data/annotations/*.jsonl`).")
    for note in campaign.notes:
        st.caption(escape_markdown(note))
    st.download_button("Pearmut campaign", data=json.dumps(campaign.data, ensure_ascii=False, indent=1),
                       file_name=f"{campaign_id_for(report.evalset.name, protocol)}.json", mime="application/json",
                       key=f"{key}_download", on_click="ignore", icon=":material/download:",
                       help="a campaign file for Pearmut (pip install pearmut): docs/pearmut.md")

"""Annotators of a Pearmut campaign, through Pearmut's own server code (run by a Python >= 3.12 with Pearmut, in
``PEARMUT_ROOT``): every user opens every page (``get_i_item``) and submits an answer as the annotation page does
(``_log_response``: Pearmut writes its log, ``data/annotations/<campaign>.jsonl``), then Pearmut's own results
(``compute_model_scores``) are computed. Prints JSON: what each annotator gave — per (user, seg_id, system) the
score and the spans as *characters* of the output (code points, end exclusive, and their text) — and Pearmut's
results.

The answers are deterministic (seeded): each annotator keeps every other pre-filled span (changing some
severities), adds a span on the output's last three characters (emoji included: Pearmut's offsets are UTF-16
units, converted here the plain way, ``len(text[:i].encode("utf-16-le")) // 2``), marks ``[missing]`` on some
outputs, scores 0-100 (ESA) and, under MQM, gives every span a category. The first user submits the first page
twice, the first time with other scores: the last answer counts.

Usage: python pearmut_annotators.py CAMPAIGN_ID [CAMPAIGN_ID ...]   (prints {CAMPAIGN_ID: {truth, pearmut_results,
users}})
"""

import asyncio
import json
import random
import sys

from pearmut import app
from pearmut.assignment import get_i_item
from pearmut.results_export import compute_model_scores


def units(text: str, i: int) -> int:
    """The UTF-16 offset of character ``i`` of ``text``."""
    return len(text[:i].encode("utf-16-le")) // 2


def characters(text: str, start_i: int, end_i: int) -> tuple[int, int] | None:
    """The characters (start, end exclusive) of Pearmut's span ``start_i..end_i`` (UTF-16 units, inclusive),
    found by walking the text; None for a special token after the text."""
    if start_i >= units(text, len(text)):
        return None
    start = max(i for i in range(len(text) + 1) if units(text, i) <= start_i)
    end = min(i for i in range(len(text) + 1) if units(text, i) > end_i)
    return start, end


def answer(item: dict, rng: random.Random, protocol: str, truth: list, user: str, record: bool) -> dict:
    ids = item["mtdiag"]
    response = {}
    for key, text in item["tgt"].items():
        system = ids["systems"][key]
        spans = []
        for k, span in enumerate(item.get("error_spans", {}).get(key, [])):
            if k % 2 == 1:
                continue  # removed by the annotator
            kept = dict(span)
            if rng.random() < 0.3:
                kept["severity"] = "minor"
            spans.append(kept)
        if len(text) >= 3 and not any(s["end_i"] >= units(text, len(text) - 3) for s in spans):
            start, end = len(text) - 3, len(text)
            spans.append({"start_i": units(text, start), "end_i": units(text, end) - 1, "severity": "major",
                          "category": None})
        if rng.random() < 0.25:
            special = units(text, len(text))  # Pearmut draws [missing] after the text: data-i = len(text) in units
            spans.append({"start_i": special, "end_i": special, "severity": "major", "category": None})
        if protocol == "MQM":
            for span in spans:
                span["category"] = "Accuracy/Mistranslation" if span["severity"] == "major" else "Fluency/Grammar"
        score = rng.randint(0, 100) if protocol == "ESA" else None
        response[key] = {"score": score, "error_spans": spans}
        if record:
            truth.append({"user": user, "seg_id": ids["seg_id"], "system": system, "score": score,
                          "spans": [{"severity": s["severity"], "category": s["category"],
                                     "chars": characters(text, s["start_i"], s["end_i"]), "prefilled": "mtdiag" in s}
                                    for s in spans]})
    return response


def annotate(campaign_id: str) -> dict:
    campaign = app.campaigns_data[campaign_id]
    protocol = campaign["info"]["protocol"]
    rng = random.Random(7)
    truth: list = []
    for u, user in enumerate(app.progress_data[campaign_id]):
        pages = len(campaign["data"][user])
        for item_i in range(pages):
            page = json.loads(get_i_item(campaign_id, user, app.campaigns_data, app.progress_data, item_i).body)
            rounds = 2 if (u == 0 and item_i == 0) else 1
            for r in range(rounds):
                last = r == rounds - 1
                annotation = [answer(item, rng, protocol, truth, user, last) for item in page["payload"]]
                payload = {"annotation": annotation, "item": page["payload"],
                           "actions": [{"time": 1000.0 + item_i, "action": "load"},
                                       {"time": 1030.0 + item_i, "action": "submit"}]}
                request = app.LogResponseRequest(campaign_id=campaign_id, user_id=user, item_i=item_i, payload=payload)
                asyncio.run(app._log_response(request))
    return {"truth": truth, "pearmut_results": compute_model_scores(campaign_id),
            "users": list(app.progress_data[campaign_id])}


if __name__ == "__main__":
    print(json.dumps({campaign_id: annotate(campaign_id) for campaign_id in sys.argv[1:]}, ensure_ascii=False))

"""Pearmut's own annotation page in Chromium, on a campaign ``mtdiag pearmut export`` made: the pre-filled spans
are drawn on exactly the characters mtdiag predicts (an output with emoji: Pearmut counts UTF-16 units), and a span
an annotator marks by clicking comes back through Pearmut's log as the characters clicked.

Pearmut's server runs on a free loopback port (uvicorn, ``PEARMUT_ROOT`` a temporary folder) from the Python >= 3.12
of ``tests/pearmut_env.py``; it is stopped by its process group at the end."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import time
import urllib.error
import urllib.request

import pytest

from mtdiag.scoring.evaluate import Options, evaluate
from mtdiag.report.campaign import model_keys, pearmut_campaign
from mtdiag.io import weighed, with_error_annotations
from mtdiag.io.pearmut_log import pearmut_log_path, to_pearmut
from mtdiag.spans import predict_spans
from mtdiag.spans.confidence import DEFAULT_THRESHOLD
from mtdiag.triage.ranking import worst_first
from tests.e2e.conftest import _stop
from tests.pearmut_env import pearmut, pearmut_python, small_set

SEGMENT = 1  # "😀😀 The dog is sitting on the rug." (system A): spans after two emoji


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """(report, the campaign, the server's base URL, the annotator's user id, PEARMUT_ROOT)."""
    python = pearmut_python()
    root = tmp_path_factory.mktemp("pearmut-browser")
    report = evaluate(small_set(), Options())
    queue = worst_first(report)
    # every predicted span pre-filled (the threshold given; by default ESA pre-fills only its operating point's few)
    campaign = pearmut_campaign(report, queue[queue["seg"] == SEGMENT - 1], top=len(queue), campaign_id="browser",
                                threshold=DEFAULT_THRESHOLD)
    path = root / "campaign.json"
    path.write_text(json.dumps(campaign.data, ensure_ascii=False), encoding="utf-8")
    done = pearmut(root, "add", str(path), python=python)
    assert done.returncode == 0, done.stdout + done.stderr
    user = next(iter(json.loads((root / "data" / "progress" / "browser.json").read_text())))
    port = _free_port()
    code = (f"import uvicorn; from pearmut.app import app; "
            f"uvicorn.run(app, host='127.0.0.1', port={port}, log_level='warning')")
    with open(root / "server.log", "wb") as log:
        proc = subprocess.Popen([python, "-c", code], cwd=root, stdout=log, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, env=dict(os.environ, PEARMUT_ROOT=str(root)),
                                start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with opener.open(f"{base}/annotate", timeout=2) as response:
                    if response.status == 200:
                        break
            except (urllib.error.URLError, OSError):
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                pytest.fail("Pearmut's server did not start:\n" + (root / "server.log").read_text(errors="replace"))
            time.sleep(0.25)
        yield report, campaign, base, user, root
    finally:
        _stop(proc)


def test_prefilled_spans_are_drawn_on_mtdiags_characters_and_marks_come_back(served, page, screenshot_dir):
    report, campaign, base, user, root = served
    page.set_viewport_size({"width": 1600, "height": 1000})
    page.goto(f"{base}/annotate?campaign_id=browser&user_id={user}")
    page.wait_for_selector(".output_candidate .tgt_char")
    keys = model_keys(report.evalset.systems)
    predicted = predict_spans(report)
    seg = SEGMENT - 1
    for system in report.evalset.systems:
        block = page.locator(f".output_candidate[data-model='{keys[system]}']")
        text = report.evalset.hyps.at[seg, system]
        mine = predicted[(predicted["system"] == system) & (predicted["seg"] == seg)]
        start_i, end_i = to_pearmut(text, mine["start"].to_numpy(), mine["end"].to_numpy())
        expected = sorted({i for a, b in zip(start_i, end_i) for i in range(int(a), int(b) + 1)})
        marked = block.locator(".tgt_char[class*='error_']").evaluate_all("els => els.map(e => Number(e.dataset.i))")
        drawn = block.locator(".output_tgt").evaluate("e => e.innerText")
        assert drawn.replace("[missing]", "").strip() == text  # the page shows the output as it is
        assert sorted(marked) == expected, system
    page.screenshot(path=str(screenshot_dir / "pearmut-prefilled.png"))

    # mark "sitting" in system A's output (after two emoji: characters 14-21, UTF-16 units 16-22)
    text = report.evalset.hyps.at[seg, "A"]
    start, end = text.index("sitting"), text.index("sitting") + len("sitting")
    first, last = (int(v) for v in to_pearmut(text, start, end))
    block = page.locator(f".output_candidate[data-model='{keys['A']}']")
    block.locator(f".tgt_char[data-i='{first}']").click()
    block.locator(f".tgt_char[data-i='{last}']").click()
    page.locator(".span_toolbox_parent:visible input.error_minor").first.click()
    for key in keys.values():
        page.locator(f".output_candidate[data-model='{key}'] input[type='range']").fill("55")
    page.locator("#button_next").click()
    log = pearmut_log_path(root, "browser")
    deadline = time.monotonic() + 30
    while not (log.exists() and log.read_text().strip()) and time.monotonic() < deadline:
        time.sleep(0.2)
    evalset = weighed(with_error_annotations(report.evalset, log))  # the rows weighed by the default scheme
    rows = evalset.annotations[(evalset.annotations["system"] == "A") & (evalset.annotations["rater"] == user)]
    assert ("sitting", "minor") in [(text[r.start:r.end], r.severity) for r in rows.itertuples()]
    kept = {text[r.start:r.end] for r in rows.itertuples()}
    mine = predicted[(predicted["system"] == "A") & (predicted["seg"] == seg)]
    assert set(mine["text"]) <= kept  # the pre-filled spans, kept as they were
    assert set(evalset.human["score"]) == {55.0}

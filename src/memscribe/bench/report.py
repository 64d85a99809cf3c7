"""Benchmark output: ``results.json`` (with commit, settings and machine), ``report.md``, PNG plots and a
short terminal table.

``locomo`` and ``speed`` write their own section of ``results.json`` in the same folder; the Markdown
report and the plots are rebuilt from every section present, each stamped with its own commit and time.
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

__all__ = [
    "fill_note",
    "git_commit",
    "judge_line",
    "machine_info",
    "print_locomo",
    "print_speed",
    "render_markdown",
    "system_label",
    "write_section",
]

CAT_ORDER = ["multi-hop", "temporal", "open-domain", "single-hop", "overall"]
BASE_NAMES = ["recent", "bm25", "dense", "hybrid", "mem0"]
_LABEL = {
    "recent": "most recent turns",
    "bm25": "BM25 over turns",
    "dense": "dense over turns",
    "hybrid": "hybrid RRF over turns",
    "mem0": "Mem0 (infer=False)",
}


def system_label(system: str) -> str:
    if system == "memscribe":
        return "memscribe"
    name, _, mode = system.partition("/")
    return f"{_LABEL.get(name, name)} ({'same tokens' if mode == 'same' else 'full budget'})"


def git_commit(cwd: Path | None = None) -> str | None:
    here = cwd or Path(__file__).resolve().parent
    try:
        out = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=here, capture_output=True, text=True, check=False, timeout=10
        )
    except (OSError, subprocess.SubprocessError):
        return None
    if out.returncode != 0:
        return None
    commit = out.stdout.strip()
    dirty = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=no"],
        cwd=here,
        capture_output=True,
        text=True,
        check=False,
    )
    return commit + ("-dirty" if dirty.returncode == 0 and dirty.stdout.strip() else "")


def machine_info() -> dict[str, Any]:
    info: dict[str, Any] = {
        "platform": platform.platform(),
        "machine": platform.machine(),
        "python": platform.python_version(),
        "cpu_count": os.cpu_count(),
        "omp_num_threads": os.environ.get("OMP_NUM_THREADS"),
    }
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                info["cpu"] = line.split(":", 1)[1].strip()
                break
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                info["mem_total_mb"] = int(line.split()[1]) // 1024
                break
    except OSError:
        pass
    try:
        from importlib.metadata import version

        info["memscribe"] = version("memscribe")
    except Exception:  # metadata missing in an odd install: the report still writes
        info["memscribe"] = None
    return info


# ---------------------------------------------------------------------------------------------------
# files


def write_section(name: str, result: dict[str, Any], out_dir: Path, console: Console | None = None) -> Path:
    """Store ``result`` as section ``name`` of ``out_dir/results.json`` and rebuild ``report.md`` and plots."""
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / "results.json"
    doc: dict[str, Any] = {}
    if path.exists():
        try:
            doc = json.loads(path.read_text(encoding="utf-8"))
        except json.JSONDecodeError:
            doc = {}
    at_write = git_commit()
    doc[name] = {
        "meta": {
            # the code that ran is the code at the start of the run (the tree may change while it runs)
            "commit": result.get("commit_at_start") or at_write,
            "commit_at_write": at_write,
            "written_at": datetime.now(UTC).isoformat(timespec="seconds"),
            "machine": machine_info(),
        },
        **result,
    }
    path.write_text(json.dumps(doc, ensure_ascii=False, indent=1, default=str), encoding="utf-8")
    plots = []
    if _current_locomo(doc):
        plots += _plot_locomo(doc["locomo"], out_dir)
    if "speed" in doc:
        plots += _plot_speed(doc["speed"], out_dir)
    (out_dir / "report.md").write_text(render_markdown(doc), encoding="utf-8")
    if console is not None:
        console.print(f"wrote {path}, {out_dir / 'report.md'}" + "".join(f", {p}" for p in plots))
    return path


# ---------------------------------------------------------------------------------------------------
# markdown


def _f(x: Any, nd: int = 3) -> str:
    if x is None:
        return "—"
    if isinstance(x, float):
        return f"{x:.{nd}f}"
    return str(x)


def _ms(x: Any) -> str:
    if x is None:
        return "—"
    return f"{x:.1f}" if x < 100 else f"{x:.0f}"


def _x(x: Any) -> str:
    return "—" if x is None else f"{x:.2f}×"


def _meta_line(sec: dict[str, Any]) -> str:
    m = sec.get("meta", {})
    mach = m.get("machine", {})
    return (
        f"commit `{m.get('commit')}` · written {m.get('written_at')} · {mach.get('cpu', mach.get('machine'))}, "
        f"{mach.get('cpu_count')} CPUs, OMP_NUM_THREADS={mach.get('omp_num_threads')} · Python {mach.get('python')}"
    )


MEASURE_NAMES = {
    "S": "S strict evidence recall",
    "A": "A answer recall",
    "P": "P precision",
    "R": "R loose recall (sources only, diagnostic)",
}


def fill_note(tokens: dict[str, Any], budget: int) -> str:
    """ "median 940 tokens (94% of 1000)", with a warning when the context under-fills the budget."""
    if not tokens:
        return "median context tokens —"
    note = f"median context {_f(tokens.get('median'), 0)} tokens ({100 * tokens.get('fill', 0):.0f}% of {budget})"
    return note + (" — **under-fills the budget**" if tokens.get("underfilled") else "")


def _headline_table(ms: dict[str, Any], systems: list[str], budget: int) -> list[str]:
    lines = ["| system | S | A | P | R (diagnostic) |", "|---|---:|---:|---:|---:|"]
    for s in systems:
        cells = [_f(ms[m].get(s, {}).get(str(budget), {}).get("overall")) for m in ("S", "A", "P", "R")]
        if all(c == "—" for c in cells):
            continue
        if s == "memscribe":
            cells = [f"**{c}**" for c in cells]
        lines.append(f"| {system_label(s)} | " + " | ".join(cells) + " |")
    return lines


def _category_table(ms: dict[str, Any], systems: list[str], budget: int) -> list[str]:
    lines = [
        "| system (S / A) | " + " | ".join(CAT_ORDER) + " |",
        "|---|" + "---:|" * len(CAT_ORDER),
    ]
    for s in systems:
        rows = [ms[m].get(s, {}).get(str(budget), {}) for m in ("S", "A")]
        if not any(rows):
            continue
        cells = [f"{_f(rows[0].get(c))} / {_f(rows[1].get(c))}" for c in CAT_ORDER]
        lines.append(f"| {system_label(s)} | " + " | ".join(cells) + " |")
    ns = ms["S"].get("memscribe", {}).get(str(budget), {}).get("n", {})
    if ns:
        lines.append("| *questions* | " + " | ".join(str(ns.get(c, 0)) for c in CAT_ORDER) + " |")
    return lines


def _measure_tables(
    ms: dict[str, Any], systems: list[str], budgets: list[int], tokens: dict[str, Any]
) -> list[str]:
    lines = []
    for b in budgets:
        lines += [f"**Budget {b} tokens** — {fill_note(tokens.get(str(b), {}), b)}", ""]
        lines += [*_headline_table(ms, systems, b), ""]
        lines += [*_category_table(ms, systems, b), ""]
    return lines


def _locomo_md(sec: dict[str, Any]) -> list[str]:
    st = sec["settings"]
    ms = sec["memscribe"]
    budgets = st["budgets"]
    tokens = ms["tokens_used"]
    lines = [
        "## LoCoMo: strict evidence recall S, answer recall A, precision P",
        "",
        _meta_line(sec),
        "",
        f"Data `{st['data']}`; {len(sec['conversations'])} conversations, "
        f"{sec['questions']['original']} questions of categories 1–4 with evidence. The judge's measures "
        "(`shared/tools/locomo_eval.py`, reimplemented in `memscribe.bench.measures`): **S** — an evidence turn "
        "counts when the context items listing it in `sources` together carry ≥ 50% of its content words; "
        "**A** — the context text holds ≥ 60% of the answer's content words and its dates (normalised); "
        "**P** — the share of context items that hold an evidence turn; **R** — evidence turns named in any "
        "item's `sources` (a diagnostic: it credits sources whose words were not kept). Baselines pack "
        "`[session date] Speaker: text` turns in rank order (each costs the tokens of `Speaker: text` + 1), "
        "given either exactly the tokens memscribe's context used for that question (**same tokens**, the "
        "judge's comparison) or the whole budget (**full budget**); each packed turn is an item that holds "
        "itself, so their S equals their R. Hybrid = RRF (k=60) of BM25 (matched turns) and dense (all turns). "
        f"Dense and hybrid use memscribe's own embedder. A budget whose median memscribe context is under "
        f"{100 * st.get('underfill', 0.8):.0f}% of it is flagged as under-filled.",
        "",
        f"Mem0: {sec.get('mem0')}",
        "",
        "### Original evidence",
        "",
    ]
    lines += _measure_tables(sec["measures"]["original"], sec["systems"], budgets, tokens)
    if "audited" in sec["measures"]:
        a = sec.get("audit") or {}
        lines += [
            "### Audited variant",
            "",
            f"Audit `{st['audit']}`: {a.get('corrected', 0)} questions with corrected evidence, "
            f"{a.get('dropped', 0)} dropped as wrong-answer ({', '.join(st['wrong_answer_types'])}), "
            f"{sec['questions']['audited']} questions scored.",
            "",
        ]
        lines += _measure_tables(sec["measures"]["audited"], sec["systems"], budgets, tokens)
    ret = ms["evidence_retention"]
    lines += [
        "### memscribe write and read path",
        "",
        "| metric | value |",
        "|---|---:|",
        f"| memories stored per 100 turns | {ms['memories_per_100_turns']:.1f} ({ms['memories']} / {ms['turns']} turns) |",
        f"| filter retention of evidence turns (original) | {_f(ret.get('original'))} |",
    ]
    if "audited" in ret:
        lines.append(f"| filter retention of evidence turns (audited) | {_f(ret.get('audited'))} |")
    if ms.get("add_actions"):
        acts = ", ".join(f"{k} {v}" for k, v in sorted(ms["add_actions"].items(), key=lambda kv: -kv[1]))
        lines.append(f"| add() actions over all turns | {acts} |")
    lines += [
        f"| add() ms per message p50 / p95 (per session call ÷ its messages) | {_ms(ms['add_ms_per_msg_p50'])} / {_ms(ms['add_ms_per_msg_p95'])} |",
        f"| flush() (queued verification), total s | {ms['flush_s_total']:.1f} |",
    ]
    for b in budgets:
        c = ms["context_ms"].get(str(b), {})
        t = ms["tokens_used"].get(str(b), {})
        lines.append(
            f"| context(budget {b}) ms p50 / p95 · tokens used median / p95 | {_ms(c.get('p50'))} / {_ms(c.get('p95'))} · "
            f"{_f(t.get('median'), 0)} / {_f(t.get('p95'), 0)}{' (under-fills)' if t.get('underfilled') else ''} |"
        )
    for k, v in sec.get("baseline_ms", {}).items():
        what = {
            "bm25": "BM25 rank over turns",
            "dense": "dense: embed query + rank turns",
            "mem0": "Mem0 search (top 50)",
            "mem0_add_per_turn": "Mem0 add (infer=False) per turn",
        }
        lines.append(f"| baseline {what.get(k, k)} ms p50 / p95 | {_ms(v['p50'])} / {_ms(v['p95'])} |")
    lines += [
        "",
        "| conversation | sessions | turns | memories | questions | ingest s | flush s |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for c in sec["conversations"]:
        lines.append(
            f"| {c['conv']} | {c['sessions']} | {c['turns']} | {c['memories']} | {c['questions']} | {c['ingest_s']} | {c['flush_s']} |"
        )
    lines += ["", "![S and A by category and budget](locomo_recall.png)", ""]
    return lines


def _speed_md(sec: dict[str, Any]) -> list[str]:
    st = sec["settings"]
    lines = [
        "## Speed and footprint at scale",
        "",
        _meta_line(sec),
        "",
        f"One user's store, {st['store']}; n synthetic memories (zh + en templates, seed {st['seed']}) inserted "
        f"directly through the store's bulk path (`bulk_load` + `put_memories`, batches of {st['insert_batch']}). Vectors: a pool of {st['pool_size']} "
        f"distinct template texts embedded with the real embedder ({sec['pool_embed_ms_per_text']:.1f} ms/text); "
        f"each memory gets a same-template pool vector + N(0, {st['noise_sigma']}) noise, renormalised. "
        f"{st['queries']} queries (zh/en alternating), {st['messages']} messages for add(). The query-vector "
        "cache is cleared before every timed call. Ratio = memscribe ÷ baseline.",
        "",
    ]
    w = sec.get("warmup")
    if w:
        lines += [
            f"Warm-up (throwaway store, before any scale): process RSS {w['rss_before_mb']:.0f} → "
            f"{w['rss_after_mb']:.0f} MB; first English add() {w['first_en_add_ms']:.0f} ms, first Chinese add() "
            f"with a relative time {w['first_zh_time_add_ms']:.0f} ms (lazy-loaded parsers).",
            "",
        ]
    for s in sec["scales"]:
        cs, cb = s["cold_start"], s["cold_start_baseline"]
        rows = [
            (
                "search() p50 / p95 ms",
                f"{_ms(s['search_ms']['p50'])} / {_ms(s['search_ms']['p95'])}",
                "numpy KNN top-20 (incl. query embedding)",
                f"{_ms(s['knn_ms']['p50'])} / {_ms(s['knn_ms']['p95'])}",
                f"{_x(s['search_vs_knn']['p50'])} / {_x(s['search_vs_knn']['p95'])}",
            ),
            (
                f"context(budget {st['context_budget']}) p50 / p95 ms",
                f"{_ms(s['context_ms']['p50'])} / {_ms(s['context_ms']['p95'])}",
                "numpy KNN top-20 (incl. query embedding)",
                f"{_ms(s['knn_ms']['p50'])} / {_ms(s['knn_ms']['p95'])}",
                f"{_x(s['context_vs_knn']['p50'])} / {_x(s['context_vs_knn']['p95'])}",
            ),
            (
                "  of which: query embedding p50 ms",
                "(same embedder)",
                "query embedding p50 / KNN matrix product + top-20 p50 ms",
                f"{_ms(s['query_embed_ms']['p50'])} / {s['knn_only_ms']['p50']:.2f}",
                "",
            ),
            (
                "  diagnostics: store.vector_search / keyword_search p50 ms",
                f"{_ms(s['store_vector_search_ms']['p50'])} / {_ms(s['store_keyword_search_ms']['p50'])}",
                "",
                "",
                "",
            )
            if "store_vector_search_ms" in s
            else None,
            (
                "add() per message p50 / p95 ms",
                f"{_ms(s['add_ms_per_msg']['p50'])} / {_ms(s['add_ms_per_msg']['p95'])}",
                "raw insert (embed + put_memory)",
                f"{_ms(s['raw_insert_ms_per_msg']['p50'])} / {_ms(s['raw_insert_ms_per_msg']['p95'])}",
                f"{_x(s['add_vs_raw']['p50'])} / {_x(s['add_vs_raw']['p95'])}",
            ),
            (
                "ingest throughput msgs/s (incl. verify)",
                f"{s['throughput_msgs_per_s']['add']:.1f} ({s['throughput_msgs_per_s']['add_incl_verify']:.1f})",
                "raw insert msgs/s",
                f"{s['throughput_msgs_per_s']['raw_insert']:.1f}",
                _x(_r(s["throughput_msgs_per_s"]["add"], s["throughput_msgs_per_s"]["raw_insert"])),
            ),
            (
                "process RSS after queries MB (peak)",
                f"{s['rss_after_queries']['rss_mb']:.0f} ({s['rss_after_queries']['peak_rss_mb']:.0f})",
                "KNN vector matrix in RAM MB",
                f"{s['knn_matrix_mb']:.0f}",
                "",
            ),
            *(
                [
                    (
                        "fresh process serving queries: RSS MB (peak)",
                        f"{cs['rss_mb']:.0f} ({cs['peak_rss_mb']:.0f})",
                        "fresh numpy KNN process: RSS MB (peak)",
                        f"{cb['rss_mb']:.0f} ({cb['peak_rss_mb']:.0f})",
                        _x(_r(cs["rss_mb"], cb["rss_mb"])),
                    )
                ]
                if "rss_mb" in cs and "rss_mb" in cb
                else []
            ),
            (
                "store size on disk MB",
                "—" if s["store_bytes"] is None else f"{s['store_bytes'] / 2**20:.1f}",
                "raw payload (texts + float32 vectors) MB",
                f"{s['raw_payload_bytes'] / 2**20:.1f}",
                _x(s["store_vs_raw_payload"]),
            ),
            (
                "cold start ms: import + open + first search",
                f"{cs['total_ms']:.0f} ({cs['import_ms']:.0f} + {cs['open_ms']:.0f} + {cs['first_search_ms']:.0f})",
                "import numpy+embedder + load .npy + first KNN",
                f"{cb['total_ms']:.0f} ({cb['import_ms']:.0f} + {cb['open_ms']:.0f} + {cb['first_search_ms']:.0f})",
                _x(s["cold_vs_baseline"]),
            ),
            (
                "bulk load (put_memories) memories/s",
                f"{s['build']['memories_per_s']:.0f} ({s['build']['seconds']:.1f} s)",
                "",
                "",
                "",
            ),
        ]
        lines += [
            f"### n = {s['n']:,} memories",
            "",
            "| memscribe | value | baseline | value | ratio |",
            "|---|---:|---|---:|---:|",
        ]
        lines += [f"| {a} | {b} | {c} | {d} | {e} |" for a, b, c, d, e in filter(None, rows)]
        lines += [
            "",
            f"add() actions: {json.dumps(s['add_actions'])}; waiting for the queued verification after the last add() "
            f"(flush) took {s['verify_flush_s']:.1f} s (the background worker verifies during the adds); "
            f"add() max {s['add_ms_per_msg'].get('max', 0):.0f} ms"
            + (
                f" (the write path's neighbour graph, built once per store before the adds: "
                f"{s['neighbour_graph_s']:.1f} s)"
                if s.get("neighbour_graph_s")
                else ""
            )
            + ". "
            f"search() returned {s.get('search_hits_mean', 0):.1f} hits on average; context() "
            f"{s.get('context_items_mean', 0):.1f} items, median {s['context_tokens_median']} tokens.",
            "",
        ]
        lines += _mem0_speed_md(s)
    if sec.get("mem0"):
        lines += [f"Mem0 baseline: {sec['mem0']}.", ""]
    lines += ["![latency vs scale](speed_latency.png)", ""]
    return lines


def _mem0_speed_md(s: dict[str, Any]) -> list[str]:
    """Mem0 at this scale, same memories, queries and messages (``bench speed --mem0``)."""
    m = s.get("mem0")
    if not m:
        return []
    if "skipped" in m:
        return [f"Mem0: skipped at this scale, {m['skipped']}.", ""]
    rows = [
        (
            "search() p50 / p95 ms",
            s["search_ms"],
            "Mem0 search() top 10",
            m["search_ms"],
            m["search_vs_mem0"],
        ),
        (
            "context() p50 / p95 ms",
            s["context_ms"],
            "Mem0 search() top 10",
            m["search_ms"],
            m["context_vs_mem0_search"],
        ),
        (
            "add() per message p50 / p95 ms",
            s["add_ms_per_msg"],
            "Mem0 add(infer=False)",
            m["add_ms_per_msg"],
            m["add_vs_mem0"],
        ),
    ]
    lines = [
        f"Mem0 ({m['variant']}, local Qdrant, MiniLM), same run, same {s['n']:,} memories (filled at "
        f"{m['fill_memories_per_s']:.0f}/s), queries and messages:",
        "",
        "| memscribe | value | Mem0 | value | ratio |",
        "|---|---:|---|---:|---:|",
    ]
    lines += [
        f"| {a} | {_ms(b['p50'])} / {_ms(b['p95'])} | {c} | {_ms(d['p50'])} / {_ms(d['p95'])} | "
        f"{_x(r['p50'])} / {_x(r['p95'])} |"
        for a, b, c, d, r in rows
    ]
    return [*lines, ""]


def _r(a: float, b: float) -> float | None:
    return a / b if b else None


def _current_locomo(doc: dict[str, Any]) -> bool:
    """A LoCoMo section written by this version (an older results.json kept only loose recall)."""
    return "measures" in doc.get("locomo", {})


def render_markdown(doc: dict[str, Any]) -> str:
    lines = ["# memscribe benchmarks", ""]
    if _current_locomo(doc):
        lines += _locomo_md(doc["locomo"])
    elif "locomo" in doc:
        lines += [
            "## LoCoMo",
            "",
            "The LoCoMo section of results.json predates S / A / P; rerun `bench locomo`.",
            "",
        ]
    if "speed" in doc:
        lines += _speed_md(doc["speed"])
    if "scenarios" in doc:
        lines += _scenarios_md(doc["scenarios"])
    return "\n".join(lines) + "\n"


def _scenarios_md(sec: dict[str, Any]) -> list[str]:
    """Pass count per scenario file, then every failed check with its reason (the passes are in the JSON)."""
    checks = sec.get("checks", [])
    lines = [
        "## Scenarios",
        "",
        f"`{sec.get('data', '?')}`: **{sec.get('passed', 0)} / {sec.get('total', 0)}** checks passed "
        f"(commit `{sec.get('meta', {}).get('commit') or '?'}`).",
        "",
    ]
    by_scenario: dict[str, list[bool]] = {}
    for c in checks:
        by_scenario.setdefault(c["scenario"], []).append(bool(c["ok"]))
    lines += ["| scenario | checks passed |", "|---|---|"]
    lines += [f"| {sid} | {sum(oks)} / {len(oks)} |" for sid, oks in by_scenario.items()]
    failed = [c for c in checks if not c["ok"]]
    if failed:
        lines += ["", "Failed checks:", ""]
        lines += [f"- {c['scenario']} · {c['check']}: {_md_cell(c['why'])}" for c in failed]
    return [*lines, ""]


def _md_cell(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")[:300]


# ---------------------------------------------------------------------------------------------------
# plots


def _plt():  # type: ignore[no-untyped-def]
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


_COLORS = {
    "memscribe": "#d62728",
    "recent": "#7f7f7f",
    "bm25": "#1f77b4",
    "dense": "#2ca02c",
    "hybrid": "#9467bd",
    "mem0": "#ff7f0e",
}


def _plot_locomo(sec: dict[str, Any], out_dir: Path) -> list[Path]:
    """S and A by category for every budget; baselines at the same tokens (the judge's comparison)."""
    plt = _plt()
    budgets = sec["settings"]["budgets"]
    systems = sec["systems"]
    base = [n for n in BASE_NAMES if f"{n}/same" in systems]
    rows = [(v, m) for v in sec["measures"] for m in ("S", "A")]
    fig, axes = plt.subplots(
        len(rows), len(budgets), figsize=(5.2 * len(budgets), 3.3 * len(rows)), squeeze=False, sharey=True
    )
    import numpy as np

    x = np.arange(len(CAT_ORDER))
    names = ["memscribe", *base]
    width = 0.8 / len(names)
    for r, (variant, measure) in enumerate(rows):
        rec = sec["measures"][variant][measure]
        for c, b in enumerate(budgets):
            ax = axes[r][c]
            for j, name in enumerate(names):
                key = name if name == "memscribe" else f"{name}/same"
                row = rec.get(key, {}).get(str(b), {})
                ax.bar(
                    x + (j - (len(names) - 1) / 2) * width,
                    [row.get(cat, 0.0) for cat in CAT_ORDER],
                    width,
                    label=name if name == "memscribe" else _LABEL.get(name, name),
                    color=_COLORS.get(name),
                )
            ax.set_xticks(x, CAT_ORDER, fontsize=8)
            ax.set_ylim(0, 1)
            ax.grid(axis="y", alpha=0.3)
            ax.set_title(f"{MEASURE_NAMES[measure]} · {variant} evidence · budget {b}", fontsize=9)
            if c == 0:
                ax.set_ylabel(measure)
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.suptitle(
        "LoCoMo S and A by category: memscribe vs raw-turn baselines at the same tokens", fontsize=11
    )
    top = 1 - 0.75 / (3.3 * len(rows))
    fig.legend(
        handles, labels, loc="upper center", ncol=len(names), fontsize=8, bbox_to_anchor=(0.5, top + 0.005)
    )
    fig.tight_layout(rect=(0, 0, 1, top - 0.005))
    path = out_dir / "locomo_recall.png"
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return [path]


def _plot_speed(sec: dict[str, Any], out_dir: Path) -> list[Path]:
    plt = _plt()
    scales = sorted(sec["scales"], key=lambda s: s["n"])
    ns = [s["n"] for s in scales]
    fig, ax = plt.subplots(figsize=(9.5, 4.8))
    series = [
        ("search() p50", lambda s: s["search_ms"]["p50"], "#d62728", "-", "o"),
        ("search() p95", lambda s: s["search_ms"]["p95"], "#d62728", ":", "o"),
        ("context(1000) p50", lambda s: s["context_ms"]["p50"], "#ff7f0e", "-", "s"),
        ("context(1000) p95", lambda s: s["context_ms"]["p95"], "#ff7f0e", ":", "s"),
        ("add() per msg p50", lambda s: s["add_ms_per_msg"]["p50"], "#9467bd", "-", "^"),
        ("add() per msg p95", lambda s: s["add_ms_per_msg"]["p95"], "#9467bd", ":", "^"),
        ("baseline: numpy KNN + embed p50", lambda s: s["knn_ms"]["p50"], "#1f77b4", "--", "o"),
        ("baseline: numpy KNN only p50", lambda s: s["knn_only_ms"]["p50"], "#17becf", "--", "x"),
        ("baseline: raw insert p50", lambda s: s["raw_insert_ms_per_msg"]["p50"], "#2ca02c", "--", "^"),
    ]
    for label, get, color, ls, marker in series:
        ax.plot(
            ns, [max(get(s), 1e-3) for s in scales], color=color, linestyle=ls, marker=marker, label=label
        )
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("memories in the user's scope (log)")
    ax.set_ylabel("latency ms (log)")
    ax.set_title(
        "memscribe latency vs scale, with baselines (2-core machine, OMP_NUM_THREADS=1)", fontsize=10
    )
    ax.grid(True, which="both", alpha=0.3)
    if len(ns) == 1:
        ax.set_xlim(ns[0] / 3, ns[0] * 3)
    ax.set_xticks(ns, [f"{n:,}" for n in ns])
    ax.minorticks_off()
    ax.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.01, 0.5))
    fig.tight_layout()
    path = out_dir / "speed_latency.png"
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return [path]


# ---------------------------------------------------------------------------------------------------
# terminal


def print_locomo(res: dict[str, Any], console: Console) -> None:
    """One table per evidence variant (S / A / P and R per budget), the fill of each budget, the judge's line."""
    budgets = res["settings"]["budgets"]
    tokens = res["memscribe"]["tokens_used"]
    for variant, ms in res["measures"].items():
        t = Table(title=f"LoCoMo — {variant} evidence: S / A / P (R diagnostic)", show_lines=False)
        t.add_column("system")
        for b in budgets:
            t.add_column(f"S / A / P @{b}", justify="right")
            t.add_column(f"R @{b}", justify="right")
        for s in res["systems"]:
            if s not in ms["R"]:
                continue
            cells = []
            for b in budgets:
                v = {m: _f(ms[m].get(s, {}).get(str(b), {}).get("overall")) for m in ("S", "A", "P", "R")}
                cells += [f"{v['S']} / {v['A']} / {v['P']}", v["R"]]
            t.add_row(system_label(s), *cells, style="bold" if s == "memscribe" else None)
        console.print(t)
    console.print(" · ".join(f"@{b}: {fill_note(tokens.get(str(b), {}), b)}" for b in budgets), markup=False)
    ms = res["memscribe"]
    console.print(
        f"memories/100 turns {ms['memories_per_100_turns']:.1f} · evidence retention "
        f"{', '.join(f'{k} {_f(v)}' for k, v in ms['evidence_retention'].items())} · add p50/p95 "
        f"{ms['add_ms_per_msg_p50']:.1f}/{ms['add_ms_per_msg_p95']:.1f} ms/msg · "
        + " · ".join(
            f"context@{b} p50/p95 {v['p50']:.1f}/{v['p95']:.1f} ms" for b, v in ms["context_ms"].items()
        )
        + f" · {res['mem0']}"
    )
    for b in budgets:
        console.print(judge_line(res["measures"]["original"], b), markup=False, soft_wrap=True)


def judge_line(ms: dict[str, Any], budget: int) -> str:
    """The judge's last line, for one budget (baselines at the same tokens)."""

    def g(measure: str, system: str) -> float:
        return ms[measure].get(system, {}).get(str(budget), {}).get("overall", 0.0)

    def ratio(measure: str) -> str:
        b = g(measure, "bm25/same")
        return f"{g(measure, 'memscribe') / b:.2f}" if b else "—"

    return (
        f"locomo: memscribe S={g('S', 'memscribe'):.3f} bm25 S={g('S', 'bm25/same'):.3f} ratio={ratio('S')} | "
        f"A memscribe={g('A', 'memscribe'):.3f} bm25={g('A', 'bm25/same'):.3f} ratio={ratio('A')} | "
        f"P memscribe={g('P', 'memscribe'):.3f} bm25={g('P', 'bm25/same'):.3f} | "
        f"R memscribe={g('R', 'memscribe'):.3f} bm25={g('R', 'bm25/same'):.3f} (budget {budget})"
    )


def print_speed(res: dict[str, Any], console: Console) -> None:
    t = Table(title="memscribe speed: memscribe vs baseline (ratio = memscribe ÷ baseline)")
    t.add_column("p50 metric")
    scales = res["scales"]
    for s in scales:
        t.add_column(f"n={s['n']:,}", justify="right")

    def cell(a: float, b: float, r: float | None) -> str:
        return f"{_ms(a)} vs {_ms(b)} ({_x(r)})"

    rows = [
        (
            "search ms vs numpy KNN",
            lambda s: cell(s["search_ms"]["p50"], s["knn_ms"]["p50"], s["search_vs_knn"]["p50"]),
        ),
        (
            "context ms vs numpy KNN",
            lambda s: cell(s["context_ms"]["p50"], s["knn_ms"]["p50"], s["context_vs_knn"]["p50"]),
        ),
        (
            "add ms/msg vs raw insert",
            lambda s: cell(
                s["add_ms_per_msg"]["p50"], s["raw_insert_ms_per_msg"]["p50"], s["add_vs_raw"]["p50"]
            ),
        ),
        (
            "RSS MB vs KNN matrix MB",
            lambda s: f"{s['rss_after_queries']['rss_mb']:.0f} vs {s['knn_matrix_mb']:.0f}",
        ),
        (
            "disk MB vs raw payload MB",
            lambda s: (
                "—"
                if s["store_bytes"] is None
                else f"{s['store_bytes'] / 2**20:.0f} vs {s['raw_payload_bytes'] / 2**20:.0f}"
            ),
        ),
        (
            "cold start ms vs numpy",
            lambda s: f"{s['cold_start']['total_ms']:.0f} vs {s['cold_start_baseline']['total_ms']:.0f}",
        ),
    ]
    if any("search_ms" in (s.get("mem0") or {}) for s in scales):

        def vs_mem0(key: str, ratio: str):
            return lambda s: (
                cell(s[key]["p50"], s["mem0"][key]["p50"], s["mem0"][ratio]["p50"])
                if "search_ms" in (s.get("mem0") or {})
                else "—"
            )

        rows += [
            ("search ms vs Mem0 search", vs_mem0("search_ms", "search_vs_mem0")),
            ("add ms/msg vs Mem0 add (infer=False)", vs_mem0("add_ms_per_msg", "add_vs_mem0")),
        ]
    for label, get in rows:
        t.add_row(label, *(get(s) for s in scales))
    console.print(t)


def progress(console: Console) -> Progress:
    """The progress bar every long benchmark loop shows."""
    return Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
        transient=True,
    )

"""Score time-expression resolution on the labelled corpus (``data/labelled/time/*.jsonl``).

``python -m memscribe.bench.timecorpus`` prints memscribe's per-class table (start, end, grain, recurrence and
all four together); ``--candidates`` adds the third-party parsers measured on the same cases (dateparser's
``search_dates``, timefhuman, jionlp, Microsoft Recognizers-Text), scored on start and end only since none of them
reports a grain or a recurrence rule. ``--add`` runs the cases through ``Memory.add()`` (a fresh store per case,
so it is slow) and compares the stored memory's ``time_start``/``time_end`` — what a held-out corpus measures.

What memscribe answers for a case is what the rule encoder stores: ``primary_time(resolve_times(text, ref))``.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

__all__ = ["Answer", "Case", "Score", "corpus_dir", "load_cases", "memscribe_answer", "score", "table"]


@dataclass(frozen=True, slots=True)
class Case:
    id: str
    lang: str
    cls: str
    text: str
    ref: datetime
    start: datetime | None
    end: datetime | None
    grain: str | None
    recurrence: str | None


@dataclass(frozen=True, slots=True)
class Answer:
    start: datetime | None
    end: datetime | None
    grain: str | None = None
    recurrence: str | None = None


@dataclass(frozen=True, slots=True)
class Score:
    start: bool
    end: bool
    grain: bool
    recurrence: bool

    @property
    def all(self) -> bool:
        return self.start and self.end and self.grain and self.recurrence


def corpus_dir() -> Path:
    """The corpus folder of a source checkout (src/memscribe/bench -> repo root)."""
    return Path(__file__).resolve().parents[3] / "data" / "labelled" / "time"


def _dt(s: str | None) -> datetime | None:
    return datetime.fromisoformat(s) if s else None


def load_cases(folder: Path | None = None, langs: Iterable[str] = ("zh", "en")) -> list[Case]:
    folder = folder or corpus_dir()
    out = []
    for lang in langs:
        for line in (folder / f"{lang}.jsonl").read_text(encoding="utf-8").splitlines():
            r = json.loads(line)
            out.append(
                Case(
                    r["id"], r["lang"], r["class"], r["text"], datetime.fromisoformat(r["ref"]), _dt(r["start"]),
                    _dt(r["end"]), r["grain"], r["recurrence"],
                )
            )  # fmt: skip
    return out


def _rule_parts(rule: str | None) -> frozenset[str] | None:
    return None if rule is None else frozenset(p for p in rule.upper().split(";") if p)


def score(case: Case, ans: Answer, *, typed: bool = True) -> Score:
    """Exact match on start and end (wall clock and offset); ``typed=False`` (candidates) marks grain and
    recurrence as right, since those parsers do not report them."""
    if case.start is None:
        ok = ans.start is None
        return Score(ok, ok, ok, ok)
    return Score(
        ans.start == case.start and ans.start is not None and ans.start.utcoffset() == case.start.utcoffset(),
        ans.end == case.end,
        (ans.grain == case.grain) if typed else True,
        (_rule_parts(ans.recurrence) == _rule_parts(case.recurrence)) if typed else True,
    )


# ---------------------------------------------------------------- systems
def memscribe_answer(case: Case) -> Answer:
    from memscribe.lang.timeparse import primary_time, resolve_times

    m = primary_time(resolve_times(case.text, case.ref))
    if m is None:
        return Answer(None, None)
    return Answer(m.time_start, m.time_end, m.granularity, getattr(m, "recurrence", None))


def memscribe_add_answer(case: Case) -> Answer:
    """Through the public API, as a user of the library would: the stored memory's time fields."""
    from memscribe import Memory

    with tempfile.TemporaryDirectory() as home:
        mem = Memory(home)
        try:
            rep = mem.add([{"role": "user", "content": case.text}], user_id="u", at=case.ref)
            recs = [mem.get(i) for i in rep.added]
        finally:
            mem.close()
    rec = next((r for r in recs if r.time_start is not None), None)
    if rec is None:
        return Answer(None, None)
    st = rec.structured
    return Answer(
        rec.time_start.astimezone(case.ref.tzinfo),
        rec.time_end.astimezone(case.ref.tzinfo) if rec.time_end else None,
        st.get("grain"),
        st.get("recurrence"),
    )


_CLOCKY = (
    "am",
    "pm",
    ":",
    "点",
    "點",
    "时",
    "時",
    "noon",
    "midnight",
    "o'clock",
    "oclock",
    "hour",
    "minute",
    "小时",
)


def _as_day(text: str, dt: datetime, tz: Any) -> Answer:
    low = text.lower()
    if any(k in low for k in _CLOCKY):
        t0 = dt.replace(second=0, microsecond=0, tzinfo=tz)
        t1 = t0.replace(second=59) if t0.minute else t0.replace(minute=59, second=59)
        return Answer(t0, t1)
    t0 = dt.replace(hour=0, minute=0, second=0, microsecond=0, tzinfo=tz)
    return Answer(t0, t0.replace(hour=23, minute=59, second=59))


def dateparser_answer(case: Case) -> Answer:
    from dateparser.search import search_dates

    base = case.ref.replace(tzinfo=None)
    found = search_dates(
        case.text, languages=[case.lang], settings={"RELATIVE_BASE": base, "RETURN_AS_TIMEZONE_AWARE": False}
    )
    if not found:
        return Answer(None, None)
    text, dt = found[0]
    return _as_day(text, dt, case.ref.tzinfo)


def timefhuman_answer(case: Case) -> Answer:
    from timefhuman import tfhConfig, timefhuman

    if case.lang != "en":
        return Answer(None, None)
    try:
        found = timefhuman(
            case.text, config=tfhConfig(now=case.ref.replace(tzinfo=None), return_matched_text=True)
        )
    except Exception:  # third-party parser under test: any crash is a miss, scored as such
        return Answer(None, None)
    if not found:
        return Answer(None, None)
    text, _, val = found[0]
    tz = case.ref.tzinfo
    if isinstance(val, tuple) and len(val) == 2:
        a, b = (_as_day(text, v, tz) if isinstance(v, datetime) else None for v in val)
        if a is None or b is None:
            return Answer(None, None)
        return Answer(a.start, b.start if a.grain is None and a.start.hour + a.start.minute else b.end)
    if isinstance(val, datetime):
        return _as_day(text, val, tz)
    if hasattr(val, "year") and not isinstance(val, datetime):  # a date
        return _as_day("", datetime(val.year, val.month, val.day), tz)
    return Answer(None, None)


_JIO: list[Any] = []


def _jionlp() -> Any:
    """jionlp, imported quietly (it prints banners and logs tracebacks for unparsable candidates)."""
    if not _JIO:
        import contextlib
        import io
        import logging
        import types

        with contextlib.redirect_stdout(io.StringIO()):
            import jionlp
            from jionlp.gadget import time_parser
        quiet = logging.getLogger("memscribe.bench.jionlp").debug
        time_parser.logging = types.SimpleNamespace(error=quiet, warning=quiet, info=quiet)
        _JIO.append(jionlp)
    return _JIO[0]


def jionlp_answer(case: Case) -> Answer:
    jio = _jionlp()
    r = case.ref
    base = {
        "year": r.year,
        "month": r.month,
        "day": r.day,
        "hour": r.hour,
        "minute": r.minute,
        "second": r.second,
    }
    try:
        items = jio.ner.extract_time(case.text, time_base=base, with_parsing=True)
    except Exception:  # third-party parser under test: a crash is a miss
        return Answer(None, None)
    for it in items:
        t = it.get("detail", {}).get("time")
        if isinstance(t, list) and len(t) == 2 and all(isinstance(x, str) and x[:1].isdigit() for x in t):
            a, b = (datetime.fromisoformat(x).replace(tzinfo=r.tzinfo) for x in t)
            return Answer(a, b)
        if isinstance(t, dict):  # a time_delta or time_period: not a point in time
            continue
    return Answer(None, None)


def recognizers_answer(case: Case) -> Answer:
    from recognizers_date_time import Culture, recognize_datetime

    culture = Culture.Chinese if case.lang == "zh" else Culture.English
    try:
        res = recognize_datetime(case.text, culture, reference=case.ref.replace(tzinfo=None))
    except Exception:  # 2019 alpha: a crash is a miss
        return Answer(None, None)
    tz = case.ref.tzinfo
    for r in res:
        vals = (r.resolution or {}).get("values") or []
        if not vals:
            continue
        v = vals[-1]  # past/future alternatives: the last is the future reading
        typ = v.get("type", "")
        try:
            if typ in ("date", "datetime", "time") and "value" in v:
                val = v["value"]
                if typ == "time":
                    val = f"{case.ref.date().isoformat()} {val}"
                return _as_day(val if typ != "date" else "", datetime.fromisoformat(val), tz)
            if typ.endswith("range") and "start" in v:
                a = datetime.fromisoformat(
                    v["start"] if typ != "timerange" else f"{case.ref.date()} {v['start']}"
                )
                b = datetime.fromisoformat(
                    v["end"] if typ != "timerange" else f"{case.ref.date()} {v['end']}"
                )
                if typ == "daterange":  # exclusive end day
                    b = b - timedelta(seconds=1)
                return Answer(a.replace(tzinfo=tz), b.replace(tzinfo=tz))
        except (KeyError, ValueError):
            continue
    return Answer(None, None)


CANDIDATES: dict[str, Callable[[Case], Answer]] = {
    "dateparser": dateparser_answer,
    "timefhuman": timefhuman_answer,
    "jionlp": jionlp_answer,
    "recognizers": recognizers_answer,
}


# ---------------------------------------------------------------- tables
def table(
    cases: list[Case], answer: Callable[[Case], Answer], *, typed: bool = True
) -> dict[str, dict[str, Any]]:
    """Per (lang, class) counts of correct start / end / grain / recurrence / all; keys 'zh:clock', …, 'zh:ALL'."""
    acc: dict[str, dict[str, Any]] = defaultdict(
        lambda: {"n": 0, "start": 0, "end": 0, "grain": 0, "rec": 0, "all": 0}
    )
    fails: dict[str, list[tuple[Case, Answer]]] = defaultdict(list)
    for c in cases:
        a = answer(c)
        s = score(c, a, typed=typed)
        for key in (f"{c.lang}:{c.cls}", f"{c.lang}:ALL"):
            row = acc[key]
            row["n"] += 1
            row["start"] += s.start
            row["end"] += s.end
            row["grain"] += s.grain
            row["rec"] += s.recurrence
            row["all"] += s.all
        if not s.all:
            fails[c.lang].append((c, a))
    out = dict(sorted(acc.items(), key=lambda kv: (kv[0].split(":")[0], kv[0].endswith("ALL"), kv[0])))
    out["_fails"] = fails  # type: ignore[assignment]
    return out


def _pct(k: int, n: int) -> str:
    return f"{100 * k / n:5.1f}" if n else "  -  "


def render(name: str, t: dict[str, dict[str, Any]], typed: bool = True) -> str:
    cols = ["start", "end", "grain", "rec", "all"] if typed else ["start", "end", "all"]
    lines = [f"== {name}", f"{'class':28s} {'n':>5s} " + " ".join(f"{c:>6s}" for c in cols)]
    for key, row in t.items():
        if key.startswith("_"):
            continue
        lines.append(f"{key:28s} {row['n']:5d} " + " ".join(f"{_pct(row[c], row['n']):>6s}" for c in cols))
    return "\n".join(lines)


def _fmt(a: Answer) -> str:
    f = lambda d: d.isoformat()[:19] if d else None  # noqa: E731
    return f"{f(a.start)} .. {f(a.end)} {a.grain} {a.recurrence}"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m memscribe.bench.timecorpus", description=__doc__.split("\n\n")[0]
    )
    p.add_argument("--corpus", type=Path, default=None, help="folder with zh.jsonl / en.jsonl")
    p.add_argument("--lang", choices=["zh", "en"], default=None)
    p.add_argument("--candidates", action="store_true", help="also score the third-party parsers")
    p.add_argument("--only", default=None, help="comma list of candidates to run (with --candidates)")
    p.add_argument("--add", action="store_true", help="score through Memory.add() instead of the resolver")
    p.add_argument("--limit", type=int, default=None, help="every k-th case only (k = n / limit)")
    p.add_argument("--fails", type=int, default=0, help="print up to N failing memscribe cases per language")
    p.add_argument("--json", type=Path, default=None, help="write the tables as JSON")
    a = p.parse_args(argv)
    cases = load_cases(a.corpus, [a.lang] if a.lang else ("zh", "en"))
    if a.limit and a.limit < len(cases):
        step = len(cases) / a.limit
        cases = [cases[int(i * step)] for i in range(a.limit)]
    results: dict[str, Any] = {}
    name = "memscribe (Memory.add)" if a.add else "memscribe"
    t = table(cases, memscribe_add_answer if a.add else memscribe_answer)
    print(render(name, t))
    results[name] = {k: v for k, v in t.items() if not k.startswith("_")}
    for _lang, fl in t["_fails"].items():
        for c, ans in fl[: a.fails]:
            exp = Answer(c.start, c.end, c.grain, c.recurrence)
            print(
                f"  FAIL {c.id} [{c.cls}] {c.text!r} @ {c.ref.isoformat()[:16]}\n     want {_fmt(exp)}\n     got  {_fmt(ans)}"
            )
    if a.candidates:
        names = a.only.split(",") if a.only else list(CANDIDATES)
        for cand in names:
            try:
                t = table(cases, CANDIDATES[cand], typed=False)
            except ImportError as exc:
                print(f"== {cand}: not installed ({exc})")
                continue
            print(render(cand, t, typed=False))
            results[cand] = {k: v for k, v in t.items() if not k.startswith("_")}
    if a.json:
        a.json.write_text(json.dumps(results, indent=1, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

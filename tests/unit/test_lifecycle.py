"""Lifecycle: archive and restore, TTL expiry, inference decay, consolidation, near-duplicate merges,
dry runs, idempotence and restarts, and a shortened lifetime simulation."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memscribe import Memory, Settings
from memscribe.bench.simulate import simulate_year
from memscribe.config import LifecycleConfig, WriteConfig
from memscribe.index import keyword_text_for
from memscribe.lifecycle.archive import should_archive, should_expire
from memscribe.lifecycle.consolidate import (
    _overlapping_pairs,
    decay_inference,
    find_repeated_episodes,
    habit_text,
    merge_cluster,
    near_duplicate_clusters,
    semantic_from_episodes,
)
from memscribe.lifecycle.maintain import run_maintenance
from memscribe.models import Kind, Layer, MemoryRecord, Source, Status, new_memory_id

U = "u1"
CFG = LifecycleConfig()
DAY = timedelta(days=1)


@pytest.fixture
def base() -> datetime:
    # the pipeline stamps updated_at with the wall clock, so scenario time starts now and runs forward
    return datetime.now(UTC)


def _memory(home) -> Memory:
    # verification runs inside add() (no background worker), so snapshots are deterministic
    return Memory(settings=Settings(home=home, write=WriteConfig(verify="inline")))


def _rec(text: str, at: datetime, **fields) -> MemoryRecord:
    structured = {"subject": "用户", "lang": "zh", **fields.pop("structured", {})}
    return MemoryRecord(
        id=fields.pop("id", None) or new_memory_id(),
        user_id=fields.pop("user_id", U),
        text=text,
        created_at=at,
        updated_at=at,
        structured=structured,
        sources=fields.pop("sources", None) or [Source(message_id=f"m-{text[:6]}-{at.timestamp()}")],
        **fields,
    )


def _put(mem: Memory, text: str, at: datetime, **fields) -> MemoryRecord:
    """Insert a memory exactly as given (no write pipeline), with its vector, keyword entry and version."""
    rec = _rec(text, at, **fields)
    vec = mem.embedder.embed_passages([rec.text])[0]
    with mem._store.atomic():
        mem._store.put_memory(rec, vector=vec, keyword_text=keyword_text_for(rec))
        mem._store.add_version(rec, reason="test", actor="test", at=at)
    return rec


def _maintain(mem: Memory, now: datetime, **kw):
    mem.flush()
    return run_maintenance(mem._store, mem.embedder, mem.settings, now=now, **kw)


def _added(mem: Memory, text: str, at: datetime) -> MemoryRecord:
    report = mem.add(text, user_id=U, at=at)
    assert report.added, (text, report.items)
    return mem.get(report.added[0])


def _ids(hits) -> set[str]:
    return {h.memory.id for h in hits}


def _snapshot(mem: Memory) -> list[dict]:
    return sorted(mem.export(), key=lambda d: d["id"])


# ---------------------------------------------------------------------------------------------- pure rules
def test_should_archive_uses_last_activity_and_access_count(base):
    r = _rec("用户喜欢喝咖啡。", base, layer=Layer.semantic, kind=Kind.preference)
    assert should_archive(r, base + 89 * DAY, CFG) is None
    assert "not used for 91 days" in should_archive(r, base + 91 * DAY, CFG)
    assert should_archive(r.model_copy(update={"access_count": 3}), base + 200 * DAY, CFG) is None
    accessed = r.model_copy(update={"access_count": 2, "last_accessed_at": base + 30 * DAY})
    assert should_archive(accessed, base + 100 * DAY, CFG) is None
    assert should_archive(accessed, base + 121 * DAY, CFG)
    # written later than the message it came from (an import, a restore): the later time counts
    assert should_archive(r.model_copy(update={"updated_at": base + 50 * DAY}), base + 100 * DAY, CFG) is None
    for other in (Status.archived, Status.superseded, Status.deleted):
        assert should_archive(r.model_copy(update={"status": other}), base + 365 * DAY, CFG) is None
    assert should_archive(r.model_copy(update={"layer": Layer.working}), base + 365 * DAY, CFG) is None


def test_should_expire(base):
    r = _rec("临时：用户正在比价。", base, layer=Layer.working, expire_at=base + DAY)
    assert not should_expire(r, base)
    assert should_expire(r, base + DAY)
    assert not should_expire(r.model_copy(update={"expire_at": None}), base + 999 * DAY)
    assert not should_expire(r.model_copy(update={"status": Status.expired}), base + 2 * DAY)


def test_decay_inference_pure(base):
    inf = _rec("用户可能喜欢爵士乐。", base, structured={"inferred": True}, confidence=0.35)
    once = decay_inference(inf, CFG)
    assert once is not None and once.confidence == pytest.approx(0.315) and once.status == Status.active
    twice = decay_inference(once, CFG)
    assert twice is not None and twice.status == Status.archived
    assert decay_inference(_rec("用户喜欢咖啡。", base), CFG) is None
    confirmed = inf.model_copy(update={"structured": {**inf.structured, "confirmed": True}})
    assert decay_inference(confirmed, CFG) is None
    by_meta = _rec("用户可能在找工作。", base, metadata={"inferred": True})
    assert decay_inference(by_meta, CFG) is not None
    # at most once per maintenance day
    dated = decay_inference(inf, CFG, now=base)
    assert decay_inference(dated, CFG, now=base + timedelta(hours=2)) is None
    assert decay_inference(dated, CFG, now=base + DAY) is not None


def test_habit_text():
    assert habit_text("2026-11-30汇报前用户需要进度表。", "zh") == "通常：汇报前用户需要进度表。"
    assert (
        habit_text("The user needs the progress sheet before the report on 2026-12-02.", "en")
        == "Usually: The user needs the progress sheet before the report."
    )
    assert (
        habit_text("用户：2026-12-05和小王去了西湖。", "zh", subject="用户") == "通常：用户和小王去了西湖。"
    )


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.frozensets(st.sampled_from("abcdefghij"), max_size=7), max_size=25),
    st.sampled_from([0.5, 0.6, 0.75, 0.8, 1.0]),
)
def test_prefix_filter_finds_exactly_the_overlapping_pairs(sets, t):
    def jac(a, b):
        return len(a & b) / len(a | b)

    brute = {
        (i, j)
        for j in range(len(sets))
        for i in range(j)
        if sets[i] and sets[j] and jac(sets[i], sets[j]) >= t
    }
    assert _overlapping_pairs(sets, t) == brute


# ---------------------------------------------------------------------------------------------- archive
def test_cold_memory_archived_deep_search_and_restore(tmp_path, base):
    with _memory(tmp_path) as mem:
        cold = _added(mem, "我喜欢喝咖啡", base)
        warm = _added(mem, "我住在北京", base)
        for _ in range(2):
            mem._store.touch([cold.id], base)
        for _ in range(5):
            mem._store.touch([warm.id], base)

        report = _maintain(mem, base + 91 * DAY)
        assert report.archived == 1
        assert [(a.memory_id, a.action) for a in report.actions] == [(cold.id, "archive")]
        assert mem.get(cold.id).status == Status.archived
        assert mem.get(warm.id).status == Status.active
        archived = mem.get(cold.id)
        assert archived.version == cold.version + 1
        assert archived.updated_at == cold.updated_at  # archiving does not reset the inactivity clock
        assert report.active_before == {U: 2} and report.active_after == {U: 1}

        assert cold.id not in _ids(mem.search("用户喜欢喝什么", user_id=U))
        assert cold.id in _ids(mem.search("用户喜欢喝什么", user_id=U, deep=True))
        assert [e.action for e in mem.explain(cold.id) if e.stage == "maintain"] == ["archive"]

        mem.restore(cold.id)
        assert mem.get(cold.id).status == Status.active
        assert cold.id in _ids(mem.search("用户喜欢喝什么", user_id=U))


# ---------------------------------------------------------------------------------------------- expiry
def test_ttl_expiry_keeps_history(tmp_path, base):
    with _memory(tmp_path) as mem:
        temp = _put(mem, "用户这周在比较两款耳机。", base, layer=Layer.working, expire_at=base + DAY)
        timed = _put(mem, "用户的促销码今天有效。", base, kind=Kind.fact, expire_at=base + 3 * DAY)
        mem.working("t1", user_id=U).set("draft", "v1", ttl_hours=1, now=base)

        report = _maintain(mem, base + 2 * DAY)
        assert report.expired == 1 and report.working_items_expired == 1
        assert mem.get(temp.id).status == Status.expired
        assert mem.get(timed.id).status == Status.active
        history = mem.history(temp.id)
        assert [v.version for v in history] == [1, 2]
        assert history[0].record.status == Status.active and history[-1].record.status == Status.expired
        assert history[-1].actor == "maintain"
        assert mem._store.working_items(U) == []

        assert _maintain(mem, base + 4 * DAY).expired == 1
        assert mem.get(timed.id).status == Status.expired


# ---------------------------------------------------------------------------------------------- inference decay
def test_inference_confidence_decays_until_archived(tmp_path, base):
    with _memory(tmp_path) as mem:
        guess = _put(mem, "用户可能喜欢爵士乐。", base, kind=Kind.preference, structured={"inferred": True})
        sure = _put(
            mem,
            "用户可能在准备考研。",
            base,
            kind=Kind.plan,
            structured={"inferred": True, "confirmed": True},
        )
        seen = []
        for day in range(1, 13):
            report = _maintain(mem, base + day * DAY)
            again = _maintain(mem, base + day * DAY + timedelta(hours=1))  # same day: no second decay
            assert again.actions == []
            rec = mem.get(guess.id)
            seen.append(rec.confidence)
            if day < 12:
                assert rec.status == Status.active and report.confidence_decayed == 1
        assert seen[0] == pytest.approx(0.9) and seen[10] == pytest.approx(0.9**11, abs=1e-5)
        final = mem.get(guess.id)
        assert final.confidence == pytest.approx(0.9**12, abs=1e-5) and final.confidence < 0.3
        assert final.status == Status.archived and report.archived == 1
        assert final.updated_at == guess.updated_at
        untouched = mem.get(sure.id)
        assert untouched.confidence == 1.0 and untouched.version == 1
        assert _maintain(mem, base + 13 * DAY).confidence_decayed == 0  # archived: decays no more


# ---------------------------------------------------------------------------------------------- consolidation
def test_repeated_episodes_consolidate_into_one_semantic_memory(tmp_path, base):
    with _memory(tmp_path) as mem:
        eps = [
            _added(mem, "周一汇报前我需要进度表", base),
            _added(mem, "周三汇报前我又需要进度表了", base + 9 * DAY),
            _added(mem, "周五汇报前我需要一份进度表", base + 18 * DAY),
        ]
        _added(mem, "周二我去健身房练腿", base + 2 * DAY)  # an unrelated episode
        assert all(e.layer == Layer.episodic and e.status == Status.active for e in eps)

        report = _maintain(mem, base + 19 * DAY)
        assert report.consolidated == 1 and report.merged == 0
        sem_id = next(a.memory_id for a in report.actions if a.action == "consolidate")
        sem = mem.get(sem_id)
        assert sem.layer == Layer.semantic and sem.kind == Kind.fact
        assert sem.text.startswith("通常：") and "进度表" in sem.text
        assert {(link.type, link.target) for link in sem.links} == {("derived_from", e.id) for e in eps}
        assert sem.structured["consolidated_from"] == 3 and sem.structured["subject"] == "用户"
        assert {s.message_id for s in sem.sources} == {s.message_id for e in eps for s in e.sources}
        assert sem.importance == max(e.importance for e in eps)
        assert [v.version for v in mem.history(sem_id)] == [1]
        assert all(mem.get(e.id).status == Status.active for e in eps)  # episodes stay (and age out)
        assert sem_id in _ids(mem.search("汇报前需要准备什么", user_id=U))

        assert _maintain(mem, base + 19 * DAY).actions == []  # idempotent

        fourth = _added(mem, "下周一汇报前我也需要进度表", base + 25 * DAY)
        again = _maintain(mem, base + 26 * DAY)
        assert again.consolidated == 0 and again.reinforced == 1
        sem = mem.get(sem_id)
        assert sem.structured["consolidated_from"] == 4 and sem.version == 2
        assert ("derived_from", fourth.id) in {(link.type, link.target) for link in sem.links}


def test_semantic_from_english_episodes(base):
    eps = [
        _rec(
            f"The user needs the progress sheet before the report on 2026-12-0{d}.",
            base + d * DAY,
            kind=Kind.plan,
            layer=Layer.episodic,
            importance=0.5 + d / 10,
            structured={"subject": "the user", "lang": "en"},
        )
        for d in (1, 3, 5)
    ]
    sem = semantic_from_episodes(eps, base + 6 * DAY)
    assert sem.text == "Usually: The user needs the progress sheet before the report."
    assert sem.layer == Layer.semantic and sem.kind == Kind.fact and sem.importance == pytest.approx(1.0)
    assert sem.structured == {"subject": "the user", "kind": "fact", "consolidated_from": 3, "lang": "en"}
    prefs = [e.model_copy(update={"kind": Kind.preference}) for e in eps]
    assert semantic_from_episodes(prefs, base).kind == Kind.preference


def test_different_episodes_do_not_cluster(tmp_path, base):
    with _memory(tmp_path) as mem:
        for i, text in enumerate(
            ["周一我去健身房练腿", "周三我和小王去看电影", "周五我去超市买菜", "周六我去医院体检"]
        ):
            _added(mem, text, base + i * DAY)
        recs = mem._store.list_memories(U)
        vecs = mem._store.get_vectors([r.id for r in recs])
        assert find_repeated_episodes(recs, vecs) == []
        assert _maintain(mem, base + 10 * DAY).consolidated == 0


# ---------------------------------------------------------------------------------------------- near-duplicates
def test_near_duplicates_merge_with_versions_and_rollback(tmp_path, base):
    with _memory(tmp_path) as mem:
        kw = {"layer": Layer.semantic, "kind": Kind.preference}
        old = _put(mem, "用户坐飞机喜欢靠窗座位。", base, **kw)
        new = _put(mem, "用户坐飞机时喜欢靠窗的座位。", base + 5 * DAY, **kw)
        coffee = _put(mem, "用户喜欢喝咖啡。", base, **kw)
        tea = _put(mem, "用户喜欢喝茶。", base + DAY, **kw)  # cosine 0.97, but a different fact

        report = _maintain(mem, base + 10 * DAY)
        assert report.merged == 1
        assert {(a.memory_id, a.action) for a in report.actions} == {(new.id, "merge"), (old.id, "supersede")}
        survivor, retired = mem.get(new.id), mem.get(old.id)
        assert survivor.status == Status.active and survivor.version == 2
        assert {s.message_id for s in survivor.sources} == {
            s.message_id for s in (*old.sources, *new.sources)
        }
        assert retired.status == Status.superseded and retired.superseded_by == new.id
        assert retired.version == 2
        assert mem.get(coffee.id).status == Status.active and mem.get(tea.id).status == Status.active
        assert [(v.memory_id, v.version) for v in mem.history(new.id)] == [
            (old.id, 1),
            (old.id, 2),
            (new.id, 1),
            (new.id, 2),
        ]

        mem.rollback(old.id, 1)
        assert mem.get(old.id).status == Status.active and mem.get(old.id).version == 3
        mem.rollback(new.id, 1)
        assert {s.message_id for s in mem.get(new.id).sources} == {s.message_id for s in new.sources}


def test_different_order_ids_never_merge(tmp_path, base):
    with _memory(tmp_path) as mem:
        a = _put(mem, "用户的订单号是A123。", base, structured={"ids": ["A123"]})
        b = _put(mem, "用户的订单号是B456。", base + DAY, structured={"ids": ["B456"]})
        c = _put(mem, "用户下单买了3本书。", base)
        d = _put(mem, "用户下单买了5本书。", base + DAY)
        via_add = [_added(mem, "我的快递单号是SF1234567", base), _added(mem, "我的快递单号是SF7654321", base)]
        recs = mem._store.list_memories(U)
        assert (
            near_duplicate_clusters(recs, mem._store.get_vectors([r.id for r in recs]), similarity=0.5) == []
        )
        report = _maintain(mem, base + 2 * DAY)
        assert report.merged == 0
        assert all(mem.get(r.id).status == Status.active for r in (a, b, c, d, *via_add))


def test_slot_must_match(base):
    a = _rec("用户住在北京。", base, structured={"slot": "用户|residence"})
    b = _rec("用户住在北京。", base + DAY, structured={"slot": "用户|hometown"})
    c = _rec("用户住在北京。", base + 2 * DAY)
    vecs = {r.id: [1.0, 0.0] for r in (a, b, c)}
    import numpy as np

    vecs = {k: np.asarray(v, dtype=np.float32) for k, v in vecs.items()}
    assert near_duplicate_clusters([a, b, c], vecs) == []
    same = c.model_copy(update={"structured": {**c.structured, "slot": "用户|residence"}})
    (cluster,) = near_duplicate_clusters([a, b, same], vecs)
    survivor, retired = merge_cluster(cluster)
    assert survivor.id == same.id and [r.id for r in retired] == [a.id]


# ---------------------------------------------------------------------------------------------- dry run, idempotence, restart
def _busy_store(mem: Memory, base: datetime) -> None:
    _added(mem, "我喜欢喝咖啡", base)
    _put(mem, "用户这周在比较两款耳机。", base, layer=Layer.working, expire_at=base + DAY)
    _put(mem, "用户可能喜欢爵士乐。", base + 80 * DAY, structured={"inferred": True})
    kw = {"layer": Layer.semantic, "kind": Kind.preference}
    _put(mem, "用户坐飞机喜欢靠窗座位。", base + 80 * DAY, **kw)
    _put(mem, "用户坐飞机时喜欢靠窗的座位。", base + 85 * DAY, **kw)
    for i, text in enumerate(
        ["周一汇报前我需要进度表", "周三汇报前我又需要进度表了", "周五汇报前我需要一份进度表"]
    ):
        mem.add(text, user_id=U, at=base + (80 + 3 * i) * DAY)


def test_dry_run_writes_nothing_and_predicts_the_real_run(tmp_path, base):
    now = base + 91 * DAY
    with _memory(tmp_path) as mem:
        _busy_store(mem, base)
        mem.flush()
        before = _snapshot(mem)
        audit_before = len(mem._store.audit_for(user_id=U))
        dry = _maintain(mem, now, dry_run=True)
        assert dry.dry_run
        assert (dry.expired, dry.archived, dry.merged, dry.consolidated, dry.confidence_decayed) == (
            1,
            1,
            1,
            1,
            1,
        )
        assert _snapshot(mem) == before
        assert len(mem._store.audit_for(user_id=U)) == audit_before

        real = _maintain(mem, now)
        assert real.counts() == dry.counts()
        assert real.active_after == dry.active_after
        assert _snapshot(mem) != before


def test_second_run_changes_nothing(tmp_path, base):
    now = base + 91 * DAY
    with _memory(tmp_path) as mem:
        _busy_store(mem, base)
        first = _maintain(mem, now)
        assert first.actions
        after_first = _snapshot(mem)
        second = _maintain(mem, now)
        assert second.actions == [] and second.skipped == 0
        assert _snapshot(mem) == after_first
        assert second.active_before == second.active_after == first.active_after


def test_interrupted_run_is_completed_by_the_next(tmp_path, base, monkeypatch):
    now = base + 91 * DAY
    with _memory(tmp_path) as mem:
        _busy_store(mem, base)
        mem.flush()
        expected = _maintain(mem, now, dry_run=True).counts()
        real_add_audit = mem._store.add_audit
        calls = {"n": 0}

        def failing(events):
            calls["n"] += 1
            if calls["n"] == 3:
                raise RuntimeError("power cut")
            return real_add_audit(events)

        monkeypatch.setattr(mem._store, "add_audit", failing)
        with pytest.raises(RuntimeError):
            _maintain(mem, now)
        monkeypatch.setattr(mem._store, "add_audit", real_add_audit)
        rest = _maintain(mem, now)
        assert 0 < len(rest.actions) < sum(expected.values())
        assert _maintain(mem, now).actions == []
        statuses = mem.stats(user_id=U)["memories_by_status"]
        assert statuses.get("expired") == 1 and statuses.get("superseded") == 1


def test_concurrent_change_is_skipped_not_lost(tmp_path, base, monkeypatch):
    with _memory(tmp_path) as mem:
        cold = _added(mem, "我喜欢喝咖啡", base)
        real_get = mem._store.get_memories

        def edited_meanwhile(ids):
            out = real_get(ids)
            if cold.id in out:  # a user edit lands between the read and the write
                rec = out[cold.id]
                out[cold.id] = rec.model_copy(update={"version": rec.version + 1})
            return out

        monkeypatch.setattr(mem._store, "get_memories", edited_meanwhile)
        report = _maintain(mem, base + 91 * DAY)
        assert report.skipped == 1 and report.archived == 0
        assert mem.get(cold.id).status == Status.active


def test_report_growth_rate_and_user_scope(tmp_path, base):
    with _memory(tmp_path) as mem:
        for i in range(6):
            mem.add(f"我第{i + 1}次去了上海出差", user_id=U, at=base + i * 5 * DAY)
        mem.add("我喜欢喝咖啡", user_id="other", at=base)
        report = _maintain(mem, base + 30 * DAY, user_id=U)
        assert report.users == [U] and "other" not in report.active_before
        assert report.growth_rate == pytest.approx(5 / 30, abs=1e-3)


# ---------------------------------------------------------------------------------------------- simulation
def test_simulated_lifetime_is_bounded_and_keeps_what_is_used(tmp_path):
    settings = Settings(
        home=tmp_path,
        write=WriteConfig(verify="off"),
        lifecycle=LifecycleConfig(archive_after_days=14),
    )
    out = simulate_year(tmp_path, msgs_per_day=20, days=60, seed=1, settings=settings)
    sizes = out["active_per_day"]
    assert len(sizes) == 60
    assert out["slope_last"] < 0.5 * out["slope_first"]
    assert out["recently_accessed"] > 0
    assert out["recently_accessed_lost"] == []
    assert out["maintenance_runs"] >= 8
    assert out["archived"] > 0 and out["consolidated"] >= 1


def test_pinned_memories_are_left_alone_by_maintenance(tmp_path):
    from datetime import UTC, datetime, timedelta

    m = Memory(home=tmp_path / "pin")
    try:
        keep = m.add("Remember: the spare key is under the blue pot.", user_id="u", at="2026-01-01T10:00:00Z")
        cold = m.add(
            "Remember: the garage code is on the fridge note.", user_id="u", at="2026-01-01T10:00:00Z"
        )
        m.update(keep.added[0], metadata={"pinned": True})
        rep = m.maintain(now=datetime.now(UTC) + timedelta(days=200))
        assert m.get(keep.added[0]).status.value == "active"
        assert m.get(cold.added[0]).status.value == "archived"
        assert rep.counts().get("archive", 0) >= 1
    finally:
        m.close()

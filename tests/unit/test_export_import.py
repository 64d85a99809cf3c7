"""Export -> import is lossless: a store rebuilt from its export equals the original field by field —
records in every status, versions, links (supersedes / superseded_by / derived_from / related), sources,
access statistics, the audit trail, and vault values still sealed.

Not compared, because an export deliberately leaves them out: store-local row ids (audit ids, pks),
session windows, working-memory scratch items, counters and the job queue (transient or statistics).
Vectors and keyword entries are rebuilt on import with the store's embedder, so they are compared by
value and by what search returns.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from memscribe import Memory, errors
from memscribe.interfaces.cli import app
from memscribe.models import Kind, Layer, Link, MemoryRecord, Source, Version


def _build(home: Path) -> Memory:
    mem = Memory(home=home)

    def add(text: str, **kw) -> str | None:  # type: ignore[no-untyped-def]
        kw.setdefault("user_id", "u1")
        rep = mem.add(text, **kw)
        return rep.items[0].memory_id

    boston = add("I live in Boston.", at="2026-01-05T10:00:00+00:00", session_id="a", agent_id="bot")
    seattle = add("I moved to Seattle last month.", at="2026-03-05T10:00:00+00:00", session_id="a")
    cilantro = add(
        "我不吃香菜。", at="2026-03-06T10:00:00+08:00", session_id="b", metadata={"channel": "app"}
    )
    add("我不吃香菜", at="2026-03-07T10:00:00+08:00", session_id="c")  # said again: merged, version 2
    address = add("以后下单都寄这个地址：上海市浦东新区张江路123号5栋201室", at="2026-03-08T10:00:00+08:00")
    review = add("下周二下午三点开项目评审会。", at="2026-06-08T10:00:00+08:00")
    jazz = add("I love jazz.", at="2026-03-09T10:00:00+00:00")
    add("这次用markdown格式回答", at="2026-03-09T10:00:00+08:00")  # working layer, expires
    add("ok thanks", user_id="u2")  # dropped: u2 exists only in the audit trail
    add("I love hiking in the Alps.", user_id="u3", at="2026-02-01T10:00:00+00:00")
    assert None not in (boston, seattle, cilantro, address, review, jazz)
    mem.update(jazz, text="The user loves jazz, especially Coltrane.", reason="user corrected")
    mem.rollback(jazz, 1)
    mem.delete(review, reason="cancelled")
    mem.search("香菜", user_id="u1")  # access statistics
    mem.flush()
    # a consolidated memory derived from episodes, with other link types (as maintain() writes them)
    now = mem.get(cilantro).created_at
    rec = MemoryRecord(
        id="mem_consolidated_1",
        user_id="u1",
        layer=Layer.semantic,
        kind=Kind.preference,
        text="The user avoids cilantro in every meal.",
        raw="consolidated",
        links=[
            Link(type="derived_from", target=cilantro),
            Link(type="related", target=seattle),
            Link(type="contradicts", target=jazz),
        ],
        sources=[Source(message_id="m-x", session_id="b", role="user", name="Ann", at=now)],
        structured={"mentions": 3, "nested": {"a": [1, {"b": None}]}},
        confidence=0.7,
        created_at=now,
        updated_at=now,
    )
    with mem._store.atomic():
        mem._store.put_memory(rec, vector=mem.embedder.embed_passages([rec.text])[0], keyword_text=rec.text)
        mem._store.add_version(rec, reason="consolidate", actor="maintain", at=now)
    return mem


def _state(mem: Memory) -> dict:
    """Everything an export promises to carry, in comparable form."""
    store = mem._store
    users = sorted({*store.iter_users(), *(e.user_id for e in store.audit_for())})
    out: dict = {"users": users, "memories": {}, "versions": {}, "vault": {}, "audit": {}}
    for u in users:
        recs = store.list_memories(u, statuses=None)
        out["memories"][u] = [r.model_dump(mode="json") for r in recs]  # in insertion order
        for r in recs:
            out["versions"][r.id] = [v.model_dump(mode="json") for v in store.versions(r.id)]
            out["vault"][r.id] = [
                {k: getattr(s, k) for k in ("label", "kind", "ciphertext", "key_id")}
                for s in store.secrets_for(r.id)
            ]
        out["audit"][u] = [e.model_dump(mode="json", exclude={"id"}) for e in store.audit_for(user_id=u)]
    out["links"] = sorted(store._exec("SELECT src, dst, type, user_id FROM links"))
    return out


@pytest.fixture
def original(tmp_path):  # type: ignore[no-untyped-def]
    mem = _build(tmp_path / "a")
    yield mem
    mem.close()


def test_round_trip_is_lossless_field_by_field(tmp_path, original) -> None:
    dump = json.loads(json.dumps(original.export()))  # through JSON, as a file would carry it
    before = _state(original)
    assert {r["status"] for recs in before["memories"].values() for r in recs} >= {
        "active",
        "superseded",
        "deleted",
    }
    assert before["users"] == ["u1", "u2", "u3"] and before["audit"]["u2"]  # u2: only dropped messages
    shutil.copy(tmp_path / "a" / "vault.key", tmp_path / "b.key")

    copy_home = tmp_path / "b"
    copy_home.mkdir()
    shutil.copy(tmp_path / "b.key", copy_home / "vault.key")  # the same vault key
    copy = Memory(home=copy_home)
    assert copy.import_(dump).memories == sum(len(v) for v in before["memories"].values())
    after = _state(copy)
    for part in ("users", "memories", "versions", "vault", "audit", "links"):
        assert after[part] == before[part], part
    assert copy.export() == dump  # and the copy exports exactly what the original did

    # derived data rebuilt: the same vectors, the same search results, the same history and explanations
    ids = [r["id"] for recs in before["memories"].values() for r in recs]
    va, vb = original._store.get_vectors(ids), copy._store.get_vectors(ids)
    assert set(va) == set(vb) == set(ids)
    assert all(np.allclose(va[i], vb[i], atol=1e-6) for i in ids)
    for q, u in (("香菜", "u1"), ("Where does the user live?", "u1"), ("hiking", "u3")):
        assert [h.memory.id for h in copy.search(q, user_id=u)] == [
            h.memory.id for h in original.search(q, user_id=u)
        ]
    for i in ids:
        assert [v.model_dump() for v in copy.history(i)] == [v.model_dump() for v in original.history(i)]
        assert [e.model_dump(exclude={"id"}) for e in copy.explain(i)] == [
            e.model_dump(exclude={"id"}) for e in original.explain(i)
        ]
    # sealed values open with the key they were sealed with
    addr = next(r for r in copy.list(user_id="u1") if "[地址#1]" in r.text)
    assert (
        copy.reveal(addr.id) == original.reveal(addr.id) == {"[地址#1]": "上海市浦东新区张江路123号5栋201室"}
    )
    assert "张江路" not in json.dumps(dump, ensure_ascii=False)
    copy.close()


def test_sealed_values_stay_sealed_without_the_key(tmp_path, original) -> None:
    other = Memory(home=tmp_path / "c")  # its own, different vault key
    other.import_(original.export())
    addr = next(r for r in other.list(user_id="u1") if "[地址#1]" in r.text)
    with pytest.raises(errors.VaultError):
        other.reveal(addr.id)
    other.close()


def test_importing_twice_changes_nothing(tmp_path, original) -> None:
    dump = original.export()
    n = sum(1 for d in dump if d.get("_type") != "audit")
    copy = Memory(home=tmp_path / "d")
    first = copy.import_(dump)
    assert (first.added, first.embedded, first.unchanged, first.conflicts) == (n, n, 0, [])
    once = _state(copy)
    again = copy.import_(iter(dump), batch_size=3)  # streamed, in small batches
    assert _state(copy) == once
    # every memory recognised as already here: none rewritten, none re-embedded, no conflict
    assert (again.memories, again.unchanged, again.written, again.embedded) == (n, n, 0, 0)
    assert again.conflicts == [] and again.sealed_elsewhere == first.sealed_elsewhere  # d has its own key
    copy.close()


def test_reimport_keeps_a_newer_local_version_and_reports_it(tmp_path, original) -> None:
    """Issue 19: an export re-imported after a local edit must not revert the edit (v2 back to v1)."""
    dump = json.loads(json.dumps(original.export()))
    hike = next(r for r in original.list(user_id="u3"))
    original.update(hike.id, text="The user loves hiking in the Dolomites.", reason="user corrected")
    local = original.get(hike.id)
    rep = original.import_(dump)
    assert original.get(hike.id).model_dump() == local.model_dump()  # the local v2 stands
    assert [c.memory_id for c in rep.conflicts] == [hike.id] and rep.conflict_ids == [hike.id]
    c = rep.conflicts[0]
    assert (c.local_version, c.imported_version) == (local.version, hike.version) and "newer" in c.reason
    assert rep.written == 0 and rep.embedded == 0
    assert rep.unchanged == rep.memories - 1
    assert any(hike.id in w for w in rep.warnings())
    # the same id under another user is never moved into that user's scope
    stolen = {**json.loads(json.dumps(next(d for d in dump if d.get("id") == hike.id))), "user_id": "u1"}
    stolen["_versions"] = [{**v, "record": {**v["record"], "user_id": "u1"}} for v in stolen["_versions"]]
    stolen["version"] = 99
    clash = original.import_([stolen])
    assert clash.conflict_ids == [hike.id] and "belongs to user 'u3'" in clash.conflicts[0].reason
    assert original.get(hike.id).user_id == "u3"
    assert [v.version for v in original.history(hike.id)][-1] == local.version


def test_import_applies_a_newer_version_and_refuses_a_diverged_one(tmp_path, original) -> None:
    """A copy behind the export is brought forward (re-embedded only when the text changed); a copy that
    was changed on its own since their common version keeps its version and reports a conflict."""
    base = json.loads(json.dumps(original.export()))
    behind, diverged = Memory(home=tmp_path / "behind"), Memory(home=tmp_path / "diverged")
    behind.import_(base)
    diverged.import_(base)
    hike = next(r for r in original.list(user_id="u3"))
    original.update(hike.id, text="The user loves hiking in the Alps and Dolomites.", reason="more")
    original.update(hike.id, text="The user loves hiking in the Dolomites.", reason="user corrected")
    diverged.update(hike.id, text="The user loves hiking in Patagonia.", reason="edited here")
    ahead = json.loads(json.dumps(original.export()))

    fwd = behind.import_(ahead)
    assert (fwd.updated, fwd.embedded, fwd.conflicts) == (1, 1, [])
    assert behind.get(hike.id).text == "The user loves hiking in the Dolomites."
    assert [v.version for v in behind.history(hike.id)] == [v.version for v in original.history(hike.id)]
    assert behind.search("Dolomites", user_id="u3")[0].memory.id == hike.id  # the new text's vector

    rep = diverged.import_(ahead)
    assert rep.conflict_ids == [hike.id] and "both changed" in rep.conflicts[0].reason
    assert diverged.get(hike.id).text == "The user loves hiking in Patagonia." and rep.written == 0
    diverged.update(hike.id, text="The user loves hiking in Chile.", reason="edited again")  # now v3 too
    same_number = diverged.import_(ahead).conflicts[0]
    assert (same_number.local_version, same_number.imported_version) == (
        3,
        3,
    ) and "differ" in same_number.reason
    for m in (behind, diverged):
        m.close()


def test_import_reports_values_sealed_with_another_key(tmp_path, original) -> None:
    """#19.6: the import says which memories hold vaulted values this store's key cannot open."""
    dump = original.export()
    sealed = sorted(d["id"] for d in dump if d.get("_vault"))
    assert sealed
    other = Memory(home=tmp_path / "k")  # its own vault key
    rep = other.import_(dump)
    assert sorted(rep.sealed_elsewhere) == sealed
    assert any("another vault key" in w for w in rep.warnings())
    same = tmp_path / "same"
    same.mkdir()
    shutil.copy(tmp_path / "a" / "vault.key", same / "vault.key")
    with Memory(home=same) as mem:
        assert mem.import_(dump).sealed_elsewhere == []
    other.close()


def test_a_bad_item_writes_nothing(tmp_path, original) -> None:
    dump = original.export()
    bad = [*dump[:5], {"id": "x", "user_id": "u1"}, *dump[5:]]  # no text, no timestamps
    copy = Memory(home=tmp_path / "e")
    with pytest.raises(errors.InputError, match="item 6"):
        copy.import_(bad)
    assert copy._store.count_memories() == {} and copy._store.audit_for() == []
    with pytest.raises(errors.InputError, match="another memory"):
        rec = dict(dump[-1])
        rec["_versions"] = [dict(v, memory_id="mem_other") for v in rec["_versions"]]
        copy.import_([rec])
    with pytest.raises(errors.InputError, match="unknown item type"):
        copy.import_([{"_type": "nope"}])
    copy.close()


def test_old_exports_without_audit_or_vault_still_import(tmp_path) -> None:
    now = "2026-06-01T09:00:00+00:00"
    rec = {"id": "m1", "user_id": "u1", "text": "The user likes tea.", "created_at": now, "updated_at": now}
    v1 = Version(
        memory_id="m1", version=1, record=MemoryRecord.model_validate(rec), reason="add", created_at=now
    )
    mem = Memory(home=tmp_path / "f")
    assert mem.import_([{**rec, "_versions": [v1.model_dump(mode="json")]}]).memories == 1
    assert mem.get("m1").text == "The user likes tea." and len(mem.history("m1")) == 1
    assert mem.search("tea", user_id="u1", deep=True)[0].memory.id == "m1"
    mem.close()


def test_cli_export_import_round_trip(tmp_path, original) -> None:
    original.close()
    runner = CliRunner()
    out = tmp_path / "dump.jsonl"
    res = runner.invoke(app, ["export", "--home", str(tmp_path / "a"), "--out", str(out)])
    assert res.exit_code == 0, res.output
    lines = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert any(d.get("_type") == "audit" for d in lines) and any("_vault" in d for d in lines)
    res = runner.invoke(app, ["import", str(out), "--home", str(tmp_path / "g")])
    assert res.exit_code == 0, res.output
    n = sum(1 for d in lines if d.get("_type") != "audit")
    assert f"imported {n} memories: {n} added, 0 updated, 0 unchanged, 0 conflicts" in res.stdout
    # the progress bars (on stderr; outside a terminal rich prints their final state once)
    assert re.search(rf"checking .*{len(lines)}/{len(lines)} lines", res.stderr), res.stderr
    assert re.search(rf"importing .*{len(lines)}/{len(lines)} lines .*/s", res.stderr), res.stderr
    again = runner.invoke(app, ["import", str(out), "--home", str(tmp_path / "g"), "--json"])
    assert again.exit_code == 0, again.output
    rep = json.loads(again.stdout)
    assert (rep["memories"], rep["unchanged"], rep["added"], rep["updated"], rep["embedded"]) == (
        n,
        n,
        0,
        0,
        0,
    )
    assert rep["conflicts"] == [] and rep["sealed_elsewhere"]  # g has its own vault key: warned
    assert "another vault key" in again.stderr
    a, g = Memory(home=tmp_path / "a"), Memory(home=tmp_path / "g")
    assert g.export() == a.export()
    a.close()
    g.close()
    broken = tmp_path / "broken.jsonl"
    broken.write_text(out.read_text(encoding="utf-8") + "{not json\n", encoding="utf-8")
    res = runner.invoke(app, ["import", str(broken), "--home", str(tmp_path / "h")])
    assert res.exit_code == 2
    h = Memory(home=tmp_path / "h")
    assert h._store.count_memories() == {}  # the first pass refused the file: nothing written
    h.close()

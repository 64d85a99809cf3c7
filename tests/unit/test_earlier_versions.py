"""A recalled memory that superseded another brings the version it replaced, labelled (read/history.py)."""

from __future__ import annotations

from memscribe import Memory
from memscribe.models import Link, Status
from memscribe.read.history import with_earlier_versions
from memscribe.read.rerank import Scored
from memscribe.testing.store_contract import make_record


def _scored(*recs) -> list[Scored]:  # type: ignore[no-untyped-def]
    return [Scored(record=r, score=1.0 - i / 10, why={}) for i, r in enumerate(recs)]


def test_the_replaced_version_follows_its_successor_once() -> None:
    old = make_record("old", text="card valid until 2025-01-21, number LX55031", status=Status.superseded)
    gone = make_record("gone", text="a deleted earlier version", status=Status.deleted)
    theirs = make_record("theirs", "u2", text="another user's memory", status=Status.superseded)
    new = make_record(
        "new", text="card extended to 2025-02-17", links=[Link(type="supersedes", target="old")]
    )
    other = make_record("other", text="unrelated", links=[Link(type="supersedes", target="gone")])
    leak = make_record("leak", text="crafted link", links=[Link(type="supersedes", target="theirs")])
    store = {r.id: r for r in (old, gone, theirs)}
    asked: list[list[str]] = []

    def get(ids: list[str]):  # type: ignore[no-untyped-def]
        asked.append(ids)
        return {i: store[i] for i in ids if i in store}

    out = with_earlier_versions(_scored(new, other, leak), get, user_id=new.user_id)
    assert [s.record.id for s in out] == ["new", "old", "other", "leak"]
    assert out[1].why == {"earlier_version_of": "new"} and out[1].score < out[0].score
    assert asked == [["old", "gone", "theirs"]]  # one lookup for the whole list
    # recalled on its own (a filter on status asked for it), it is not added a second time
    again = with_earlier_versions(_scored(new, old), get, user_id=new.user_id)
    assert [s.record.id for s in again] == ["new", "old"] and again[1].why == {}


def test_context_shows_what_a_supersede_replaced_and_says_it_was_replaced(tmp_path) -> None:
    with Memory(home=tmp_path / "m") as mem:
        mem.add(
            [
                {"role": "user", "content": "帮我办个力行健身的季卡吧。"},
                {
                    "role": "assistant",
                    "content": "已办理力行健身季卡，会员号LX55031，有效期2024年10月22日至2025年1月21日，费用1080元。",
                },
            ],
            user_id="u",
            at="2024-10-22T10:00:00+08:00",
        )
        mem.add(
            [
                {
                    "role": "assistant",
                    "content": "已申请冻结，会员卡到期日从2025年1月21日顺延到2025年2月17日。",
                }
            ],
            user_id="u",
            at="2025-01-10T10:00:00+08:00",
        )
        (old,) = mem.list(user_id="u", status="superseded")
        assert "LX55031" in old.text
        ctx = mem.context("健身卡的会员号是多少？", user_id="u", budget_tokens=300)
        ids = [h.memory.id for h in ctx.items]
        assert old.id in ids  # the number lives only in the replaced version
        successor = next(
            h.memory for h in ctx.items if h.memory.id != old.id and "2025-02-17" in h.memory.text
        )
        assert ids.index(old.id) > ids.index(successor.id)
        lines = ctx.text.splitlines()
        old_line = next(line for line in lines if "LX55031" in line)
        assert "已被取代" in old_line and lines.index(old_line) > next(
            i for i, line in enumerate(lines) if "2025-02-17" in line and "LX55031" not in line
        )
        # once deleted, the earlier version is nobody's history
        mem.delete(old.id)
        ctx = mem.context("健身卡的会员号是多少？", user_id="u", budget_tokens=300)
        assert old.id not in [h.memory.id for h in ctx.items] and "LX55031" not in ctx.text


def test_an_english_move_shows_the_old_address_as_superseded(tmp_path) -> None:
    with Memory(home=tmp_path / "e") as mem:
        mem.add("I live in Berlin, in Kreuzberg.", user_id="e", at="2025-01-10T10:00:00+00:00")
        mem.add("I moved to Munich last month.", user_id="e", at="2025-06-10T10:00:00+00:00")
        assert [r.text for r in mem.list(user_id="e", status="superseded")] == [
            "The user lives in Berlin, in Kreuzberg."
        ]
        ctx = mem.context("Where did I live before Munich?", user_id="e", budget_tokens=300)
        berlin = next(line for line in ctx.text.splitlines() if "Berlin" in line)
        assert "superseded" in berlin
        # search() returns what holds now: the earlier version is context history, not a search hit
        assert all(h.memory.status == Status.active for h in mem.search("Where do I live?", user_id="e"))

"""A store written by the wave-1 code (commit 30f5b50, `tests/fixtures/make_store_30f5b50.py`) opens with this
code: every memory, version and vaulted value is kept, and the old free ``structured`` dicts become the typed
facts, state and provenance."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from memscribe import Memory
from memscribe.models import Status

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "store_30f5b50"


@pytest.fixture
def old_store(tmp_path):
    home = tmp_path / "old"
    shutil.copytree(FIXTURE, home)
    return home


def test_wave1_store_opens_with_typed_facts(old_store):
    with Memory(old_store) as mem:
        u1 = mem.list(user_id="u1", status=None)
        u2 = mem.list(user_id="u2", status=None)
        assert len(u1) == 8 and len(u2) == 2  # nothing lost
        boston = next(r for r in u1 if "Boston" in r.text)
        assert boston.status == Status.superseded and boston.superseded_by
        assert boston.facts.subject == "the user"
        assert boston.facts.slot == "the user|residence" and boston.facts.value == "Boston"
        trip = next(r for r in u1 if "上海" in r.text)
        assert trip.facts.places == ("上海",) and trip.facts.status and trip.facts.time
        assert trip.facts.lang == "zh" and trip.time_start is not None
        rule = next(r for r in u1 if "打扰" in r.text)
        assert rule.facts.negated is True
        # the view is what the old structured dict was (plus the record's kind)
        assert boston.structured["slot"] == "the user|residence" and boston.structured["kind"] == "profile"
        edited = next(r for r in u2 if "hiking" in r.text)
        assert edited.version == 2 and len(mem.history(edited.id)) == 2
        assert edited.metadata == {"src": "fixture"}
        # the vault key of the old store still opens its sealed values
        parcel = next(r for r in u1 if "[地址#1]" in r.text)
        assert list(mem.reveal(parcel.id)) == ["[地址#1]"]
        # and the store is usable: recall and a new version
        assert any("Denver" in h.memory.text for h in mem.search("Where do I live?", user_id="u1", limit=3))
        again = mem.update(edited.id, text="The user loves hiking with the dog Max.", reason="test")
        assert again.version == 3 and again.facts.subject == edited.facts.subject

"""Every text field of the Python API refuses lone surrogates and control characters with a typed
InputError (issue #19: they raised a raw UnicodeEncodeError from the store, or were stored), ids have a
length cap, add() and update() share one text cap, and update() with wrong types raises InputError (not a
raw pydantic error)."""

from __future__ import annotations

import pytest

from memscribe import Memory, errors
from memscribe.text_rules import ID_PATTERN, TEXT_MAX_CHARS, TEXT_PATTERN, bad_id, bad_text


@pytest.fixture(scope="module")
def mem(tmp_path_factory):
    m = Memory(home=tmp_path_factory.mktemp("fields"))
    yield m
    m.close()


@pytest.fixture(scope="module")
def mid(mem):
    rep = mem.add("I prefer window seats on long flights.", user_id="u1")
    return next(i.memory_id for i in rep.items if i.memory_id)


LONE = "\ud800"
BAD_ADDS = {
    "surrogate in content": dict(messages=f"I like tea {LONE}", user_id="u1"),
    "bell in content": dict(messages="I like tea\x07", user_id="u1"),
    "surrogate in user_id": dict(messages="I like tea", user_id=f"u{LONE}"),
    "NUL in session_id": dict(messages="I like tea", user_id="u1", session_id="s\x00"),
    "1 MB session_id": dict(messages="I like tea", user_id="u1", session_id="s" * 1_000_000),
    "newline in agent_id": dict(messages="I like tea", user_id="u1", agent_id="bot\n"),
    "long agent_id": dict(messages="I like tea", user_id="u1", agent_id="a" * 257),
    "surrogate in metadata key": dict(messages="I like tea", user_id="u1", metadata={f"k{LONE}": 1}),
    "surrogate in metadata value": dict(messages="I like tea", user_id="u1", metadata={"k": [f"v{LONE}"]}),
    "NUL in metadata value": dict(messages="I like tea", user_id="u1", metadata={"k": {"x": "a\x00"}}),
    "surrogate in name": dict(messages=[{"content": "I like tea", "name": f"Ann{LONE}"}], user_id="u1"),
    "NUL in message id": dict(messages=[{"content": "I like tea", "id": "m\x00"}], user_id="u1"),
    "content over the text cap": dict(messages="x" * (TEXT_MAX_CHARS + 1), user_id="u1"),
}


@pytest.mark.parametrize("case", list(BAD_ADDS))
def test_add_refuses_bad_text_fields_typed(mem, case) -> None:
    with pytest.raises(errors.InputError):
        mem.add(**BAD_ADDS[case])


def test_tab_newline_and_carriage_return_are_fine_in_content(mem) -> None:
    rep = mem.add("I like green tea.\tAlso:\r\nI like 龙井茶.", user_id="u-tab", session_id="s 1")
    assert any(i.memory_id for i in rep.items)


@pytest.mark.parametrize(
    "kw",
    [
        {"text": "x" * (TEXT_MAX_CHARS + 1)},  # was accepted up to 10 MB
        {"text": f"window {LONE}"},
        {"text": "window\x1b[31m"},
        {"text": 5},
        {"importance": "high"},  # was a raw pydantic ValidationError
        {"confidence": [1]},
        {"kind": "nonsense"},
        {"entities": "not a list"},
        {"entities": [f"e{LONE}"]},
        {"metadata": {"k": f"v{LONE}"}},
        {"metadata": "not a dict"},
        {"text": "window seats", "reason": f"r{LONE}"},
        {"text": "window seats", "reason": "r" * 1001},
    ],
)
def test_update_refuses_wrong_values_typed(mem, mid, kw) -> None:
    with pytest.raises(errors.InputError) as info:
        mem.update(mid, **kw)
    assert "pydantic" not in type(info.value).__module__


def test_add_and_update_share_one_text_cap(mem, mid) -> None:
    at_cap = "好" * TEXT_MAX_CHARS  # 3 bytes a character: within the cap, which counts characters
    assert mem.update(mid, text=at_cap).text == at_cap
    with pytest.raises(errors.MessageTooLargeError):
        mem.update(mid, text=at_cap + "好")
    with pytest.raises(errors.MessageTooLargeError):
        mem.add(at_cap + "好", user_id="u1")


def test_search_and_filters_refuse_bad_ids_typed(mem) -> None:
    with pytest.raises(errors.InputError):
        mem.search("tea", user_id="u1", session_id=f"s{LONE}")
    with pytest.raises(errors.InputError):
        mem.search("tea", user_id="u1", filters={"agent_id": "a\x00"})
    with pytest.raises(errors.InputError):
        mem.search(f"tea {LONE}", user_id="u1")
    with pytest.raises(errors.InputError):
        mem.context("tea", user_id="u1", session_id="x" * 300)


@pytest.mark.parametrize(
    "value",
    [
        "a",
        "a b",
        " a",
        "用户/1",
        "a\n",
        "\n",
        " ",
        "",
        "a\x00",
        "a\x85",
        "a\t",
        "\ufeff",
        "\u3000x",
        "x" * 256,
    ],
)
def test_the_schema_patterns_accept_exactly_what_the_checks_accept(value) -> None:
    # the REST schema states these patterns, read by JSON Schema validators (ECMA-262 regexes, as the one
    # schemathesis uses); a mismatch is a schema that lies
    jsonschema_rs = pytest.importorskip("jsonschema_rs")
    for pattern, check in ((ID_PATTERN, bad_id), (TEXT_PATTERN, bad_text)):
        schema = jsonschema_rs.validator_for({"type": "string", "pattern": pattern, "maxLength": 256})
        assert schema.is_valid(value) == (check(value, max_chars=256) is None), (pattern, repr(value))

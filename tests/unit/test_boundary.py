"""The API boundary: each check takes the raw argument and returns what the core uses, or raises a typed
InputError before anything is read or written."""

from __future__ import annotations

import pytest

from memscribe import boundary, errors


def _nested(depth: int) -> dict:
    d: dict = {}
    for _ in range(depth):
        d = {"k": d}
    return d


def test_metadata_is_a_json_dict_of_bounded_depth_and_size():
    assert boundary.metadata(None) == {}
    assert boundary.metadata({"来源": "微信", "tags": ["a", 1, None]}) == {
        "来源": "微信",
        "tags": ["a", 1, None],
    }
    assert boundary.metadata(_nested(31))  # 32 levels with the leaf: allowed
    for bad in (["not", "a", "dict"], "text", {"when": object()}, {"k": {1, 2}}):
        with pytest.raises(errors.InputError):
            boundary.metadata(bad)
    with pytest.raises(errors.InputError, match="deeper than 32"):
        boundary.metadata(_nested(100_000))  # refused before json recursion could blow the stack
    with pytest.raises(errors.InputError, match="16 KB"):
        boundary.metadata({"blob": "长" * 6000})  # 6000 CJK chars are > 16 KB as escaped JSON


def test_query_text_limits_bytes_not_characters():
    assert boundary.query_text("用户喜欢喝什么", max_bytes=64) == "用户喜欢喝什么"
    with pytest.raises(errors.InputError, match="longer"):
        boundary.query_text("茶" * 30, max_bytes=64)  # 30 characters, 90 bytes
    for bad in ("", "   \n", None, 12, b"bytes"):
        with pytest.raises(errors.InputError):
            boundary.query_text(bad, max_bytes=64)


@pytest.mark.parametrize("value", [0, -1, 1001, 2.5, "10", None])
def test_search_limit_refuses_what_is_not_1_to_1000(value):
    with pytest.raises(errors.InputError):
        boundary.search_limit(value)


def test_budget_and_batch_size_are_positive_integers():
    assert boundary.budget_tokens(1) == 1 and boundary.batch_size(256) == 256
    for check in (boundary.budget_tokens, boundary.batch_size):
        for bad in (0, -5, "300", 1.5, None):
            with pytest.raises(errors.InputError):
                check(bad)


def test_status_filter_names_one_status_or_all():
    assert boundary.status_filter(None) is None and boundary.status_filter("all") is None
    assert boundary.status_filter("pending_review") == ("pending_review",)
    with pytest.raises(errors.InputError, match="unknown status"):
        boundary.status_filter("actve")


def test_editable_fields_and_edit_text():
    boundary.check_editable(["text", "importance", "metadata"])
    with pytest.raises(errors.InputError, match=r"\['id', 'user_id'\]"):
        boundary.check_editable(["text", "user_id", "id"])  # identity and scope are never edited
    assert boundary.edit_text("改成靠过道") == "改成靠过道"
    for bad in ("", "  ", 3):
        with pytest.raises(errors.InputError):
            boundary.edit_text(bad)


def test_ids_users_and_backup_paths(tmp_path):
    assert boundary.memory_id("mem_1") == "mem_1"
    for bad in ("", None, 7):
        with pytest.raises(errors.InputError):
            boundary.memory_id(bad)
    with pytest.raises(errors.MissingScopeError):
        boundary.require_user("  ")
    (tmp_path / "taken.db").write_text("x")
    with pytest.raises(errors.InputError, match="exists"):
        boundary.backup_path(tmp_path / "taken.db")
    assert boundary.backup_path(tmp_path / "new.db") == tmp_path / "new.db"

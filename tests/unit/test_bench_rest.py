"""`memscribe bench rest`: a real `memscribe serve` subprocess on 127.0.0.1 and the library, same messages."""

from __future__ import annotations

import pytest

from memscribe.bench.rest import WARMUP, run_rest_write


def test_served_and_library_writes_are_timed_side_by_side(tmp_path):
    res = run_rest_write(WARMUP + 4, workdir=tmp_path)
    assert len(res.rest_ms) == len(res.library_ms) == 4
    summary = res.summary()
    assert summary["rest_post_ms"]["p50"] > 0 and summary["library_add_ms"]["p50"] > 0
    assert summary["rest_vs_library"]["p50"] == pytest.approx(
        summary["rest_post_ms"]["p50"] / summary["library_add_ms"]["p50"]
    )
    # the server ran the same pipeline over the same messages: the same decisions, and some kept
    assert res.rest_actions == res.library_actions
    assert res.rest_actions.get("add", 0) > 0


def test_too_few_messages_is_a_typed_error():
    with pytest.raises(ValueError):
        run_rest_write(WARMUP)

"""`memscribe bench audit`: the same seed gives the same memories, and every printed memory shows the
speaker and text of each of its source turns (LoCoMo and MemoryBank formats)."""

import json
import random
from datetime import UTC, datetime

import pytest

from memscribe.bench.audit import AuditSample, choose, load_conversation, render_markdown, run_audit
from memscribe.errors import InputError
from memscribe.models import MemoryRecord, Source

# a MemoryBank-format file: two users, three days; one name carries stray spaces as in the real data
MEMORYBANK = {
    "王芳": {
        "name": "王芳",
        "history": {
            "2023-04-27": [
                {"query": "我在杭州的一家医院当护士。", "response": "护士的工作很辛苦，你一般上什么班？"},
                {"query": "我每周三和周五上夜班。", "response": "夜班要注意休息。"},
                {"query": "我对花生过敏，吃东西要小心。", "response": "好的，我会记住你对花生过敏。"},
            ],
            "2023-04-28": [
                {"query": "我下个月要去成都参加一个护理培训。", "response": "听起来很有意义！培训多久？"},
                {"query": "两个星期，五月十号开始。", "response": "祝你培训顺利。"},
            ],
            "2023-04-29": [
                {"query": "我女儿今年上小学三年级了。", "response": "她学习怎么样？"},
                {"query": "她数学很好，最喜欢画画。", "response": "真棒，可以让她多参加绘画比赛。"},
            ],
        },
    },
    " Tom ": {
        "name": " Tom ",
        "history": {
            "2023-05-02": [
                {"query": "I work as a bus driver in Leeds.", "response": "That sounds like a busy job!"},
                {"query": "I'm vegetarian, so no meat suggestions please.", "response": "Noted, no meat."},
            ]
        },
    },
}

LOCOMO = [
    {
        "sample_id": "conv-audit",
        "conversation": {
            "speaker_a": "Caroline",
            "speaker_b": "Melanie",
            "session_1_date_time": "1:56 pm on 8 May, 2023",
            "session_1": [
                {
                    "speaker": "Caroline",
                    "dia_id": "D1:1",
                    "text": "I adopted a golden retriever named Biscuit.",
                },
                {"speaker": "Melanie", "dia_id": "D1:2", "text": "I started pottery classes on Tuesdays."},
                {
                    "speaker": "Caroline",
                    "dia_id": "D1:3",
                    "text": "I moved to Lisbon in March.",
                    "blip_caption": "a photo of a tram",
                },
            ],
            "session_2_date_time": "10:00 am on 20 May, 2023",
            "session_2": [
                {
                    "speaker": "Melanie",
                    "dia_id": "D2:1",
                    "text": "My sister Ana visited from Madrid yesterday.",
                },
                {"speaker": "Caroline", "dia_id": "D2:2", "text": "I'm training for the Porto marathon."},
            ],
        },
        "qa": [],
    }
]


@pytest.fixture
def files(tmp_path):
    mb, lc = tmp_path / "memory_bank_cn.json", tmp_path / "locomo.json"
    mb.write_text(json.dumps(MEMORYBANK, ensure_ascii=False), encoding="utf-8")
    lc.write_text(json.dumps(LOCOMO), encoding="utf-8")
    return mb, lc


def _row_lines(md: str) -> list[str]:
    return [line for line in md.splitlines() if line.startswith("| ") and line[2].isdigit()]


def _assert_rows_show_their_sources(sample: AuditSample) -> None:
    md = render_markdown(sample)
    lines = _row_lines(md)
    assert len(lines) == len(sample.rows)
    for line, row in zip(lines, sample.rows, strict=True):
        assert row.text.replace("|", "\\|") in line
        assert row.sources, f"a memory without source turns: {row.text}"
        for turn in row.sources:
            assert f"`{turn.id}` **{turn.speaker}**: {turn.text}" in line
        assert line.endswith("|  |  |")  # blank grade and note columns


def test_memorybank_audit_is_deterministic_and_shows_the_source_turns(files):
    mb, _ = files
    conv = load_conversation(mb, "王芳")
    assert conv.data_format == "memorybank" and len(conv.sessions) == 3 and len(conv.turns) == 14
    assert conv.turns["D1:1"].speaker == "王芳" and conv.turns["D1:2"].speaker == "assistant"
    assert conv.sessions[1]["at"] == "2023-04-28T12:00:00+00:00"
    assert [m["role"] for m in conv.sessions[0]["messages"]][:2] == ["user", "assistant"]

    first = run_audit(mb, "王芳", n=3, seed=0)
    again = run_audit(mb, "王芳", n=3, seed=0)
    assert first.memories > 3  # the sample is a real choice, not every memory
    assert len(first.rows) == 3
    assert [(r.text, r.sources) for r in first.rows] == [(r.text, r.sources) for r in again.rows]
    assert render_markdown(first) == render_markdown(again)
    _assert_rows_show_their_sources(first)
    # the user is picked by id; stray spaces in the file's names do not matter
    assert load_conversation(mb, "Tom").conv_id == "Tom"


def test_locomo_audit_prints_speaker_and_text_of_each_source_turn(files):
    _, lc = files
    sample = run_audit(lc, "conv-audit", n=40, seed=0)
    assert 0 < len(sample.rows) == sample.memories <= 40  # fewer memories than n: all of them
    _assert_rows_show_their_sources(sample)
    assert sample.conv.turns["D1:3"].text == "I moved to Lisbon in March. [shares a photo: a photo of a tram]"


def _record(i: int, text: str, sources: list[str]) -> MemoryRecord:
    now = datetime(2023, 5, 8, tzinfo=UTC)
    return MemoryRecord(
        id=f"m{random.Random(i).getrandbits(64):x}",
        user_id="u",
        text=text,
        sources=[Source(message_id=s) for s in sources],
        created_at=now,
        updated_at=now,
    )


def test_choice_depends_on_the_seed_and_content_not_on_store_ids_or_list_order(files):
    mb, _ = files
    turns = load_conversation(mb, "王芳").turns
    texts = [f"用户说了第{i}件事。" for i in range(12)]
    recs = [_record(i, t, [f"D{1 + i % 3}:{1 + 2 * (i % 2)}"]) for i, t in enumerate(texts)]
    recs.append(_record(99, "A memory naming a turn the conversation lacks.", ["D9:9"]))
    picked = [r.text for r in choose(recs, turns, 5, seed=0)]
    shuffled = recs[:]
    random.Random(1).shuffle(shuffled)
    reid = [_record(1000 + i, r.text, [s.message_id for s in r.sources]) for i, r in enumerate(shuffled)]
    assert [r.text for r in choose(reid, turns, 5, seed=0)] == picked
    assert len(set(picked)) == 5
    seeds = {tuple(r.text for r in choose(recs, turns, 5, seed=s)) for s in range(5)}
    assert len(seeds) > 1  # the seed matters
    everything = choose(recs, turns, 50, seed=0)
    ghost = next(r for r in everything if r.unknown_sources)
    assert ghost.unknown_sources == ("D9:9",) and ghost is everything[-1]  # no known source: last
    assert "`D9:9` *(names no turn of this conversation)*" in render_markdown(
        AuditSample("x", load_conversation(mb, "王芳"), 0, len(recs), (ghost,))
    )


def test_bad_input_is_a_typed_error(files, tmp_path):
    mb, lc = files
    with pytest.raises(InputError, match="no MemoryBank user"):
        load_conversation(mb, "nobody")
    with pytest.raises(InputError, match="no conversation 'conv-99'"):
        load_conversation(lc, "conv-99")
    odd = tmp_path / "odd.json"
    odd.write_text(json.dumps({"a": 1}), encoding="utf-8")
    with pytest.raises(InputError, match="neither LoCoMo"):
        load_conversation(odd, "a")
    with pytest.raises(InputError, match="cannot read"):
        load_conversation(tmp_path / "missing.json", "a")
    with pytest.raises(InputError, match="n >= 1"):
        choose([], {}, 0, seed=0)

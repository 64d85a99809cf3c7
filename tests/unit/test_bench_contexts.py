"""`memscribe bench contexts`: the same seed picks the same judge-scored questions, the Markdown it writes is
read back by the tally (grades, classes, answer marks), and a kept store is reused on a rerun."""

import json

import pytest

from memscribe.bench.contexts import (
    ContextLine,
    ContextSample,
    EvidenceTurn,
    SampledContext,
    parse_graded,
    render_markdown,
    run_contexts,
    sample_questions,
    tally,
)
from memscribe.errors import InputError


def _conv(sample_id: str, n_questions: int) -> dict:
    """A LoCoMo-format conversation of two sessions; question k asks about turn D1:(k % 3 + 1)."""
    turns = [
        ("Caroline", "I adopted a golden retriever named Biscuit."),
        ("Melanie", "I started pottery classes on Tuesdays."),
        ("Caroline", "I moved to Lisbon in March."),
    ]
    qa = [
        {
            "question": f"question {k}?",
            "answer": f"answer {k}",
            "evidence": [f"D1:{k % 3 + 1}"],
            "category": 1 + k % 4,
        }
        for k in range(n_questions)
    ]
    qa += [
        {"question": "adversarial?", "adversarial_answer": "x", "evidence": ["D1:1"], "category": 5},
        {"question": "no evidence?", "answer": "x", "evidence": [], "category": 2},
        {"question": "evidence of no turn?", "answer": "x", "evidence": ["D9:9"], "category": 4},
    ]
    return {
        "sample_id": sample_id,
        "conversation": {
            "speaker_a": "Caroline",
            "speaker_b": "Melanie",
            "session_1_date_time": "1:56 pm on 8 May, 2023",
            "session_1": [
                {"speaker": s, "dia_id": f"D1:{i}", "text": t}
                | ({"blip_caption": "a tram"} if i == 3 else {})
                for i, (s, t) in enumerate(turns, 1)
            ],
            "session_2_date_time": "10:00 am on 20 May, 2023",
            "session_2": [
                {
                    "speaker": "Melanie",
                    "dia_id": "D2:1",
                    "text": "My sister Ana visited from Madrid yesterday.",
                },
            ],
        },
        "qa": qa,
    }


def test_the_sample_is_the_seeds_and_holds_only_scored_questions_in_data_order():
    convs = [_conv("conv-a", 12), _conv("conv-b", 12)]
    first = sample_questions(convs, 6, seed=0)
    assert [(q.conv, q.index) for q in first] == [
        (q.conv, q.index) for q in sample_questions(convs, 6, seed=0)
    ]
    assert len(first) == 6
    assert all(q.category in (1, 2, 3, 4) and q.evidence for q in first)
    assert {q.question for q in first}.isdisjoint({"adversarial?", "no evidence?", "evidence of no turn?"})
    keys = [(q.conv, q.index) for q in first]
    assert keys == sorted(keys)  # data order: conversation, then qa index
    picks = {tuple((q.conv, q.index) for q in sample_questions(convs, 6, seed=s)) for s in range(5)}
    assert len(picks) > 1  # the seed decides
    assert len(sample_questions(convs, 100, seed=0)) == 24  # more than the pool: the whole pool
    with pytest.raises(InputError):
        sample_questions(convs, 0, seed=0)


def _sample() -> ContextSample:
    ev = (EvidenceTurn("D1:1", "Caroline", "I adopted a dog named Biscuit.", "1:56 pm on 8 May, 2023"),)
    lines = (
        ContextLine("[fact · 2023-05-08] Caroline adopted a golden retriever named Biscuit.", ("D1:1",)),
        ContextLine("[event · 2023-05-08] Melanie started pottery | clay classes.", ("D1:2",)),
    )
    return ContextSample(
        data="tiny.json",
        seed=0,
        budget=300,
        pool=3,
        commit_contexts="abc123",
        commit_stores={"conv-a": "abc123"},
        contexts=(
            SampledContext("conv-a", 0, 4, "What is Caroline's dog called?", "Biscuit", ev, lines, 30, 1.0),
            SampledContext("conv-a", 1, 1, "Who visited Melanie?", "Ana", (), (), 0, None),
        ),
    )


def _grade(md: str, marks: dict[str, str], answers: list[str]) -> str:
    """Fill the blank cells of the rows whose text contains a key of ``marks`` and the answer marks."""
    out = []
    for line in md.splitlines():
        for key, cells in marks.items():
            if line.startswith("| ") and key in line:
                line = line[: line.rindex("|  |  |  |")] + cells
        if line.startswith("answer in context: __"):
            line = f"answer in context: {answers.pop(0)}"
        out.append(line)
    return "\n".join(out)


def test_the_markdown_is_read_back_and_counted():
    md = render_markdown(_sample())
    assert "**`D1:1`**" in md and "`D1:2`" in md and "**`D1:2`**" not in md  # evidence sources stand out
    blank = parse_graded(md)
    assert [len(q.lines) for q in blank] == [2, 0]
    assert blank[0].lines[1].text == "[event · 2023-05-08] Melanie started pottery | clay classes."
    assert tally(blank).ungraded == 2 and tally(blank).answers["unmarked"] == 2

    graded = _grade(
        md,
        {"Biscuit.": "| R |  |  |", "pottery": "| I | same speaker, other topic | about Melanie's hobby |"},
        ["yes", "no"],
    )
    t = tally(parse_graded(graded))
    assert (t.questions, t.lines, t.irrelevant, t.ungraded, t.empty_contexts) == (2, 2, 1, 0, 1)
    assert t.irrelevant_share == 0.5
    assert t.answers == {"yes": 1, "partial": 0, "no": 1}
    assert t.classes == {"same speaker, other topic": 1}


@pytest.mark.parametrize(
    ("marks", "answers"),
    [
        ({"Biscuit.": "| X |  |  |"}, ["yes", "no"]),  # not R or I
        ({"Biscuit.": "| I | noise |  |"}, ["yes", "no"]),  # irrelevant without a reason
        ({"Biscuit.": "| R |  |  |"}, ["maybe", "no"]),  # not an answer mark
    ],
)
def test_a_bad_grade_is_a_typed_error(marks, answers):
    with pytest.raises(InputError):
        parse_graded(_grade(render_markdown(_sample()), marks, answers))
    with pytest.raises(InputError):
        parse_graded("# nothing to grade\n")


def test_a_run_on_a_tiny_conversation_keeps_its_store_and_reuses_it(tmp_path):
    data = tmp_path / "tiny.json"
    conv = _conv("conv-t", 3)
    conv["qa"][0] |= {"question": "What is the name of Caroline's dog?", "answer": "Biscuit"}
    data.write_text(json.dumps([conv]), encoding="utf-8")
    stores = tmp_path / "stores"
    first = run_contexts(data, n=3, seed=0, budget=300, stores=stores)
    assert (stores / "conv-t" / "ingested.json").is_file()
    dog = next(c for c in first.contexts if c.index == 0)
    assert dog.evidence[0].id == "D1:1" and dog.evidence[0].speaker == "Caroline"
    assert any("Biscuit" in ln.text and "D1:1" in ln.sources for ln in dog.lines)
    assert dog.judge_answer == 1.0
    again = run_contexts(data, n=3, seed=0, budget=300, stores=stores)  # reopened, not re-ingested
    assert render_markdown(again) == render_markdown(first)
    assert len(parse_graded(render_markdown(again))) == 3

    other = tmp_path / "other.json"
    other.write_text(json.dumps([_conv("conv-t", 4)]), encoding="utf-8")
    with pytest.raises(InputError):  # a kept store of other data is never reused
        run_contexts(other, n=3, seed=0, budget=300, stores=stores)

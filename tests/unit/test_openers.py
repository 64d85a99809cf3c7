"""Openers that carry nothing leave the sentence; the same words stay where they carry meaning."""

import pytest

from memscribe.lang.clauses import split_sentences


@pytest.mark.parametrize(
    ("said", "first"),
    [
        ("Noted: no orders from Harbor Foods.", "No orders from Harbor Foods."),
        ("Got it, booked for Wednesday.", "Booked for Wednesday."),
        ("好的，已记下：中期报告初稿截止11月15日。", "中期报告初稿截止11月15日。"),
        ("你好，我叫许嘉禾。", "我叫许嘉禾。"),
        ("So far, so good.", "So far, so good."),  # "so" opens only before a comma
        ("So, I moved to Denver.", "I moved to Denver."),
        ("Done with the report.", "Done with the report."),  # an acknowledgement only before punctuation
        ("Noted that the meeting moved.", "Noted that the meeting moved."),
        ("跟你说一下，我对芒果过敏。", "我对芒果过敏。"),
        ("Just so you know, I moved to Tacoma.", "I moved to Tacoma."),
        ("我跟你说的那家店关门了。", "我跟你说的那家店关门了。"),  # telling, not an opener
    ],
)
def test_empty_openers_go(said: str, first: str) -> None:
    assert split_sentences(said)[0].text == first


def test_a_bare_acknowledgement_states_nothing() -> None:
    done, rest = split_sentences("Done. Northstar Mills order #NS-48213: ten bags of flour.")
    assert done.terms == 0 and not done.informative
    assert rest.text.startswith("Northstar Mills")

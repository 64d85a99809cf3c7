"""A shared picture's markup ("[shares a photo: …]") is written as what the speaker did, in their name: never
as words they said ("Caroline said: [shares a photo: …]"), and, when a turn is split into statements, as a
statement of its own."""

import pytest

from memscribe import Memory
from memscribe.lang.attachments import render_attachments
from memscribe.write.merge_words import object_terms


@pytest.mark.parametrize(
    ("text", "written"),
    [
        (
            "Here's my latest painting. [shares a photo: a painting of a sunset over a lake]",
            "Here's my latest painting. I shared a photo of a painting of a sunset over a lake.",
        ),
        (
            "Check this out [shares a photo: a photography of a group of dogs]",
            "Check this out. I shared a photo of a group of dogs.",
        ),
        ("[sent an image: ]", "I shared an image."),
        ("[shares a video: kids at the beach]", "I shared a video: kids at the beach."),
        ("看看这个 [shares a photo: a cat on a sofa]", "看看这个。我分享了一张照片：a cat on a sofa。"),
        ("no markup [here]", "no markup [here]"),
    ],
)
def test_markup_becomes_a_first_person_sentence(text, written):
    lang = "zh" if "看" in text else "en"
    assert render_attachments(text, lang) == written


def test_a_caption_is_not_what_the_memory_is_about_for_merge():
    assert object_terms("Melanie shared a photo of a sunset over a lake.") == set()
    assert "pottery" in object_terms("Melanie started a pottery class. Melanie shared a photo of a bowl.")


def test_a_peer_turn_with_a_photo_names_the_speaker_as_the_one_who_shared_it(tmp_path):
    mem = Memory(home=tmp_path / "store")
    mem.add(
        [
            {
                "role": "user",
                "name": "Caroline",
                "content": "I went to a support group yesterday, it was so powerful.",
            },
            {
                "role": "user",
                "name": "Melanie",
                "content": "Here's my latest painting. [shares a photo: a painting of a sunset over a lake]",
            },
        ],
        user_id="u",
        at="2023-05-08T13:56:00+00:00",
    )
    texts = [m.text for m in mem.list(user_id="u")]
    painted = [t for t in texts if "sunset" in t]
    assert painted and all("[shares" not in t and "said:" not in t for t in painted), texts
    assert any("Melanie shared a photo of a painting of a sunset over a lake" in t for t in painted), texts

"""Attachment markup in a chat message, written as what the speaker did.

Chat exports mark a shared picture inline: LoCoMo appends ``[shares a photo: a photo of a rainbow flag]`` to
the turn, other exports say ``[sent an image: …]``. Left in place, the bracket is a second statement glued to
the turn, read as words the speaker said ("Caroline said: [shares a photo: …]"). The caption describes what the
speaker showed, so it becomes a first-person sentence of its own ("I shared a photo of a rainbow flag."), which
the subject rewriting then names like any other ("Caroline shared a photo of a rainbow flag."). A caption
generator's own framing ("a photo of", "a photography of", "an image of") goes: the sentence already says photo.
"""

from __future__ import annotations

import re

__all__ = ["CAPTION_SENTENCE", "render_attachments"]

_MARKUP = re.compile(
    r"\s*\[(?:shares|sharing|shared|sends|sent)\s+(?:a|an)\s+(photo|picture|image|video|gif)\s*:\s*([^\]]*)\]",
    re.IGNORECASE,
)
_FRAMING = re.compile(
    r"^(?:(?:a|an)\s+)?(?:photo|photograph|photography|picture|image|screenshot)\s+of\s+", re.I
)
_ENDS = re.compile(r"[.!?。！？…]['\"”’)]*$")

# the rendered sentence, so that merge can tell a caption from what the speaker said about it
CAPTION_SENTENCE = re.compile(
    r"\b(?:I|\S+)\s+shared\s+(?:a|an)\s+(?:photo|picture|image|video|gif)\b[^.!?]*[.!?]?", re.IGNORECASE
)


_ZH_MEDIUM = {
    "photo": "一张照片",
    "picture": "一张图片",
    "image": "一张图片",
    "video": "一段视频",
    "gif": "一张动图",
}


def render_attachments(text: str, lang: str = "en") -> str:
    """``text`` with each attachment bracket replaced by "I shared a photo of …." (or "… a video: …"; in a
    Chinese message "我分享了一张照片：…。")."""

    def sentence(m: re.Match[str]) -> str:
        medium, caption = m.group(1).lower(), m.group(2).strip().rstrip(".")
        if lang == "zh":
            return f"我分享了{_ZH_MEDIUM[medium]}" + (f"：{caption}。" if caption else "。")
        if not caption:
            return f" I shared a{'n' if medium[0] in 'aeiou' else ''} {medium}."
        bare = _FRAMING.sub("", caption)
        body = (
            f"{medium} of {bare}"
            if bare != caption or medium in ("photo", "picture")
            else f"{medium}: {caption}"
        )
        return f" I shared a{'n' if medium[0] in 'aeiou' else ''} {body}."

    out: list[str] = []
    last = 0
    for m in _MARKUP.finditer(text):
        before = text[last : m.start()].rstrip()
        if before and not _ENDS.search(before):
            before += "。" if lang == "zh" else "."
        out.append(before)
        out.append(sentence(m))
        last = m.end()
    if not out:
        return text
    out.append(text[last:])
    return "".join(out).strip()

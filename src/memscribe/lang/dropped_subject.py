"""Casual English drops the subject of a sentence ("Been reading that book you recommended.", "Can't wait to
see it!", "Really made me proud."): copied as it was said, the memory is subjectless and reads as a transcript
("Melanie said: Been reading …"). The dropped subject is the speaker — or, before a verb whose object is the
speaker ("made me proud", "got us thinking"), what the speaker talks about: "it". Putting it back lets the subject
rewriting name the speaker like any other "I" ("Melanie has been reading that book …").

Only openers that cannot start a full English sentence are read this way: a bare past or present verb, "been",
"can't wait", a progressive of intent or feeling. An imperative ("Make sure you …", "Let me know") and a
sentence that has its subject are left alone.
"""

from __future__ import annotations

import re

__all__ = ["restore_dropped_subject"]

_ADVERB = (
    r"(?:(?:really|just|still|also|finally|totally|definitely|kinda|sorta|actually|honestly|recently)\s+)?"
)
# "It's been a long road" / "It's been ages": "been" before a determiner or a span of time
_IT_BEEN = re.compile(r"^" + _ADVERB + r"been\s+(?=(?:a|an|ages|forever|years|months|weeks|so long)\b)", re.I)
# "I've been reading", "I've been busy with work"
_I_BEEN = re.compile(r"^" + _ADVERB + r"been\s+(?=\w+ing\b|busy\b|away\b|thinking\b)", re.I)
_I_MODAL = re.compile(
    r"^" + _ADVERB + r"(?=(?:can't|cannot|can not|couldn't)\s+(?:wait|believe|stop|imagine)\b)", re.I
)
_I_PROGRESSIVE = re.compile(
    r"^"
    + _ADVERB
    + r"(?=(?:thinking|planning|hoping|trying|looking forward|feeling|going to|gonna|heading)\b)",
    re.I,
)
_PAST = (
    r"went|got|had|took|bought|made|saw|felt|thought|started|tried|finished|loved|enjoyed|visited|met|found|"
    r"learned|learnt|joined|signed up|picked up|ran|watched|painted|baked|spent|decided"
)
_PRESENT = r"wish|hope|guess|love|miss|need|want|wanna|gotta"
_IT_VERB = re.compile(
    r"^(" + _ADVERB + r"(?:" + _PAST + r"|makes|gets|reminds|helps))\s+(?=(?:me|us)\b)", re.I
)
_I_VERB = re.compile(r"^" + _ADVERB + r"(?=(?:" + _PAST + "|" + _PRESENT + r")\s+\S)", re.I)


def _cap(s: str) -> str:
    return s[:1].lower() + s[1:] if s[:1].isupper() and not s.startswith("I ") else s


def restore_dropped_subject(sentence: str) -> str:
    """``sentence`` with its dropped subject put back ("Been reading …" -> "I've been reading …")."""
    s = sentence.lstrip()
    lead = sentence[: len(sentence) - len(s)]
    if _IT_BEEN.match(s):
        return f"{lead}It's {_cap(s)}"
    if _I_BEEN.match(s):
        return f"{lead}I've {_cap(s)}"
    if _IT_VERB.match(s):
        return f"{lead}It {_cap(s)}"
    if _I_MODAL.match(s) or _I_VERB.match(s):
        return f"{lead}I {_cap(s)}"
    if _I_PROGRESSIVE.match(s):
        return f"{lead}I'm {_cap(s)}"
    return sentence

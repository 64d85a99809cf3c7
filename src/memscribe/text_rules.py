"""What a text field may hold, stated once: for the Python API's checks (``memscribe.boundary``) and, as
JSON Schema patterns and lengths, for the REST API's OpenAPI schema, so both accept exactly the same.

- **ids** (user, session, agent, message ids, speaker names, metadata keys are looser, see below): at
  most ``ID_MAX_CHARS`` characters, at least one that is not whitespace, no control characters (Unicode
  category Cc, U+0000-U+001F and U+007F-U+009F) and no lone surrogates (not Unicode text; SQLite and
  UTF-8 cannot store them).
- **text** (message content, an edit, a reason): the same, except tab, newline and carriage return are
  fine; at most ``TEXT_MAX_CHARS`` characters — the one cap of add(), update(), the REST API and the UI.

The cap is in characters because that is what a JSON Schema ``maxLength`` counts: a byte cap cannot be
stated in the schema, so the schema would promise texts the library refuses.

"""

from __future__ import annotations

import re

__all__ = [
    "ID_MAX_CHARS",
    "ID_PATTERN",
    "KEY_PATTERN",
    "NAME_MAX_CHARS",
    "REASON_MAX_CHARS",
    "STRING_PATTERN",
    "TEXT_MAX_CHARS",
    "TEXT_PATTERN",
    "bad_id",
    "bad_label",
    "bad_string",
    "bad_text",
]

TEXT_MAX_CHARS = 32_768
ID_MAX_CHARS = 256
NAME_MAX_CHARS = 128
REASON_MAX_CHARS = 1000

_CC = r"\x00-\x1f\x7f-\x9f"  # every control character (Unicode category Cc)
_CC_TEXT = r"\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f"  # the same less tab, newline, carriage return
_SURROGATE = r"\ud800-\udfff"

# The schema patterns (ECMA-262, as JSON Schema validators read them): some non-blank character, no
# control character. ``$`` is the end of the string there (Python's ``re`` also lets it match before a final
# newline, so Python code checks with the functions below, never these patterns). Lone surrogates are not
# in the patterns: a JSON Schema string is Unicode text, which has none, and ECMA's Unicode mode cannot
# name them; the checks refuse them.
ID_PATTERN = rf"^[^{_CC}]*[^\s{_CC}][^{_CC}]*$"
TEXT_PATTERN = rf"^[^{_CC_TEXT}]*[^\s{_CC_TEXT}][^{_CC_TEXT}]*$"
# labels (metadata keys, speaker names, message ids) and metadata strings may be empty or blank, but hold
# no forbidden character
KEY_PATTERN = rf"^[^{_CC}]*$"
STRING_PATTERN = rf"^[^{_CC_TEXT}]*$"

# blank means only these (ECMA-262's \s, which the patterns use; Python's str.strip() differs in U+FEFF)
_SPACE = "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
_FORBIDDEN_ID = re.compile(rf"[{_CC}{_SURROGATE}]")
_FORBIDDEN_TEXT = re.compile(rf"[{_CC_TEXT}{_SURROGATE}]")


def _why(found: re.Match[str]) -> str:
    c = found.group()
    if 0xD800 <= ord(c) <= 0xDFFF:
        return "contains a lone surrogate (not valid Unicode text)"
    return f"contains the control character U+{ord(c):04X}"


def bad_id(value: object, *, max_chars: int = ID_MAX_CHARS) -> str | None:
    """Why ``value`` is not a valid id (None when it is)."""
    if not isinstance(value, str):
        return f"must be a string, not {type(value).__name__}"
    if len(value) > max_chars:
        return f"must be at most {max_chars} characters ({len(value)} given)"
    if not value.strip(_SPACE):
        return "must not be empty or blank"
    found = _FORBIDDEN_ID.search(value)
    return _why(found) if found else None


def bad_text(value: object, *, max_chars: int = TEXT_MAX_CHARS, blank_ok: bool = False) -> str | None:
    """Why ``value`` is not valid text (None when it is); tab, newline and carriage return are fine."""
    if not isinstance(value, str):
        return f"must be a string, not {type(value).__name__}"
    if len(value) > max_chars:
        return f"is {len(value)} characters, over the {max_chars}-character limit"
    if not blank_ok and not value.strip(_SPACE):
        return "must not be empty or blank"
    found = _FORBIDDEN_TEXT.search(value)
    return _why(found) if found else None


def bad_label(value: object, *, max_chars: int | None = None) -> str | None:
    """Why ``value`` is not a valid label — a metadata key, a speaker name, a message id, which may be
    blank (a blank name or message id is taken as none) — or None when it is."""
    if not isinstance(value, str):
        return f"must be a string, not {type(value).__name__}"
    if max_chars is not None and len(value) > max_chars:
        return f"must be at most {max_chars} characters ({len(value)} given)"
    found = _FORBIDDEN_ID.search(value)
    return _why(found) if found else None


def bad_string(value: object) -> str | None:
    """Why a metadata string value is not valid (None when it is): any text, blank too."""
    return bad_text(value, max_chars=10**9, blank_ok=True)

# ruff: noqa: SIM905  (a word list reads best as one string)
"""Secrets: API keys and tokens by their issuers' shapes, private keys, and values named as a password,
passcode, PIN, one-time or security code (password / PIN / CVV / 密码 / 口令 / 验证码 / 支付密码 …).

Only the value is cut ("my password is [removed]"), and only when it is one: "the password is required",
"密码是什么来着", "token: 4096" name no value.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator

from memscribe.write.pii.finding import PiiFinding, finding

__all__ = ["find_secret"]

_PEM = re.compile(
    r"-----BEGIN[A-Z ]{0,40}PRIVATE KEY-----[\s\S]*?(?:-----END[A-Z ]{0,40}PRIVATE KEY-----|\Z)"
)
_TOKEN_SHAPES: tuple[tuple[re.Pattern[str], float], ...] = (
    (_PEM, 0.99),
    (re.compile(r"(?<![A-Za-z0-9_-])sk-[A-Za-z0-9_-]{20,200}(?<=[0-9A-Za-z])"), 0.95),
    (re.compile(r"(?<![A-Za-z0-9_])[sr]k_(?:live|test)_[A-Za-z0-9]{16,200}"), 0.95),
    (re.compile(r"(?<![A-Z0-9])(?:AKIA|ASIA)[0-9A-Z]{16}(?![0-9A-Z])"), 0.97),
    (re.compile(r"(?<![A-Za-z0-9_])gh[pousr]_[A-Za-z0-9]{30,255}"), 0.97),
    (re.compile(r"(?<![A-Za-z0-9_])github_pat_[A-Za-z0-9_]{40,255}"), 0.97),
    (re.compile(r"(?<![A-Za-z0-9-])xox[abprs]-[A-Za-z0-9-]{10,200}"), 0.95),
    (re.compile(r"(?<![A-Za-z0-9_-])AIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])"), 0.95),
    (re.compile(r"(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"), 0.9),
)
_PASSWORD_KWS = (
    r"password|passwd|passcode|pass\s+code|pwd|pin(?:\s*(?:code|number|no\.?))?|cvv2?|cvc2?|csc"
    r"|security\s+code|verification\s+code|one[- ]time\s+(?:code|password)|otp|access\s+code|door\s+code"
    r"|gate\s+code|alarm\s+code|lock\s+code|unlock\s+code|wi-?fi\s+key|passphrase"
)
_KEY_KWS = r"(?:api|access|secret)[ _-]?key|client[ _-]?secret|secret|(?:access|auth|api)[ _-]?token|token"
_ZH_KWS = r"密码|口令|密钥|私钥|令牌|验证码|校验码|动态码|安全码|支付密码|取件码|开锁码|门禁码|PIN码|pin码"
_KV = re.compile(
    rf"(?i)(?P<kw>(?<![A-Za-z])(?:{_PASSWORD_KWS}|{_KEY_KWS})(?![A-Za-z])|{_ZH_KWS})"
    r"(?:[ ]+(?:for|of|to|on)[ ]+(?:the[ ]+|my[ ]+|our[ ]+)?[\w.@-]{1,30}(?:[ ]+(?:account|app|router|door|card|phone))?)?"
    r"(?P<sep>[ ]+(?:is|was|=)(?:[ ]*[:：])?[ ]+|[ ]*(?::=|[=:：])[ ]*|[ ]*(?:是|为|為)[ ]*|[ ]*(?:改成|改为|设成|设为)了?[ ]*"
    r"|[ ]+(?:is\s+now|changed\s+to|set\s+to|reads)[ ]+|[ ]*(?=[0-9]))"
    r"[\"'“‘`「]?(?P<val>[!-~]{3,200})"
)
_PASSWORD_KW = re.compile(
    rf"(?i){_PASSWORD_KWS}|密码|口令|验证码|校验码|动态码|安全码|取件码|开锁码|门禁码|pin"
)
_CARD_CODE = re.compile(r"(?i)cvv|cvc|csc|security\s+code|安全码")
_SECRET_ENTROPY = re.compile(
    r"(?i)(?<![A-Za-z])(?:keys?|tokens?|secret|密钥|令牌)(?![A-Za-z])[^\n]{0,20}?(?<![A-Za-z0-9_+/=-])(?P<val>[A-Za-z0-9_+/=-]{24,256})"
)
_TRAIL = ".,;:)]}>\"'`’”」"  # "!" and "?" stay: they are common password characters
# words that follow "the password is" without being one
_NOT_A_VALUE = frozenset(
    """none null redacted required hidden missing wrong incorrect invalid correct right expired weak strong
    long short secure safe simple easy hard complicated complex same different changed reset new old still
    too very not case-sensitive sensitive written saved stored encrypted needed necessary mandatory optional
    blank empty unknown forgotten lost something anything what which the a an my your his her our their this
    that it same-as also just only really pretty quite so set ok okay fine good bad great here there below
    above attached inside printed on in at for with of and or but default standard temporary""".split()
)


def _entropy(s: str) -> float:
    n = len(s)
    return -sum(c / n * math.log2(c / n) for c in (s.count(ch) for ch in set(s)))


def _looks_secret(kw: str, val: str, sep: str) -> bool:
    if val.lower() in _NOT_A_VALUE:
        return False
    has_digit = any(c.isdigit() for c in val)
    has_sym = any(not c.isalnum() for c in val)
    mixed = any(c.islower() for c in val) and any(c.isupper() for c in val)
    if _PASSWORD_KW.search(kw):
        shortest = 3 if _CARD_CODE.search(kw) else 4  # a card's CVV has 3 digits
        if not sep.strip():  # "PIN 4821", "密码123456": no "is" / ":", the value must carry a digit
            return has_digit and len(val) >= shortest
        if len(val) >= shortest and (has_digit or has_sym or mixed or len(val) >= 12):
            return True
        # a plain word after "password is" / "密码是": a password unless it is an ordinary predicate
        return len(val) >= 4 and val.isalpha() and len(set(val)) >= 3
    if len(set(val)) < 3:
        return False
    return len(val) >= 8 and not val.isdigit() and (has_digit or has_sym or mixed)


def find_secret(text: str) -> Iterator[PiiFinding]:
    for rx, conf in _TOKEN_SHAPES:
        for m in rx.finditer(text):
            if m.group().startswith("sk-") and not any(c.isdigit() for c in m.group()):
                continue  # "sk-learn-style-words" is not a key
            yield finding("secret", text, m.start(), m.end(), conf)
    for m in _KV.finditer(text):
        s, e = m.span("val")
        while e > s and text[e - 1] in _TRAIL:
            e -= 1
        if e - s >= 3 and _looks_secret(m.group("kw"), text[s:e], m.group("sep")):
            yield finding("secret", text, s, e, 0.85)
    for m in _SECRET_ENTROPY.finditer(text):
        v = m.group("val")
        digits, letters = sum(c.isdigit() for c in v), sum(c.isalpha() for c in v)
        if digits >= 2 and letters >= 6 and _entropy(v) >= 3.5:
            yield finding("secret", text, m.start("val"), m.end("val"), 0.75)

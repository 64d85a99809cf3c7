"""Review gate: memories that would let an agent act on identity, money or permissions wait for a person.

A memory that matches a rule is stored with status ``pending_review``: kept, versioned, visible in
``review_queue()``, but not used by recall until ``approve()``. The built-in rules are deliberately
narrow — standing instructions and account facts, not every mention of money ("I paid 20 dollars for
lunch" is a fact about the past, "from now on pay my rent from card …" is an instruction to act on).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

from memscribe.decisions import Candidate
from memscribe.errors import InputError

__all__ = ["DEFAULT_RULES", "ReviewDecision", "needs_review"]

DEFAULT_RULES: dict[str, list[str]] = {
    "permissions": [
        r"(授权|授予|开通|给予?|分配|收回|撤销).{0,12}(权限|访问权|管理员)",
        r"(管理员|超级用户|root)\s*(权限|账号|身份)",
        r"(代我|替我|帮我代)(签字|签署|签约|付款|支付|登录|登陆|审批|下单)",
        r"\b(grant|give|revoke|remove)\w*\b.{0,30}\b(access|permissions?|admin|privileges?)\b",
        r"\b(admin|administrator|root|superuser)\s+(access|rights|privileges|account)\b",
        r"\b(authori[sz]e[ds]?|allowed)\b.{0,30}\b(to\s+)?(sign|pay|approve|log\s*in|access|spend)\b",
        r"\bon my behalf\b",
    ],
    "money": [
        r"(以后|今后|往后|每次|每月|每周|默认|一律|都).{0,16}(转账|汇款|打款|付款|支付|扣款|充值|报销)",
        r"(收款|付款|支付|扣款|结算|工资)(账户|账号|卡|方式)",
        r"(信用|消费|转账|支付)(额度|上限|限额)",
        r"\b(from now on|going forward|always|every (month|week)|by default)\b.{0,40}"
        r"\b(pay|transfer|wire|charge|send money|deposit|bill)\w*\b",
        r"\b(payment method|payout account|bank account|billing account|direct deposit|routing number)\b",
        r"\b(credit|spending|transfer|withdrawal) limit\b",
    ],
    "identity": [
        # changes of who the user is to a system, not mentions of a document (its number is removed anyway)
        r"(改名|更名|改了名字|法定姓名|曾用名)",
        r"(身份证|护照|驾照|账号|账户|用户名|登录名|登录邮箱|绑定手机|绑定的手机|密保).{0,6}(改|换|更新|变更|绑定)",
        r"\b(legal name|changed my name|my new name|maiden name)\b",
        r"\b(passport|driver'?s licen[cs]e|national id|username|login|account email|recovery (email|phone)"
        r"|security question)\b.{0,20}\b(changed|renewed|updated|is now|now is)\b",
    ],
}


@dataclass(frozen=True)
class ReviewDecision:
    required: bool
    topics: tuple[str, ...] = ()
    reasons: list[str] = field(default_factory=list)


@lru_cache(maxsize=8)
def _compile(rules_key: tuple[tuple[str, tuple[str, ...]], ...]) -> list[tuple[str, re.Pattern[str]]]:
    out = []
    for topic, patterns in rules_key:
        for p in patterns:
            try:
                out.append((topic, re.compile(p, re.IGNORECASE)))
            except re.error as exc:
                raise InputError(
                    f"review rule {p!r} for {topic!r} is not a valid regular expression: {exc}"
                ) from exc
    return out


def needs_review(cand: Candidate, rules: dict[str, list[str]] | None = None) -> ReviewDecision:
    """Does this candidate memory touch identity, money or permissions by the configured rules?"""
    rules = DEFAULT_RULES if rules is None else rules
    key = tuple(sorted((t, tuple(ps)) for t, ps in rules.items()))
    # the statement's own sentence: "Payday is every other Friday", split from a message that also sets up a
    # direct deposit, lets no agent act on money (its raw turn is the whole message)
    text = cand.text
    topics: list[str] = []
    reasons: list[str] = []
    for topic, rx in _compile(key):
        if topic in topics:
            continue
        m = rx.search(text)
        if m:
            topics.append(topic)
            reasons.append(f"touches {topic}: {m.group(0)[:40]!r}")
    return ReviewDecision(required=bool(topics), topics=tuple(topics), reasons=reasons)

"""Privacy stage: cut every sensitive value out of the text before any other stage sees it.

Values a task needs (a shipping address "以后下单都寄这个地址") are kept encrypted in the vault and
referenced by a placeholder like ``[地址#1]``; all others are replaced by a removal marker and dropped.
From here on, only the clean text exists: it is what gets encoded, embedded, indexed, audited, logged.
"""

from __future__ import annotations

from memscribe.decisions import PrivacyDecision
from memscribe.lang.text import detect_lang
from memscribe.write.privacy import detect_pii, is_task_necessary, placeholder_label, privacy_risk, redact

__all__ = ["protect"]


def protect(text: str) -> PrivacyDecision:
    findings = detect_pii(text)
    if not findings:
        return PrivacyDecision(clean_text=text)
    lang = "zh" if detect_lang(text) == "zh" else "en"
    vaulted: list[tuple[str, str, str]] = []
    dropped: list[str] = []
    labels: dict[int, str] = {}
    for f in findings:
        label = placeholder_label(f.kind, lang)
        if is_task_necessary(text, f):
            ph = f"[{label}#{len(vaulted) + 1}]"
            vaulted.append((ph, f.kind, f.value))
        else:
            ph = f"[已移除{label}]" if lang == "zh" else f"[{label} removed]"
            dropped.append(f.kind)
        labels[f.start] = ph
    clean = redact(text, findings, lambda f: labels[f.start])
    return PrivacyDecision(
        clean_text=clean, vaulted=tuple(vaulted), dropped_kinds=tuple(dropped), risk=privacy_risk(findings)
    )

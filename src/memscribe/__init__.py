"""memscribe — write-first long-term memory for LLM agents.

from memscribe import Memory
mem = Memory()
mem.add("我不吃香菜", user_id="u1")
mem.context("帮我点午饭", user_id="u1", budget_tokens=300).text
"""

from memscribe import errors
from memscribe.aio import AsyncMemory
from memscribe.config import Settings
from memscribe.memory import Memory
from memscribe.models import (
    AuditEvent,
    Context,
    Hit,
    Kind,
    Layer,
    MemoryRecord,
    Message,
    Source,
    Status,
    Version,
    WriteReport,
)

__version__ = "0.1.0"
__all__ = [
    "AsyncMemory",
    "AuditEvent",
    "Context",
    "Hit",
    "Kind",
    "Layer",
    "Memory",
    "MemoryRecord",
    "Message",
    "Settings",
    "Source",
    "Status",
    "Version",
    "WriteReport",
    "errors",
]

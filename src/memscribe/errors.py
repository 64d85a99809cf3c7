"""The memscribe exception tree.

    MemscribeError
    ├── InputError (ValueError)          bad input from the caller; nothing was written
    │   ├── EmptyMessageError
    │   ├── MessageTooLargeError
    │   ├── InvalidTimeError
    │   ├── MissingScopeError            no user_id
    │   └── ScopeLockedError             a user id outside the one an interface is locked to (MCP --user)
    ├── NotFoundError (KeyError)         no memory / version with that id in reach
    ├── StoreError                       the store could not do what was asked
    │   ├── MigrationError
    │   ├── NoStoreError                 a read command pointed at a folder that holds no store
    │   ├── EmbedderMismatch             store was built with another embedding model
    │   ├── LimitExceeded                per-user count / store size limits
    │   ├── ConcurrencyError             lock contention that retries did not resolve
    │   └── CorruptJob                   a queued job's payload cannot be read; retrying cannot help
    ├── VaultError                       missing/wrong vault key, corrupted ciphertext
    ├── RateLimited                      over the write rate, with retry_after seconds
    └── ProviderError                    an embedder / LLM provider failed
        ├── LLMError
        └── ProviderTimeout

Foreign errors are translated at one boundary per adapter and raised ``from`` the original.
"""

from __future__ import annotations

__all__ = [
    "ConcurrencyError",
    "CorruptJob",
    "EmbedderMismatch",
    "EmptyMessageError",
    "InputError",
    "InvalidTimeError",
    "LLMError",
    "LimitExceeded",
    "MemscribeError",
    "MessageTooLargeError",
    "MigrationError",
    "MissingScopeError",
    "NoStoreError",
    "NotFoundError",
    "ProviderError",
    "ProviderTimeout",
    "RateLimited",
    "ScopeLockedError",
    "StoreError",
    "VaultError",
]


class MemscribeError(Exception):
    """Root of every error memscribe raises on purpose."""


class InputError(MemscribeError, ValueError):
    """The caller's input is invalid. Nothing was written."""


class EmptyMessageError(InputError):
    pass


class MessageTooLargeError(InputError):
    pass


class InvalidTimeError(InputError):
    pass


class MissingScopeError(InputError):
    pass


class ScopeLockedError(InputError):
    """The call names a user other than the one this interface serves (``memscribe mcp --user``)."""


class NotFoundError(MemscribeError, KeyError):
    def __str__(self) -> str:  # KeyError quotes its message; we want it plain
        return str(self.args[0]) if self.args else "not found"


class StoreError(MemscribeError):
    pass


class MigrationError(StoreError):
    pass


class NoStoreError(StoreError):
    """A command that only reads was pointed at a folder with no store; none is created."""


class EmbedderMismatch(StoreError):
    pass


class LimitExceeded(StoreError):
    pass


class ConcurrencyError(StoreError):
    pass


class CorruptJob(StoreError):
    """A queued job's payload is undecodable, tampered with or malformed: the same bytes will fail the
    same way on every attempt, so a job runner should fail the job rather than retry it."""


class VaultError(MemscribeError):
    pass


class RateLimited(MemscribeError):
    def __init__(self, message: str, retry_after: float) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class ProviderError(MemscribeError):
    pass


class LLMError(ProviderError):
    pass


class ProviderTimeout(ProviderError):
    pass

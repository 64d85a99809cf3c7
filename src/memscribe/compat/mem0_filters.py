"""Mem0's filter language, translated: which scope a call addresses, and which memories its metadata
conditions let through. Pure functions, no I/O.

Mem0 scopes a memory by ``user_id``, ``agent_id`` and ``run_id`` (at least one). memscribe scopes by
``user_id`` and records ``agent_id`` and ``session_id`` on each memory, so:

- with a ``user_id``, the memory is that user's; ``agent_id`` and ``run_id`` (as ``session_id``) are
  recorded on it and narrow every read;
- without one, the agent's (or the run's) own memories live in a scope of their own, ``agent:<id>``
  (``run:<id>``); a user id may not start with those prefixes.

The other keys of ``filters`` are conditions on ``metadata``: a value (equal), ``"*"`` (present), an
operator dict (``eq ne in nin gt gte lt lte contains icontains``) or ``AND`` / ``OR`` / ``NOT`` lists.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from memscribe.errors import InputError, MissingScopeError

__all__ = ["AGENT_PREFIX", "RUN_PREFIX", "Scope", "metadata_predicate", "scope_of", "split_filters"]

AGENT_PREFIX = "agent:"
RUN_PREFIX = "run:"
ENTITY_KEYS = ("user_id", "agent_id", "run_id")
_OPERATORS = {"eq", "ne", "in", "nin", "gt", "gte", "lt", "lte", "contains", "icontains"}
_LOGICAL = {"AND", "OR", "NOT"}


def _entity_id(value: Any, name: str) -> str | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise InputError(f"{name} must be a string")
    text = str(value).strip()
    if not text:
        raise InputError(f"{name} is empty")
    return text


@dataclass(frozen=True)
class Scope:
    """Where a Mem0 call reads or writes in memscribe: the memscribe user (the owner) and the narrowing
    ``agent_id`` / ``session_id`` filters."""

    owner: str
    user_id: str | None = None
    agent_id: str | None = None
    run_id: str | None = None

    @property
    def filters(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if self.agent_id is not None:
            out["agent_id"] = self.agent_id
        if self.run_id is not None:
            out["session_id"] = self.run_id
        return out


def scope_of(user_id: Any = None, agent_id: Any = None, run_id: Any = None) -> Scope:
    """The scope of these ids (:class:`MissingScopeError` when there is none)."""
    user, agent, run = (
        _entity_id(v, n) for v, n in zip((user_id, agent_id, run_id), ENTITY_KEYS, strict=True)
    )
    if user is not None and user.startswith((AGENT_PREFIX, RUN_PREFIX)):
        raise InputError(f"a user_id may not start with {AGENT_PREFIX!r} or {RUN_PREFIX!r} (reserved)")
    if user is not None:
        owner = user
    elif agent is not None:
        owner = AGENT_PREFIX + agent
    elif run is not None:
        owner = RUN_PREFIX + run
    else:
        raise MissingScopeError("at least one of user_id, agent_id, run_id is required")
    return Scope(owner=owner, user_id=user, agent_id=agent, run_id=run)


@dataclass(frozen=True)
class SplitFilters:
    scope: Scope
    equal: dict[str, Any] = field(default_factory=dict)  # plain metadata equalities memscribe applies itself
    predicate: Callable[[Mapping[str, Any]], bool] | None = None  # everything else, checked here


def split_filters(
    filters: Mapping[str, Any] | None, *, user_id: Any = None, agent_id: Any = None, run_id: Any = None
) -> SplitFilters:
    """Top-level ids (Mem0 1.x and its docs) and ids inside ``filters`` (Mem0 2.x) both address the scope;
    given both, they must agree."""
    if filters is not None and not isinstance(filters, Mapping):
        raise InputError("filters must be a dict")
    f = dict(filters or {})
    ids = {"user_id": user_id, "agent_id": agent_id, "run_id": run_id}
    for key in ENTITY_KEYS:
        if key in f:
            inner = f.pop(key)
            if ids[key] is not None and _entity_id(ids[key], key) != _entity_id(inner, key):
                raise InputError(f"{key} is given twice with different values")
            ids[key] = inner
    scope = scope_of(**ids)
    equal = {k: v for k, v in f.items() if k not in _LOGICAL and _is_plain(v)}
    rest = {k: v for k, v in f.items() if k not in equal}
    return SplitFilters(scope=scope, equal=equal, predicate=metadata_predicate(rest) if rest else None)


def _is_plain(v: Any) -> bool:
    return not isinstance(v, Mapping | list | tuple) and v != "*"


def metadata_predicate(cond: Mapping[str, Any]) -> Callable[[Mapping[str, Any]], bool]:
    """A test of a memory's metadata for Mem0's conditions (validated now: a bad operator is an
    :class:`InputError` before anything is read)."""
    tests: list[Callable[[Mapping[str, Any]], bool]] = []
    for key, value in cond.items():
        if key in _LOGICAL:
            if not isinstance(value, list | tuple) or not value:
                raise InputError(f"{key} takes a non-empty list of conditions")
            parts = [metadata_predicate(_mapping(v, key)) for v in value]
            if key == "AND":
                tests.append(lambda m, ps=parts: all(p(m) for p in ps))
            elif key == "OR":
                tests.append(lambda m, ps=parts: any(p(m) for p in ps))
            else:
                tests.append(lambda m, ps=parts: not any(p(m) for p in ps))
        else:
            tests.append(_key_test(key, value))
    return lambda meta: all(t(meta) for t in tests)


def _mapping(v: Any, where: str) -> Mapping[str, Any]:
    if not isinstance(v, Mapping):
        raise InputError(f"each condition in {where} must be a dict")
    return v


def _key_test(key: str, value: Any) -> Callable[[Mapping[str, Any]], bool]:
    if value == "*":
        return lambda m: key in m
    if not isinstance(value, Mapping):
        return lambda m: key in m and m[key] == value
    unknown = set(value) - _OPERATORS
    if unknown or not value:
        raise InputError(f"unknown filter operators {sorted(unknown)} for {key!r}; use {sorted(_OPERATORS)}")
    checks = [_operator(key, op, arg) for op, arg in value.items()]
    return lambda m: all(c(m) for c in checks)


def _operator(key: str, op: str, arg: Any) -> Callable[[Mapping[str, Any]], bool]:
    if op in ("in", "nin") and not isinstance(arg, list | tuple):
        raise InputError(f"{op!r} for {key!r} takes a list")
    if op in ("contains", "icontains") and not isinstance(arg, str):
        raise InputError(f"{op!r} for {key!r} takes a string")

    def check(m: Mapping[str, Any]) -> bool:
        if key not in m:
            return op in ("ne", "nin")
        v = m[key]
        try:
            match op:
                case "eq":
                    return v == arg
                case "ne":
                    return v != arg
                case "in":
                    return v in arg
                case "nin":
                    return v not in arg
                case "gt":
                    return v > arg
                case "gte":
                    return v >= arg
                case "lt":
                    return v < arg
                case "lte":
                    return v <= arg
                case "contains":
                    return isinstance(v, str) and arg in v
                case _:
                    return isinstance(v, str) and arg.lower() in v.lower()
        except TypeError:  # comparing a number with a string: the condition does not hold
            return False

    return check

"""SQL lives in ``memscribe.store`` only: everything else talks to the Store protocol.

An AST walk of ``src/memscribe`` outside ``store/`` flags (a) any string passed to an execute-like call
(``execute``, ``_exec``, ``_all``, …) that holds an SQL keyword, and (b) any other string literal, docstrings
aside, that opens like an SQL statement (``SELECT … FROM``, ``INSERT INTO``, ``UPDATE … SET``, …).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import memscribe

SRC = Path(memscribe.__file__).resolve().parent
_EXECUTE_LIKE = re.compile(r"^_?(exec\w*|execute\w*|all|one|read|rowcount|changed|query|fetch\w*|copy)$")
_KEYWORD = re.compile(r"\b(select|insert|update|delete|create|drop|alter|pragma|vacuum|from|where)\b", re.I)
_STATEMENT = re.compile(
    r"^\s*(SELECT\s.+\sFROM\s|INSERT\s+(OR\s+\w+\s+)?INTO\s|UPDATE\s+\w+\s+SET\s|DELETE\s+FROM\s|"
    r"CREATE\s+(UNIQUE\s+|VIRTUAL\s+)?(TABLE|INDEX|SCHEMA|EXTENSION)\s|DROP\s+(TABLE|INDEX|SCHEMA)\s|"
    r"ALTER\s+TABLE\s|PRAGMA\s+\w|WITH\s+\w+\s+AS\s)",
    re.S,
)


def _strings(node: ast.AST) -> list[str]:
    """The literal text of a string-ish expression: constants, f-string parts, concatenations."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.JoinedStr):
        return ["".join(v.value if isinstance(v, ast.Constant) else " x " for v in node.values)]
    if isinstance(node, ast.BinOp):
        return _strings(node.left) + _strings(node.right)
    return []


def _docstrings(tree: ast.AST) -> set[int]:
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                out.add(id(first.value))
    return out


def sql_outside_store(source: str, name: str) -> list[str]:
    tree = ast.parse(source)
    found = []
    docs = _docstrings(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if _EXECUTE_LIKE.match(called):
                for arg in node.args[:1]:
                    found += [
                        f"{name}:{node.lineno} {called}({s!r})" for s in _strings(arg) if _KEYWORD.search(s)
                    ]
        elif (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and id(node) not in docs
            and _STATEMENT.match(node.value)
        ):
            found.append(f"{name}:{node.lineno} {node.value[:60]!r}")
    return found


def test_the_detector_catches_sql_in_the_shapes_it_was_written():
    snippets = [
        'st._exec("SELECT max(version) FROM schema_migrations")',
        'conn.execute(f"DELETE FROM {table} WHERE user_id=?", (u,))',
        'cur.executemany("insert into audit values (?, ?)", rows)',
        'store._all("UPDATE jobs SET status=%s " + "WHERE id=%s", (s, i))',
        'SQL = """\n  CREATE TABLE x (a TEXT)\n"""',
        'q = "WITH hits AS (SELECT 1) SELECT * FROM hits"',
    ]
    for code in snippets:
        assert sql_outside_store(code, "snippet"), code
    clean = [
        'mem.add("I deleted the file from my laptop")',
        'methods=["GET", "POST", "DELETE"]',
        'store.keyword_search("u1", ["\'); DROP TABLE memories; --"], k=5)',
        'def f():\n    """SELECT the best hit FROM the list."""',
        'typer.Option(help="Select a store from the list")',
    ]
    for code in clean:
        assert not sql_outside_store(code, "snippet"), code


def test_no_sql_outside_the_store_package():
    found, inside = [], 0
    for path in sorted(SRC.rglob("*.py")):
        rel = path.relative_to(SRC)
        hits = sql_outside_store(path.read_text(encoding="utf-8"), str(rel))
        if rel.parts[0] == "store":
            inside += len(hits)
        else:
            found += hits
    assert inside > 100  # the detector does see the store's own SQL, in every shape the engines write it
    assert found == [], "SQL outside memscribe.store (add a Store method instead):\n" + "\n".join(found)

"""Structure the code must keep: one owner for record changes (the ledger)."""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src" / "memscribe"

# The store methods that write a memory record or its history.
RECORD_WRITERS = {"put_memory", "add_version", "forget_user"}
# Who may call them: the ledger; the stores themselves and their contract suite; and the speed benchmark's
# raw-insert baseline and bulk load, which measure the store itself (the ratio's denominator).
ALLOWED = {"ledger.py", "bench/speed.py"}
ALLOWED_DIRS = ("store/", "testing/store_contract/")


def _calls(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    return [
        (node.lineno, node.func.attr)
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in RECORD_WRITERS
    ]


def test_only_the_ledger_writes_records():
    offenders = []
    for path in sorted(SRC.rglob("*.py")):
        rel = path.relative_to(SRC).as_posix()
        if rel.startswith(ALLOWED_DIRS) or rel in ALLOWED:
            continue
        offenders += [f"{rel}:{line} calls {name}()" for line, name in _calls(path)]
    assert not offenders, "record changes must go through memscribe.ledger:\n" + "\n".join(offenders)


def test_the_check_sees_a_direct_store_write(tmp_path):
    # the walk above must find a call like this one (guards against a check that can never fail)
    f = tmp_path / "x.py"
    f.write_text(
        "def f(store, rec):\n    store.put_memory(rec)\n    store.add_version(rec, reason='', actor='', at=None)\n"
    )
    assert [name for _, name in _calls(f)] == ["put_memory", "add_version"]


FACADE_MAX_LINES = 300  # issue #13: memory.py is a facade; the work lives in the modules it delegates to
FACADE_MAX_STATEMENTS = 2  # per method, after its docstring (``__init__``, the wiring, excepted)


def _fat_methods(source: str, cls: str) -> list[str]:
    tree = ast.parse(source)
    klass = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == cls)
    out = []
    for fn in klass.body:
        if not isinstance(fn, ast.FunctionDef) or fn.name == "__init__":
            continue
        body = fn.body[1:] if ast.get_docstring(fn) is not None else fn.body
        if len(body) > FACADE_MAX_STATEMENTS:
            out.append(f"{cls}.{fn.name} has {len(body)} statements")
    return out


def test_memory_is_a_facade():
    source = (SRC / "memory.py").read_text(encoding="utf-8")
    assert len(source.splitlines()) <= FACADE_MAX_LINES, "memory.py grows: move the work into a module"
    assert not _fat_methods(source, "Memory")


def test_the_facade_check_sees_a_method_that_does_the_work():
    source = 'class Memory:\n    def add(self, x):\n        """Doc."""\n        a = 1\n        b = 2\n        return a + b\n'
    assert _fat_methods(source, "Memory") == ["Memory.add has 3 statements"]

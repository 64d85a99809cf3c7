"""The vector matrix of a large scope saved beside the SQLite file, so a new process does not rebuild it.

Rebuilding a scope's matrix reads every vector BLOB through SQL into Python tuples: 15 s for a million
memories, most of a cold start. The sidecar is a snapshot of a ``ScopeMatrix`` (ids, row keys, status codes,
vectors — float16 once the scope has its low-rank projection, float32 before — and the projection) up to a
write sequence ``seq``. SQLite stays the source of truth: on load
the matrix is brought up to date with the rows written since ``seq`` (as the in-process cache already does),
and a snapshot is used only if all of these hold, otherwise it is ignored and rebuilt:

* format version, user, dimension and row count read back as written, every array has the dtype this
  format writes for it, and every array's checksum matches, so a torn or altered file — or one written by
  an older format (FORMAT 1 held float32 vectors and unicode ids) — is never used or misread;
* its ``token`` equals the one the store recorded in its own ``meta`` table when the snapshot was written
  (``vector_sidecar:<scope>``). A store restored from a backup, or a snapshot written by a process that
  then lost a race, carries another token;
* after applying the rows since ``seq``, the matrix has exactly as many rows as the scope has vectors in
  SQLite (a hard erase removes rows, which no write sequence reports).

A snapshot holds vectors derived from the user's text, so erasing the user erases the file (overwritten,
then unlinked) and it is written with mode 0600.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import secrets
from pathlib import Path

import numpy as np

from memscribe.store.sqlite.neighbour_graph import NeighbourGraph
from memscribe.store.sqlite.vector_cache import ScopeMatrix

__all__ = ["FORMAT", "checksum", "erase", "folder_for", "load", "meta_key", "path_for", "save"]

FORMAT = 2  # 2: float16 vectors once projected, ids as utf-8 bytes (1: float32, unicode ids)


def folder_for(db_path: Path) -> Path:
    return Path(str(db_path) + ".vectors")


def path_for(db_path: Path, user_id: str) -> Path:
    # the file name must not reveal the user id; a hash of it names the file
    digest = hashlib.sha256(user_id.encode("utf-8")).hexdigest()[:24]
    return folder_for(db_path) / f"{digest}.vec"


def meta_key(user_id: str) -> str:
    return "vector_sidecar:" + hashlib.sha256(user_id.encode("utf-8")).hexdigest()[:24]


_MAGIC = b"MSVECS\x00\x01"
_ALIGN = 64


def checksum(buf: np.ndarray) -> str:
    """Sum and xor of the array's 64-bit words (the tail zero-padded): catches any flipped bit or torn
    copy at memory speed, where CRC-32 over a million-row matrix would cost more than reading it."""
    raw = buf.reshape(-1).view(np.uint8)
    pad = (-raw.size) % 8
    if pad:
        raw = np.concatenate([raw, np.zeros(pad, dtype=np.uint8)])
    words = raw.view(np.uint64)
    total = int(np.add.reduce(words, dtype=np.uint64)) if words.size else 0
    xor = int(np.bitwise_xor.reduce(words)) if words.size else 0
    return f"{total:016x}{xor:016x}"


def save(db_path: Path, user_id: str, matrix: ScopeMatrix) -> str:
    """Write ``matrix`` atomically (temporary file + rename); returns the token the store must record.

    Layout: magic, the length of a JSON header, the header (format, user, seq, token and per array its
    dtype, shape, offset and checksum), then each array's bytes at a 64-byte aligned offset."""
    token = secrets.token_hex(16)
    folder = folder_for(db_path)
    folder.mkdir(mode=0o700, exist_ok=True)
    n = matrix.n
    arrays: dict[str, np.ndarray] = {
        "ids": np.ascontiguousarray(matrix._ids[:n]),
        "pks": np.ascontiguousarray(matrix._pks[:n]),
        "codes": np.ascontiguousarray(matrix._codes[:n]),
        "mat": np.ascontiguousarray(matrix._mat[:n]),
    }
    if matrix._basis is not None:
        arrays["basis"] = np.ascontiguousarray(matrix._basis)
        arrays["proj"] = np.ascontiguousarray(matrix._proj[:n])
    graph = matrix.neighbour_graph(build=False)
    if graph is not None:  # optional: a reader without it builds the graph when a write first needs it
        arrays.update(graph.to_arrays())
    entries, offset = {}, 0
    for name, arr in arrays.items():
        entries[name] = {
            "dtype": arr.dtype.str,
            "shape": list(arr.shape),
            "offset": offset,
            "nbytes": arr.nbytes,
            "checksum": checksum(arr),
        }
        offset += arr.nbytes + (-arr.nbytes) % _ALIGN
    header = json.dumps(
        {
            "format": FORMAT,
            "user_id": user_id,
            "seq": matrix.seq,
            "n": n,
            "dim": int(matrix._mat.shape[1]) if n else 0,
            "rank": matrix.rank if matrix._basis is not None else 0,
            "token": token,
            "arrays": entries,
        }
    ).encode("utf-8")
    lead = len(_MAGIC) + 8 + len(header)
    lead += (-lead) % _ALIGN
    final = path_for(db_path, user_id)
    tmp = final.with_name(final.name + f".{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(_MAGIC + len(header).to_bytes(8, "little") + header)
            fh.write(b"\0" * (lead - len(_MAGIC) - 8 - len(header)))
            for arr in arrays.values():
                fh.write(memoryview(arr.reshape(-1).view(np.uint8)) if arr.size else b"")
                fh.write(b"\0" * ((-arr.nbytes) % _ALIGN))
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, final)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
        raise
    return token


class _Damaged(ValueError):
    pass


# the one dtype each array may have ("mat": float16 once projected): a file claiming another is not this format's
_KINDS = {"ids": "S", "pks": "<i8", "codes": "|i1", "graph": "|u1", "graph_rows": "<i8"}
_FREE_ROWS = ("basis", "graph", "graph_rows")  # arrays not of one row per vector


def _header(fh) -> tuple[dict, int] | None:  # type: ignore[no-untyped-def]
    """The JSON header and the offset where the arrays begin, or None when the file is not of this layout."""
    if fh.read(len(_MAGIC)) != _MAGIC:
        return None
    size = int.from_bytes(fh.read(8), "little")
    if not 0 < size < 1 << 24:
        return None
    header = json.loads(fh.read(size).decode("utf-8"))
    lead = len(_MAGIC) + 8 + size
    return header, lead + (-lead) % _ALIGN


def _read_array(fh, lead: int, header: dict, name: str, rows: int | None = None) -> np.ndarray:  # type: ignore[no-untyped-def]
    """One array of the file, in a buffer of ``rows`` rows (room to grow) when given; raises ``_Damaged`` when
    its shape, dtype, size or checksum is not what this format writes."""
    entries, n = header["arrays"], int(header["n"])
    e = entries[name]
    shape = [int(x) for x in e["shape"]]
    if not shape or (shape[0] != n and name not in _FREE_ROWS):
        raise _Damaged(name)
    dtype = np.dtype(e["dtype"])
    want = ("<f2" if "basis" in entries else "<f4") if name == "mat" else _KINDS.get(name, "<f4")
    if not (dtype.kind == "S" if want == "S" else dtype.str == want):
        raise _Damaged(name)
    out = np.zeros(((rows if rows is not None else shape[0]), *shape[1:]), dtype=dtype)
    part = out[: shape[0]]
    if part.nbytes != int(e["nbytes"]):
        raise _Damaged(name)
    fh.seek(lead + int(e["offset"]))
    if part.nbytes and fh.readinto(memoryview(part.reshape(-1).view(np.uint8))) != part.nbytes:
        raise _Damaged(name)
    if checksum(part) != e["checksum"]:
        raise _Damaged(name)
    return out


def load(db_path: Path, user_id: str, *, token: str | None, dim: int | None) -> ScopeMatrix | None:
    """The saved matrix if it is whole and is the one the store recorded, else None (the caller rebuilds)."""
    path = path_for(db_path, user_id)
    if token is None or not path.exists():
        return None
    try:
        with open(path, "rb") as fh:
            got = _header(fh)
            if got is None:
                return None
            header, lead = got
            if (
                header.get("format") != FORMAT
                or header.get("user_id") != user_id
                or header.get("token") != token
                or (dim is not None and header.get("dim") not in (dim, 0))
            ):
                return None
            n = int(header["n"])
            room = n + max(1024, n // 8)  # appends after loading do not copy the matrix at once
            entries = header["arrays"]
            projected = "basis" in entries

            read = functools.partial(_read_array, fh, lead, header)
            codes, mat = read("codes", room), read("mat", room)
            basis = read("basis") if projected else None
            proj = read("proj", room) if projected else None
            if mat.ndim != 2 or (n and mat.shape[1] != int(header["dim"])):
                raise _Damaged("mat")
            if basis is not None and (basis.ndim != 2 or basis.shape[0] != mat.shape[1]):
                raise _Damaged("basis")
            if proj is not None and (proj.ndim != 2 or basis is None or proj.shape[1] != basis.shape[1]):
                raise _Damaged("proj")
            m = ScopeMatrix(seq=int(header["seq"]), dim=int(header["dim"]))
            m._n, m._ids, m._pks, m._codes, m._mat = n, read("ids", room), read("pks", room), codes, mat
            m.reindex()
            if n > 1 and not bool(np.all(np.diff(m._spk) > 0)):
                raise _Damaged("pks")  # one row key twice: rows would be misread
            if basis is not None and proj is not None:
                m.rank = int(basis.shape[1])
                m._basis, m._proj = basis, proj
            if "graph" in entries and "graph_rows" in entries:
                m._graph_saved = _graph_reader(path, token, n, int(header["dim"]))
    except (OSError, ValueError, KeyError, IndexError, TypeError, UnicodeDecodeError):
        return None  # torn, truncated or altered (a checksum differs): the caller rebuilds from SQL
    return m


def _graph_reader(path: Path, token: str, n: int, dim: int):  # type: ignore[no-untyped-def]
    """Reads the snapshot's neighbour graph when a write first needs it (a process that only reads never
    holds it): the same file, still carrying ``token``, every checksum matching; else None (rebuilt)."""

    def read_graph() -> NeighbourGraph | None:
        try:
            with open(path, "rb") as fh:
                got = _header(fh)
                if got is None or got[0].get("token") != token:
                    return None
                graph = _read_array(fh, got[1], got[0], "graph")
                rows = _read_array(fh, got[1], got[0], "graph_rows")
        except (OSError, ValueError, KeyError, IndexError, TypeError, UnicodeDecodeError):
            return None
        if rows.size and (int(rows.min()) < 0 or int(rows.max()) >= n):
            return None
        return NeighbourGraph.from_arrays(graph, rows, dim)

    return read_graph


def erase(db_path: Path, user_id: str) -> None:
    """Overwrite then remove a user's snapshot (its vectors are derived from their text)."""
    path = path_for(db_path, user_id)
    with contextlib.suppress(FileNotFoundError):
        size = path.stat().st_size
        with open(path, "r+b") as fh:
            fh.write(b"\0" * size)
            fh.flush()
            os.fsync(fh.fileno())
        path.unlink()

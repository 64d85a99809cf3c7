"""The Chinese address detector reads jionlp's location lexicon as the wheel ships it (zipped).

jionlp unpacks ``china_location.zip`` only when it is imported, and memscribe never imports it on the write path,
so on a fresh install the ``.txt`` does not exist: CI failed on exactly that.
"""

from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path

from memscribe.write.pii import address_zh


def _dictionary() -> Path:
    spec = importlib.util.find_spec("jionlp")
    assert spec is not None and spec.submodule_search_locations
    return Path(next(iter(spec.submodule_search_locations)), "dictionary")


def test_the_lexicon_reads_from_the_zip_alone(tmp_path: Path) -> None:
    shutil.copy(_dictionary() / "china_location.zip", tmp_path / "china_location.zip")
    from_zip = address_zh._lexicon_lines(tmp_path)
    assert not (tmp_path / "china_location.txt").exists()  # nothing unpacked, nothing written
    assert len(from_zip) > 3000
    assert any(line.startswith("上海市") for line in from_zip)
    if (_dictionary() / "china_location.txt").is_file():  # jionlp ran here once: both must agree
        assert from_zip == address_zh._lexicon_lines(_dictionary())

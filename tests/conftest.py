import os

os.environ.setdefault("OMP_NUM_THREADS", "1")

import pytest

from memscribe import Memory


@pytest.fixture
def mem(tmp_path):
    m = Memory(home=tmp_path / "store")
    yield m
    m.close()

"""The Store contract as reusable pytest mixins, one per area (Haystack's way). An engine's test module
subclasses ``StoreContractTests`` (all of them) and provides one fixture, ``store``, returning a fresh,
empty store:

    class TestSQLiteStore(StoreContractTests):
        @pytest.fixture
        def store(self, tmp_path):
            return SQLiteStore(tmp_path / "m.db")

A store that implements only some areas can compose just those mixins.
"""

from __future__ import annotations

from memscribe.testing.store_contract.bulk import BulkContract
from memscribe.testing.store_contract.counters import CounterContract
from memscribe.testing.store_contract.jobs import JobContract
from memscribe.testing.store_contract.lifecycle import LifecycleContract, TransactionContract
from memscribe.testing.store_contract.memories import MemoryContract, OriginContract, SlotContract
from memscribe.testing.store_contract.records import T0, make_record, put, unit_vector
from memscribe.testing.store_contract.search import SearchContract
from memscribe.testing.store_contract.sessions import SessionContract
from memscribe.testing.store_contract.vault import VaultContract

__all__ = [
    "T0",
    "BulkContract",
    "CounterContract",
    "JobContract",
    "LifecycleContract",
    "MemoryContract",
    "OriginContract",
    "SearchContract",
    "SessionContract",
    "SlotContract",
    "StoreContractTests",
    "TransactionContract",
    "VaultContract",
    "make_record",
    "put",
    "unit_vector",
]


class StoreContractTests(
    MemoryContract,
    BulkContract,
    SlotContract,
    OriginContract,
    SearchContract,
    TransactionContract,
    JobContract,
    SessionContract,
    VaultContract,
    CounterContract,
    LifecycleContract,
):
    """Behaviour every Store must have. Subclasses provide the ``store`` fixture."""

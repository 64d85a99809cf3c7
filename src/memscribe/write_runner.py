"""One ``add()`` run to its end: its arguments validated (:mod:`memscribe.boundary`), the write admitted
(limits, then the write rate, :mod:`memscribe.admission`), then written through the pipeline now or — over
the rate — queued as a sealed ``deferred_add`` job that runs the same pipeline at its turn. The job's
handler is registered here, on the background the write hands its follow-up work (verification) to.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from memscribe import boundary
from memscribe.admission import Admission, DeferredWrite
from memscribe.errors import InputError
from memscribe.write.request import WriteRequest

if TYPE_CHECKING:
    from memscribe.background import Background
    from memscribe.clock import Clock
    from memscribe.config import Settings
    from memscribe.metrics import Metrics
    from memscribe.models import Message, WriteReport
    from memscribe.store.base import Store
    from memscribe.store.rows import JobRow
    from memscribe.vault import Vault
    from memscribe.write.pipeline import WritePipeline

__all__ = ["WriteRunner"]


class WriteRunner:
    def __init__(
        self,
        store: Store,
        settings: Settings,
        pipeline: WritePipeline,
        background: Background,
        metrics: Metrics,
        *,
        vault: Callable[[], Vault],
        clock: Clock,
    ) -> None:
        self._store = store
        self._max_message_bytes = settings.write.max_message_bytes
        self._pipeline = pipeline
        self._admission = Admission(settings, store, vault)
        self._background = background
        self._metrics = metrics
        self._clock = clock
        background.register("deferred_add", self.run_deferred)

    def add(
        self,
        messages: Any,
        *,
        user_id: str,
        agent_id: str | None,
        session_id: str | None,
        at: str | datetime | None,
        metadata: Mapping[str, Any] | None,
        verbatim: bool = False,
    ) -> WriteReport:
        """Validate, admit, then write now or defer (``InputError``, ``LimitExceeded``, ``RateLimited``)."""
        if not isinstance(verbatim, bool):
            raise InputError("verbatim must be True or False")
        user_id = boundary.require_user(user_id)
        agent_id = boundary.optional_id(agent_id, "agent_id")
        session_id = boundary.optional_id(session_id, "session_id")
        when = boundary.parse_message_at(at, default=self._clock())
        meta = boundary.metadata(metadata)
        msgs = boundary.normalize_messages(messages, max_bytes=self._max_message_bytes, at=when)
        self._admission.check_limits(user_id)
        delay = self._admission.delay_for(user_id)
        if delay > 0:
            write = DeferredWrite(
                user_id=user_id,
                messages=msgs,
                agent_id=agent_id,
                session_id=session_id,
                at=when,
                metadata=meta,
                verbatim=verbatim,
            )
            return self._defer(write, delay=delay)
        worker = self._background.worker
        worker.note_write()
        report = self._run(
            msgs,
            user_id=user_id,
            agent_id=agent_id,
            session_id=session_id,
            at=when,
            metadata=meta,
            verbatim=verbatim,
        )
        worker.note_write()  # idle is measured from the end of the last write
        self._admission.note_written(user_id, report)
        self._background.after_write()
        return report

    def _defer(self, write: DeferredWrite, *, delay: float) -> WriteReport:
        """Over the rate: the whole write waits in the durable queue, sealed with the vault key (the raw
        messages may carry values the privacy stage has not removed yet), and runs at its turn."""
        payload = self._admission.seal(write)
        with self._store.atomic():
            job = self._store.enqueue(
                "deferred_add", payload, run_after=self._clock() + timedelta(seconds=delay)
            )
            self._store.bump_counter(write.user_id, "writes_deferred", 1)
        self._background.worker.wake()
        return write.report(job, delay)

    def run_deferred(self, job: JobRow) -> None:
        """The ``deferred_add`` job handler: the queued write through the pipeline."""
        write = self._admission.open(job.payload)
        self._run(
            write.messages,
            user_id=write.user_id,
            agent_id=write.agent_id,
            session_id=write.session_id,
            at=write.at,
            metadata=write.metadata,
            verbatim=write.verbatim,
        )
        self._store.bump_counter(write.user_id, "writes_deferred_done", 1)

    def _run(
        self,
        msgs: list[Message],
        *,
        user_id: str,
        agent_id: str | None,
        session_id: str | None,
        at: datetime,
        metadata: dict[str, Any],
        verbatim: bool = False,
    ) -> WriteReport:
        """One write through the pipeline, timed (add() and deferred writes); the pipeline locks only the
        user's neighbour lookup and commit."""
        req = WriteRequest(
            user_id=user_id,
            agent_id=agent_id,
            session_id=session_id,
            at=at,
            now=self._clock(),
            metadata=metadata,
        )
        with self._metrics.timed("add"):
            return self._pipeline.run_verbatim(msgs, req) if verbatim else self._pipeline.run(msgs, req)

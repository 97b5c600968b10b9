"""Webhook delivery: POST every queued update to the bot's URL until it answers 2xx.

Modelled on Telegram's own Bot API server (tdlib/telegram-bot-api, WebhookActor): an update
stays pending until the webhook answers 2xx; any other answer, a refused connection or a
timeout is recorded as the webhook's last error and the update is sent again later; several
updates are in flight at once (up to `max_connections`), but the updates of one chat go one
at a time, in order. Telegram keeps a lane per chat for messages and separate lanes for
callback queries (per presser) and my_chat_member; the fake keeps one lane per chat for all
of them, which is stricter and keeps tests about ordering meaningful. Telegram waits longer
and longer between retries and honours Retry-After; the fake waits a fixed `retry_delay`.
Telegram also runs a Bot API method given in the body of a 2xx answer; the fake ignores it.

Test controls on top of that: several target URLs taken in turn (a load balancer in front of
several bot instances) and deliberate duplicates (Telegram sending an update again).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
from dataclasses import dataclass

import aiohttp

from .models import JSON, DeliveryRecord
from .webhook_config import SECRET_HEADER, Lane, Updates, WebhookConfig, lane_of

_log = logging.getLogger(__name__)


@dataclass(eq=False)
class _Job:
    """One update on its way to the webhook (or its deliberate second delivery)."""

    update_id: int
    update: JSON
    lane: Lane
    duplicate: bool = False
    target: int | None = None  # index of the target the last attempt went to
    ready_at: float = 0.0  # loop time before which it is not sent again
    running: bool = False


def _connection_error(error: OSError) -> str:
    """Telegram reports the system's wording ("Connection refused"), not Python's."""
    return os.strerror(error.errno) if error.errno else str(error) or type(error).__name__


def _log_failure(task: asyncio.Task[None]) -> None:
    """A bug in delivery must show in the log, not end deliveries silently."""
    if not task.cancelled() and task.exception() is not None:
        _log.error("webhook task %s failed", task.get_name(), exc_info=task.exception())


class WebhookDelivery:
    """Sends the world's pending updates to the webhook from background tasks.

    `start` (setWebhook) launches a dispatcher task; it wakes on every change of the world,
    starts a sender task per update that may go now and sleeps until the next retry is due.
    `close` (deleteWebhook, server stop) cancels them all and waits for them.
    """

    def __init__(self, world: Updates, *, request_timeout: float, retry_delay: float) -> None:
        self.world = world
        self.config: WebhookConfig | None = None
        self.request_timeout = request_timeout
        self.retry_delay = retry_delay
        self.targets: list[str] | None = None
        self.duplicate_every = 0
        self.records: list[DeliveryRecord] = []
        self.delivered: list[int] = []
        self.last_error_date = 0
        self.last_error_message = ""
        self._jobs: dict[int, _Job] = {}  # first deliveries, by update id
        self._redeliveries: dict[int, _Job] = {}  # second deliveries still to make
        self._rotation = 0  # the target the next new update goes to
        self._since_duplicate = 0
        self._sending = 0
        self._dispatcher: asyncio.Task[None] | None = None
        self._senders: set[asyncio.Task[None]] = set()
        self._session: aiohttp.ClientSession | None = None

    # -- lifecycle ------------------------------------------------------------------------

    @property
    def running(self) -> bool:
        return self._dispatcher is not None

    async def start(self, config: WebhookConfig) -> None:
        """Deliver to `config.url` from now on; a running delivery is restarted."""
        await self.close()
        self.config = config
        self.last_error_date, self.last_error_message = 0, ""
        # No pool limit: the dispatcher counts the updates in flight itself, and a request
        # queued for a pooled connection would spend its timeout waiting.
        self._session = aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0))
        self._dispatcher = asyncio.create_task(self._dispatch(), name="fakeapi-webhook")
        self._dispatcher.add_done_callback(_log_failure)

    async def resume(self) -> None:
        """Start delivering again after `close` if a webhook is still registered."""
        if self.config is not None and not self.running:
            await self.start(self.config)

    async def close(self) -> None:
        """Stop delivering: cancel the dispatcher and every send in flight, and wait for them.

        Updates whose answer had not arrived stay pending, as with Telegram.
        """
        tasks = [*self._senders, *([self._dispatcher] if self._dispatcher else [])]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        self._senders.clear()
        self._dispatcher = None
        self._jobs.clear()
        self._redeliveries.clear()
        self._sending = 0
        if self._session is not None:
            await self._session.close()
            self._session = None

    async def remove(self) -> None:
        """deleteWebhook: stop and forget the webhook and its last error."""
        await self.close()
        self.config = None
        self.last_error_date, self.last_error_message = 0, ""

    # -- test controls ----------------------------------------------------------------------

    def set_targets(self, urls: list[str] | None) -> None:
        """Send to these URLs in turn instead of the registered one (None: the registered one)."""
        if urls is not None:
            if not isinstance(urls, list) or not urls:
                raise ValueError("urls must be a non-empty list of URLs, or None")
            for url in urls:
                if not isinstance(url, str) or not url.startswith(("http://", "https://")):
                    raise ValueError(f"not an http(s) URL: {url!r}")
        self.targets = list(urls) if urls is not None else None
        self._rotation = 0
        self.world.changed("webhook_targets", self.targets)

    def set_duplicate(self, every: int) -> None:
        """Deliver every `every`-th update a second time; 0 switches duplicates off."""
        if isinstance(every, bool) or not isinstance(every, int) or every < 0:
            raise ValueError("every must be an integer >= 0")
        self.duplicate_every = every
        self._since_duplicate = 0

    def pending(self) -> int:
        """Updates not yet delivered, plus second deliveries not yet made."""
        return len(self.world.updates) + len(self._redeliveries)

    def idle(self) -> bool:
        """Nothing to deliver and nothing in flight."""
        return self.pending() == 0 and self._sending == 0

    # -- delivery -------------------------------------------------------------------------

    async def _dispatch(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            # Take the signal before looking, so a change made meanwhile is not missed.
            signal = self.world.change_signal()
            wake_at = self._launch_ready(loop.time())
            # asyncio.timeout, not wait_for: on Python 3.11 wait_for can swallow the
            # cancellation `close` sends when the signal fires at the same moment.
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout_at(wake_at):
                    await signal.wait()

    def _launch_ready(self, now: float) -> float | None:
        """Start every update that may go now; return when the next retry is due, if any."""
        assert self.config is not None
        live = {update_id for update_id, _, _ in self.world.updates}
        for update_id in [u for u, job in self._jobs.items() if u not in live and not job.running]:
            del self._jobs[update_id]  # dropped (drop_pending_updates) while waiting
        # A second delivery holds its chat's lane like the first one: it comes before the
        # chat's next update.
        queue = list(self._redeliveries.values())
        for update_id, _, update in self.world.updates:
            job = self._jobs.get(update_id)
            if job is None:
                job = self._jobs[update_id] = _Job(update_id, update, lane_of(update))
            queue.append(job)
        taken: set[Lane] = set()
        wake_at: float | None = None
        for job in queue:
            if job.lane in taken:
                continue  # an earlier update of the chat is waiting or in flight
            taken.add(job.lane)
            if job.running:
                continue
            if job.ready_at > now:
                wake_at = job.ready_at if wake_at is None else min(wake_at, job.ready_at)
                continue
            if self._sending >= self.config.max_connections:
                break  # a send that ends signals a change, which brings us back here
            self._launch(job)
        return wake_at

    def _launch(self, job: _Job) -> None:
        assert self.config is not None
        targets = self.targets or [self.config.url]
        if job.target is None:
            index = self._rotation % len(targets)
            self._rotation += 1
        else:
            # A retry (or a second delivery) goes to the target after the last one tried.
            index = (job.target + 1) % len(targets)
        job.target, job.running = index, True
        self._sending += 1
        task = asyncio.create_task(
            self._send(job, targets[index]), name=f"fakeapi-webhook-{job.update_id}"
        )
        self._senders.add(task)
        task.add_done_callback(self._senders.discard)
        task.add_done_callback(_log_failure)

    async def _send(self, job: _Job, url: str) -> None:
        try:
            status, error = await self._post(url, job.update)
        finally:
            job.running = False
            self._sending -= 1
        record = DeliveryRecord(job.update_id, url, status, self.world.clock(), job.duplicate)
        self.records.append(record)
        if error is None:
            self._delivered(job)
        else:
            job.ready_at = asyncio.get_running_loop().time() + self.retry_delay
            self.last_error_date, self.last_error_message = int(record.at), error
            _log.info("webhook delivery of update %s to %s: %s", job.update_id, url, error)
        self.world.changed("webhook_delivery", record)

    def _delivered(self, job: _Job) -> None:
        if job.duplicate:
            self._redeliveries.pop(job.update_id, None)
            return
        self._jobs.pop(job.update_id, None)
        self.world.updates = [u for u in self.world.updates if u[0] != job.update_id]
        self.delivered.append(job.update_id)
        if self.duplicate_every:
            self._since_duplicate += 1
            if self._since_duplicate % self.duplicate_every == 0:
                # Sent once the first delivery is answered, to the next target.
                self._redeliveries[job.update_id] = _Job(
                    job.update_id, job.update, job.lane, duplicate=True, target=job.target
                )

    async def _post(self, url: str, update: JSON) -> tuple[int | str, str | None]:
        """POST one update; returns (HTTP status or connection error, error message or None)."""
        assert self._session is not None and self.config is not None
        headers = {"Content-Type": "application/json"}
        if self.config.secret_token:
            headers[SECRET_HEADER] = self.config.secret_token
        body = json.dumps(update, ensure_ascii=False).encode()
        timeout = aiohttp.ClientTimeout(total=self.request_timeout)
        try:
            async with self._session.post(
                url, data=body, headers=headers, timeout=timeout, allow_redirects=False
            ) as response:
                await response.read()
        except TimeoutError:
            return "Read timeout expired", "Read timeout expired"
        except aiohttp.ClientConnectorError as error:
            message = _connection_error(error.os_error)
            return message, message
        except aiohttp.ServerDisconnectedError:
            return "Webhook connection closed", "Webhook connection closed"
        except (aiohttp.ClientError, OSError) as error:
            message = str(error) or type(error).__name__
            return message, message
        if 200 <= response.status <= 299:
            return response.status, None
        return response.status, (
            f"Wrong response from the webhook: {response.status} {response.reason or ''}".rstrip()
        )

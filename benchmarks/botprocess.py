"""The real bot as a child process of a benchmark (``python -m cuckoo_bot run``), pointed at the
fake Bot API this process serves: started, signalled and read from outside, as an operator's
tools would (its log, ``/proc`` and its own ``/metrics``)."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import aiohttp

from fakebotapi import FakeBotApi

SERVING = re.compile(r"serving /healthz and /metrics on ([\d.]+):(\d+)")
SAMPLE = re.compile(r"^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})? ([0-9.eE+-]+|NaN|[+-]Inf)$")


def run_from(tree: Path | None) -> tuple[Path | None, dict[str, str]]:
    """Where to start ``python -m cuckoo_bot`` and what to add to its environment so that it
    runs the code of the checkout ``tree`` (None: this one). ``-m`` puts the working folder
    first on the path, ahead of ``PYTHONPATH`` and of this checkout's editable install, so the
    folder is the tree, and ``PYTHONPATH`` names it for any process the bot starts."""
    if tree is None:
        return None, {}
    path = os.pathsep.join(p for p in (str(tree), os.environ.get("PYTHONPATH", "")) if p)
    return tree, {"PYTHONPATH": path}


class BotProcess:
    """One bot process, its log in a file; started, stopped and killed as often as the
    benchmark likes. ``env`` adds to (or overrides) the settings every benchmark gives it."""

    def __init__(
        self,
        fake: FakeBotApi,
        token: str,
        url: str,
        log: Path,
        *,
        prefix: tuple[str, ...] = (),
        patience: float = 60,
        tree: Path | None = None,
        **env: str,
    ) -> None:
        self.fake, self.token, self.url, self.log, self.env = fake, token, url, log, env
        # ``prefix``: a command the bot runs under (valgrind, say), which may slow its start-up:
        # ``patience`` is how long a start may take, in seconds. ``tree``: the bot's code from
        # that checkout (``run_from``).
        self.prefix, self.patience = prefix, patience
        self.folder, self.tree_env = run_from(tree)
        self.process: subprocess.Popen[bytes] | None = None
        self.ready_at = 0.0  # the fake's clock when the last start-up ended

    async def start(self) -> str:
        """Start it and wait for start-up (its commands registered); the base URL of its own
        HTTP server (``/healthz``, ``/metrics``, the live table)."""
        before = self.fake.call_count("setMyCommands")
        env = {k: v for k, v in os.environ.items() if not k.startswith("CUCKOO_")}
        env |= {
            "CUCKOO_BOT_TOKEN": self.token,
            "CUCKOO_API_BASE_URL": self.fake.base_url,
            "CUCKOO_DATABASE_URL": self.url,
            "CUCKOO_TURN_TIMEOUT": "600",
            "CUCKOO_LOG_LEVEL": "INFO",
            "CUCKOO_LISTEN": "127.0.0.1",
            "CUCKOO_PORT": "0",
            **self.tree_env,
            **self.env,
        }
        with self.log.open("ab") as out:
            self.process = subprocess.Popen(  # noqa: ASYNC220 - returns at once
                [*self.prefix, sys.executable, "-m", "cuckoo_bot", "run"],
                cwd=self.folder,
                env=env,
                stdout=out,
                stderr=out,
            )
        await self.fake.wait_for(
            lambda: self.fake.call_count("setMyCommands") >= before + 6, self.patience
        )
        self.ready_at = max(c.time for c in self.fake.calls("setMyCommands"))
        found = SERVING.findall(self.log.read_text(errors="replace"))
        if not found:
            raise RuntimeError(f"the bot named no port:\n{self.log.read_text()[-2000:]}")
        host, port = found[-1]
        return f"http://{host}:{port}"

    @property
    def pid(self) -> int:
        assert self.process is not None, "not running"
        return self.process.pid

    def rss_kb(self) -> int:
        """Its resident set now (``VmRSS``)."""
        status = Path(f"/proc/{self.pid}/status").read_text()
        return int(re.findall(r"VmRSS:\s+(\d+) kB", status)[0])

    def cpu_seconds(self) -> float:
        """The CPU it has used since it started, user and system (the kernel's count)."""
        fields = Path(f"/proc/{self.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    async def metrics(self, base: str) -> dict[str, float]:
        """Its ``/metrics`` now: each sample's name (and labels, as written) to its value."""
        async with aiohttp.ClientSession() as session, session.get(f"{base}/metrics") as answer:
            text = await answer.text()
        samples = {}
        for line in text.splitlines():
            found = SAMPLE.match(line)
            if found:
                samples[found[1] + (found[2] or "")] = float(found[3])
        return samples

    async def kill(self, how: signal.Signals = signal.SIGKILL) -> int | None:
        """Signal the process and wait for it to end (at most 15 s, then SIGKILL), the event
        loop (and so the fake Bot API a stopping bot still talks to) running meanwhile; its
        exit code (None if it was not running)."""
        process, self.process = self.process, None
        if process is None or process.poll() is not None:
            return None
        process.send_signal(how)
        for _ in range(300):
            if process.poll() is not None:
                return process.returncode
            await asyncio.sleep(0.05)
        print("the bot was still running 15 s after the signal: killed")
        process.kill()
        process.wait(5)
        return process.returncode

    async def stop(self) -> int | None:
        """SIGTERM, as a deploy stops it."""
        return await self.kill(signal.SIGTERM)

    def complaints(self) -> list[str]:
        """Its log's warnings and errors."""
        lines = self.log.read_text(errors="replace").splitlines()
        return [line for line in lines if re.search(r"\b(WARNING|ERROR|CRITICAL)\b", line)]

"""A player's private chat: deals, prompts and the end of the game, in order, at the chat's
pace. What each notice needs is planned by ``plan_private.py``; this lane renders and calls."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, replace

from telegram.error import BadRequest, Forbidden

from cuckoo_bot.app.model import Game
from cuckoo_bot.app.notices import (
    AnswerNote,
    CloseNote,
    DealNote,
    Notice,
    NoticeKind,
    NudgeNote,
    Payload,
    PlayedNote,
    PromptNote,
    SentMessage,
)
from cuckoo_bot.transport.delivery.calls import Unreachable
from cuckoo_bot.transport.delivery.lanes import Lane
from cuckoo_bot.transport.delivery.plan_private import plan
from cuckoo_bot.transport.delivery.results import LaneResult
from cuckoo_bot.transport.delivery.steps import Clear, Show, Step
from cuckoo_bot.transport.render import Rendered, Renderer, group_language
from cuckoo_bot.transport.render.common import Known as Players

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class _Ask:
    """What rendering a private notice takes besides its payload."""

    renderer: Renderer
    game: Game
    players: Players
    lang: str
    show: Show
    reader: int


def _deal(note: Payload, a: _Ask) -> Rendered:
    assert isinstance(note, DealNote)
    return a.renderer.deal(note, a.game, a.players, a.lang, with_result=a.show is Show.WITH_RESULT)


def _prompt(note: Payload, a: _Ask) -> Rendered:
    assert isinstance(note, PromptNote)
    return a.renderer.prompt(note, a.game, a.players, a.lang, reader=a.reader)


def _played(note: Payload, a: _Ask) -> Rendered:
    assert isinstance(note, PlayedNote)
    return a.renderer.played(note, a.game, a.players, a.lang)


def _nudge(note: Payload, a: _Ask) -> Rendered:
    assert isinstance(note, NudgeNote)
    return a.renderer.nudge(note, a.game, a.lang)


def _close(note: Payload, a: _Ask) -> Rendered:
    assert isinstance(note, CloseNote)
    if note.place is not None:  # a won game: the end, which notifies, with Play again
        return a.renderer.final(note, a.game, a.players, a.lang, a.reader)
    return a.renderer.close(note, a.game, a.players, a.lang, reader=a.reader)


RENDER: dict[NoticeKind, Callable[[Payload, _Ask], Rendered]] = {
    NoticeKind.DEAL: _deal,
    NoticeKind.PROMPT: _prompt,
    NoticeKind.PLAYED: _played,
    NoticeKind.NUDGE: _nudge,
    NoticeKind.CLOSE: _close,
}


class PrivateLane(Lane):
    """One player's private chat: deals, prompts and the end of the game, in order."""

    def language(self, notice: Notice) -> str:
        reader = self.known.players.get(self.chat_id)
        game = self.known.game(notice)
        chosen = reader.language if reader else None
        return chosen or group_language(game.chat if game else None, game)

    async def run(self, notices: list[Notice]) -> LaneResult:
        self.holding = tuple(notices)
        for index, notice in enumerate(notices):
            later = notices[index + 1 :]
            try:
                steps = plan(notice, self.known.game(notice), self.view(), later)
                if not await self.execute(steps):
                    self.result.waiting = True  # the claims ran out: the rest waits
                    return self.result
            except Unreachable:
                self.result.waiting = True
                return self.result
            except Forbidden as exc:
                # The player blocked the bot: the rest of this chat's notices cannot go either.
                for refused in (notice, *later):
                    self.result.refused(refused, f"forbidden: {exc.message}")
                    self.result.unreachable.append(refused)
                return self.result
            except BadRequest as exc:
                self.result.refused(notice, f"bad request: {exc.message}")
            except Exception as exc:
                self.result.failed(notice, exc, self.tools.deps.clock.now(), self.chat_id)
        return self.result

    def render(self, notice: Notice, show: Show, folded: tuple[Notice, ...]) -> Rendered:
        if isinstance(notice.payload, AnswerNote):
            return self.tools.renderer.answer(notice.payload)
        game = self.known.game(notice)
        assert game is not None  # the planner skips a notice of no game
        ask = _Ask(
            self.tools.renderer, game, self.known.players, self.language(notice), show, self.chat_id
        )
        return RENDER[notice.kind](notice.payload, ask)

    def recall(self, target: SentMessage, rendered: Rendered, notice: Notice) -> Rendered:
        """A player whose card came with their prompt (the first of a round, or one whose card
        waited for the turn: no deal told it) keeps there the line recalling how their last
        round ended, over whatever that message becomes next: their answer, then the round's
        result."""
        payload = target.notice.payload
        last = None
        if isinstance(payload, PlayedNote):
            last = payload.last
        elif isinstance(payload, PromptNote) and payload.prev is not None:
            last = payload.last  # the card was dealt with this prompt
        if last is None:
            return rendered
        line = self.tools.renderer.recall_line(last, self.language(notice))
        return replace(rendered, text=f"{line}\n{rendered.text}")

    def retold(self, step: Clear) -> Rendered | None:
        game = self.known.game(step.old.notice)
        if step.retell is None or game is None:
            return None
        lang = self.language(step.old.notice)
        told = self.tools.renderer.result(step.retell, game, lang)
        return None if told is None else self.recall(step.old, told, step.old.notice)

    async def pace(self) -> None:
        if self.tools.pacer.delay(self.chat_id) > 0:
            # About to wait for the chat's pace: what the batch showed so far (this lane's and
            # the others') is marked first, so a crash during the wait cannot send it again (a
            # statement only when a lane waits and something is unmarked).
            async with self.marks.pause(self.tools):
                await self.tools.pacer.wait(self.chat_id)

    def sent(self) -> None:
        self.tools.pacer.sent(self.chat_id)

    def fault(self, step: Step, exc: Exception) -> bool:
        """Telling how a round ended never holds the next message back."""
        if isinstance(step, Clear) and not isinstance(exc, Forbidden):
            log.exception("telling the last round in chat %s failed", self.chat_id)
            return True
        return False

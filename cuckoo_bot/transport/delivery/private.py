"""A player's private chat: deals, prompts and the end of the game, in order, at the chat's
pace; a card dealt edits the last prompt when it is still the newest message there."""

from __future__ import annotations

import logging
from dataclasses import replace

from telegram.error import BadRequest, Forbidden

from cuckoo_bot.app.model import Game
from cuckoo_bot.app.notices import (
    CloseNote,
    CloseReason,
    DealNote,
    Notice,
    NoticeKind,
    NudgeNote,
    PlayedNote,
    PromptNote,
    RoundResult,
    SentMessage,
)
from cuckoo_bot.transport.delivery.calls import Unreachable
from cuckoo_bot.transport.delivery.lanes import Lane, LaneResult, keys_live
from cuckoo_bot.transport.render import Rendered, group_language

log = logging.getLogger(__name__)


def _current(note: PromptNote, game: Game) -> bool:
    """The prompt's turn is the game's turn now."""
    return game.state is not None and game.state.turn == note.turn and game.status.open


class PrivateLane(Lane):
    """One player's private chat: deals, prompts and the end of the game, in order."""

    def language(self, notice: Notice) -> str:
        reader = self.known.players.get(self.chat_id)
        game = self.known.game(notice)
        chosen = reader.language if reader else None
        return chosen or group_language(game.chat if game else None, game)

    async def run(self, notices: list[Notice]) -> LaneResult:
        for index, notice in enumerate(notices):
            game = self.known.game(notice)
            try:
                if game is None:
                    self.skip(notice, "no game")
                elif notice.kind is NoticeKind.DEAL:
                    await self.deal(notice, game)
                elif notice.kind is NoticeKind.PROMPT:
                    await self.prompt(notice, game)
                elif notice.kind is NoticeKind.CLOSE:
                    await self.close(notice, game)
                elif notice.kind is NoticeKind.PLAYED:
                    await self.played(notice, game, notices[index + 1 :])
                elif notice.kind is NoticeKind.NUDGE:
                    await self.nudge(notice, game, notices[index + 1 :])
                else:
                    self.skip(notice, "not a private notice")
            except Unreachable as exc:
                if exc.maybe_sent:  # shown, maybe: the next message here clears its keys
                    await self.tools.doubt(self.chat_id, notice.id)
                self.result.waiting = True
                return self.result
            except Forbidden as exc:
                self.refused(notice, f"forbidden: {exc.message}")
                self.result.unreachable.append(notice)
                # The player blocked the bot: the rest of this chat's notices cannot go either.
                for later in notices[index + 1 :]:
                    self.refused(later, "forbidden")
                    self.result.unreachable.append(later)
                return self.result
            except BadRequest as exc:
                self.refused(notice, f"bad request: {exc.message}")
            except Exception as exc:
                self.failed(notice, exc)
        return self.result

    def _live_prompts(self, notice: Notice) -> list[SentMessage]:
        return self.known.live_of(notice, NoticeKind.PROMPT)

    def _played_in(self, notice: Notice, round_no: int | None) -> SentMessage | None:
        """The player's answered prompt of round ``round_no`` (keys gone, still showing the
        answer): what the next deal, or the end, edits."""
        played = self.known.newest_played.get((self.chat_id, notice.game_id or 0))
        if played is None or round_no is None or played.notice.round != round_no:
            return None
        return played

    async def played(self, notice: Notice, game: Game, later: list[Notice]) -> None:
        """The prompt the player pressed says what happened, its keys gone. When this batch
        also deals, asks again or ends the game for them, that edit says it instead."""
        note = notice.payload
        assert isinstance(note, PlayedNote)
        if any(self._tells(n, game) for n in later):
            self.skip(notice, "told by what follows")
            return
        pressed = [
            p
            for p in self._live_prompts(notice)
            if isinstance(p.notice.payload, PromptNote) and p.notice.payload.turn == note.turn
        ]
        if not pressed:
            self.skip(notice, "no prompt to answer on")
            return
        rendered = self.tools.renderer.played(note, game, self.known.players, self.language(notice))
        if await self.tools.calls.edit(self.chat_id, pressed[-1].message_id, rendered):
            self.done(notice, pressed[-1].message_id, None)
        else:
            self.skip(notice, "the prompt is gone")

    @staticmethod
    def _tells(later: Notice, game: Game) -> bool:
        """A later notice of the batch that will be shown and take the pressed prompt's keys
        off: a deal, the end, or a prompt whose turn is still on (one read back after its turn
        is skipped)."""
        if later.kind in (NoticeKind.DEAL, NoticeKind.CLOSE):
            return True
        note = later.payload
        return isinstance(note, PromptNote) and _current(note, game)

    async def nudge(self, notice: Notice, game: Game, later: list[Notice]) -> None:
        """The turn runs out soon: a reply to its prompt, which notifies. Not when the turn is
        over, or when this batch moves the chat on anyway."""
        note = notice.payload
        assert isinstance(note, NudgeNote)
        state = game.state
        over = state is None or state.turn != note.turn or not game.status.open
        asked = [
            p
            for p in self._live_prompts(notice)
            if isinstance(p.notice.payload, PromptNote) and p.notice.payload.turn == note.turn
        ]
        if over or not asked or later:
            self.skip(notice, "the turn is over")
            return
        rendered = self.tools.renderer.nudge(note, game, self.language(notice))
        await self._send(notice, replace(rendered, reply_to=asked[-1].message_id))

    async def _send(self, notice: Notice, rendered: Rendered) -> None:
        if self.tools.pacer.delay(self.chat_id) > 0:
            # About to wait for the chat's pace: what the batch showed so far (this lane's and
            # the others') is marked first, so a crash during the wait cannot send it again (a
            # statement only when a lane waits and something is unmarked).
            async with self.shown.pause(self.tools):
                await self.tools.pacer.wait(self.chat_id)
        message = await self.tools.calls.send(notice, rendered)
        self.tools.pacer.sent(self.chat_id)
        self.done(notice, message.message_id, rendered.keyboard)
        doubted = self.tools.doubted(self.chat_id)
        # A copy shown before a crash has keys only if this one does (a prompt, a Play again):
        # a card dealt or a move answered left nothing to clear.
        orphan_keys = self.tools.maybe_shown(notice) and keys_live(rendered.keyboard)
        if orphan_keys or doubted:
            await self._clear_orphans(notice.id, below=message.message_id)

    async def _clear(self, old: SentMessage, rendered: Rendered | None, notice: Notice) -> None:
        """Take the keys off an earlier prompt, with how its round ended when known."""
        if rendered is None and old.notice.kind is NoticeKind.PLAYED:
            return  # answered already: no keys to take off
        if rendered is not None:
            await self.tools.calls.edit(self.chat_id, old.message_id, rendered)
        else:
            await self.tools.calls.remove_keys(self.chat_id, old.message_id)
        self.result.delivered.append(self.tools.keys_gone(old))
        cleared = SentMessage(old.notice, old.message_id, False, old.newest)
        self.known.remember(cleared)
        self.result.shown.append(cleared)

    def _keep_recall(self, target: SentMessage, rendered: Rendered, lang: str) -> Rendered:
        """The first person of a round keeps, on their prompt, the line recalling how their
        last round ended (their card came with that prompt, so no deal told it) over whatever
        that message becomes next: their answer, then the round's result."""
        payload = target.notice.payload
        last = None
        if isinstance(payload, PlayedNote):
            last = payload.last
        elif isinstance(payload, PromptNote) and payload.prev is not None:
            last = payload.last  # the card was dealt with this prompt
        if last is None:
            return rendered
        line = self.tools.renderer.recall_line(last, lang)
        return replace(rendered, text=f"{line}\n{rendered.text}")

    async def _tell_result(
        self,
        prompts: list[SentMessage],
        prev: RoundResult | None,
        game: Game,
        lang: str,
        notice: Notice,
    ) -> None:
        """Take the keys off earlier prompts, before the next message is sent so a chat reads
        in order (result, then the next card or turn). The newest prompt of the round that
        just ended says how it ended; any older one (a prompt another instance sent, learnt of
        late) only loses its keys, so no message tells a round that is not its own. An edit
        that fails for another reason than Telegram being away never holds the next message
        back."""
        told = next(
            (p for p in reversed(prompts) if prev is not None and p.notice.round == prev.round),
            None,
        )
        try:
            for old in prompts:
                shown = self.tools.renderer.result(prev, game, lang) if old is told else None
                if shown is not None:
                    shown = self._keep_recall(old, shown, lang)
                await self._clear(old, shown, notice)
        except (Unreachable, Forbidden):
            raise
        except Exception:
            log.exception("telling the last round in chat %s failed", self.chat_id)

    async def deal(self, notice: Notice, game: Game) -> None:
        note = notice.payload
        assert isinstance(note, DealNote)
        lang = self.language(notice)
        render = self.tools.renderer
        # Only prompts of earlier rounds: a prompt of this round or later is not this deal's.
        prompts = [p for p in self._live_prompts(notice) if (p.notice.round or 0) < note.round]
        played = self._played_in(notice, note.round - 1)
        last = max(
            [*prompts, *([played] if played else [])], key=lambda p: p.message_id, default=None
        )
        newest = self.known.newest.get(self.chat_id, 0)
        # (In a doubted chat a message the store never knew may be at the bottom: no edit.)
        if last and last.message_id == newest and not self.tools.doubted(self.chat_id):
            # The last prompt is what the player sees: it becomes the new deal, keys gone.
            rendered = render.deal(note, game, self.known.players, lang, with_result=True)
            rendered = self._keep_recall(last, rendered, lang)
            if await self.tools.calls.edit(self.chat_id, last.message_id, rendered):
                self.done(notice, last.message_id, None)
                for old in prompts:
                    if old is not last:
                        await self._clear(old, None, notice)
                return
        if played is not None and not any(p.notice.round == note.round - 1 for p in prompts):
            prompts.append(played)  # the round's result goes on the answered prompt
        await self._tell_result(prompts, note.prev, game, lang, notice)
        await self._send(
            notice, render.deal(note, game, self.known.players, lang, with_result=False)
        )

    async def prompt(self, notice: Notice, game: Game) -> None:
        note = notice.payload
        assert isinstance(note, PromptNote)
        if not _current(note, game):
            self.skip(notice, "turn over")  # read back after the turn moved on
            # Prompts of earlier turns still showing keys lose them (the answer that would
            # have, folded into this prompt, is not shown either).
            for old in self._live_prompts(notice):
                payload = old.notice.payload
                if isinstance(payload, PromptNote) and payload.turn < note.turn:
                    await self._clear(old, None, notice)
            if self.tools.maybe_shown(notice):  # another process may have shown it: no keys
                await self._clear_orphans(notice.id)
            return
        lang = self.language(notice)
        render = self.tools.renderer
        rendered = render.prompt(note, game, self.known.players, lang)
        prompts = [
            p
            for p in self._live_prompts(notice)
            if isinstance(p.notice.payload, PromptNote) and p.notice.payload.turn < note.turn
        ]
        newest = self.known.newest.get(self.chat_id, 0)
        # The dealer's second cut: they are looking at this prompt, so it asks again in place.
        again = note.again and prompts and prompts[-1].message_id == newest
        if again and await self.tools.calls.edit(self.chat_id, prompts[-1].message_id, rendered):
            self.done(notice, prompts[-1].message_id, rendered.keyboard)
            return
        prev = note.prev
        played = self._played_in(notice, prev.round if prev else None)
        if played is not None and not any(p.notice.round == played.notice.round for p in prompts):
            prompts.append(played)  # the last round's result goes on its answered prompt
        told = next((p for p in reversed(prompts) if prev and p.notice.round == prev.round), None)
        if note.last is not None and told is not None and told.notice.kind is NoticeKind.PLAYED:
            # The prompt's first line tells how that round ended: its answered prompt stays
            # as it is (an edit less); a prompt never answered still gets the result.
            prev = None
        await self._tell_result(prompts, prev, game, lang, notice)
        await self._send(notice, rendered)

    async def expire_keys(self, notice: Notice) -> None:
        """The Play again key under this player's end of the game is too old: it comes off."""
        ended = self.known.live_of(notice, NoticeKind.CLOSE)
        if not ended:
            self.skip(notice, "no key left to take off")
            return
        for old in ended:
            await self.tools.calls.remove_keys(self.chat_id, old.message_id)
            self.done(notice, old.message_id, None)

    async def final(
        self, notice: Notice, note: CloseNote, game: Game, prompts: list[SentMessage], lang: str
    ) -> None:
        """The end of a won game: the last prompt tells how its round ended (its keys go),
        then a new message, which notifies, tells the end and offers Play again."""
        # (In a doubted chat a message the store never knew may be at the bottom: no result.)
        prev = None if self.tools.doubted(self.chat_id) else note.prev
        await self._tell_result(prompts, prev, game, lang, notice)
        rendered = self.tools.renderer.final(note, game, self.known.players, lang, self.chat_id)
        await self._send(notice, rendered)

    async def close(self, notice: Notice, game: Game) -> None:
        note = notice.payload
        assert isinstance(note, CloseNote)
        if note.reason is CloseReason.EXPIRED:
            await self.expire_keys(notice)
            return
        prompts = self._live_prompts(notice)
        # The round that ended for the player (the game may have dealt the next one since).
        rnd = game.state.round if game.state is not None else None
        ended = note.prev.round if note.prev is not None else rnd.number if rnd else None
        played = self._played_in(notice, ended)
        if played is not None and (not prompts or prompts[-1].message_id < played.message_id):
            prompts = [*prompts, played]  # the answered prompt of the last round ends the game
        lang = self.language(notice)
        if note.place is not None:
            await self.final(notice, note, game, prompts, lang)
            return
        rendered = self.tools.renderer.close(
            note, game, self.known.players, lang, reader=self.chat_id
        )
        if not prompts:
            # Not asked this round yet (the game ended mid-round): the last word this player
            # had was "I'll write when it's your turn", so they are told.
            await self._send(notice, rendered)
            return
        if self.tools.doubted(self.chat_id):
            await self._send(notice, rendered)  # clears the keys of what the store never knew
            for old in prompts:
                await self._clear(old, None, notice)
            return
        kept = self._keep_recall(prompts[-1], rendered, lang)
        if await self.tools.calls.edit(self.chat_id, prompts[-1].message_id, kept):
            self.done(notice, prompts[-1].message_id, None)
        else:
            await self._send(notice, rendered)  # deleted by the player: a new message
        for old in prompts[:-1]:
            await self._clear(old, None, notice)

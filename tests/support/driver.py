"""Plays as Telegram users through the fake Bot API, reading only what users can see: the
end-to-end tests, the benchmarks and the demo sit people at the table with it."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

from cuckoo_bot.app.model import SUPPORTED_LANGUAGES
from cuckoo_bot.domain.decks import KILLE
from cuckoo_bot.transport import keydata
from cuckoo_bot.transport.render.kille import label
from fakebotapi import FakeBotApi, StoredMessage

CARD = re.compile(r"(10|[2-9AJQKRDV])([♣♦♥♠])")  # R, D, V: a French reader's K, Q, J
RANKS = {"A": 1, "J": 11, "Q": 12, "K": 13, "V": 11, "D": 12, "R": 13}
# A Kille card as a reader sees it ("🐦 Cuckoo", "🎴 7") in any language, and its rank.
KILLE_RANKS = {label(c, lang): c.rank for c in KILLE.cards for lang in SUPPORTED_LANGUAGES}
KILLE_CARD = re.compile("|".join(re.escape(k) for k in sorted(KILLE_RANKS, key=len, reverse=True)))
MOVE_KINDS = tuple(keydata.MOVES)


# How long a player waits for the next prompt, or for the end: the end is told in the group,
# which may wait a whole minute for its budget under Telegram's limits (20 calls a minute).
GROUP_PATIENCE = 70.0


def rank_of(shown: str) -> int:
    """A card's rank from how it reads (a Kille card's: 1, the Mask, to 21, the Harlequin)."""
    if shown in KILLE_RANKS:
        return KILLE_RANKS[shown]
    rank = CARD.fullmatch(shown)
    assert rank is not None, shown
    return RANKS.get(rank.group(1)) or int(rank.group(1))


@dataclass
class Prompt:
    """A message carrying the move keys, and who it asks, as seen at one moment (the message
    is edited later, so its keys are copied). Turn prompts come in the player's private chat;
    a player the bot cannot write to is asked in the group, with a mention."""

    message: StoredMessage
    actor: int
    keys: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        self.keys = tuple(d for d in self.message.callback_datas if _is_move(d))

    def data(self, kind: str) -> str | None:
        return next((d for d in self.keys if d.split(":")[1] == kind), None)

    @property
    def order(self) -> tuple[int, int]:
        """(game, turn): the newest prompt is the live one (older ones may keep keys a while)."""
        return _order(self.keys[0])


def _order(data: str) -> tuple[int, int]:
    _, _, game, _, turn = data.split(":")
    return int(game), int(turn)


def _game_of(data: str) -> int:
    """The game a key names (``1:<kind>:<game>...``), or 0 for a key naming none."""
    try:
        return keydata.decode(data).game
    except keydata.BadKeyData:
        return 0


def _is_move(data: str) -> bool:
    parts = data.split(":")
    return len(parts) == 5 and parts[1] in MOVE_KINDS


class TableDriver:
    """Plays as Telegram users through the fake server, reading only what users can see."""

    def __init__(self, fake: FakeBotApi, group_id: int) -> None:
        self.fake = fake
        self.group_id = group_id

    def lobby(self) -> StoredMessage | None:
        for msg in reversed(self.fake.messages(self.group_id, include_deleted=False)):
            if msg.from_bot and any(d.startswith("1:j:") for d in msg.callback_datas):
                return msg
        return None

    async def start_game(
        self, creator: int, players: list[int], computers: int = 0, wait: float = GROUP_PATIENCE
    ) -> None:
        """``/newgame`` by ``creator``; each of ``players`` taps Join, the creator adds the
        computer seats and taps Start."""
        await self.say(creator, "/newgame")
        await self.fake.wait_for(self.lobby, wait)
        taps = [(user, "1:j:") for user in players] + [(creator, "1:b:")] * computers
        opened = 0
        for user, kind in [*taps, (creator, "1:g:")]:
            lobby = self.lobby()
            assert lobby is not None
            opened = lobby.message_id
            data = next(d for d in lobby.callback_datas if d.startswith(kind))
            await self.press(user, lobby, data, wait)
        # Started once the first round's table is up (an earlier game's end is not this one's).
        await self.fake.wait_for(
            lambda: (table := self.table()) is not None and table.message_id > opened, wait
        )

    async def set_rules(self, admin: int, variants: Sequence[str], wait: float = 10.0) -> None:
        """``admin`` sets each of ``variants`` with /settings' keys (``kille=1``,
        ``name=ranter_go_round``): a key sets its setting's next value, so it is tapped until
        the tap that set this one (at most once round all the values)."""
        for variant in variants:
            name = variant.partition("=")[0]
            await self.say(admin, "/settings")
            menu, data = await self.fake.wait_for(partial(self._setting_key, name), wait)
            for _ in range(10):
                await self.press(admin, menu, data, wait)
                if data.endswith(f":{variant}"):
                    break
                pressed = data
                menu, data = await self.fake.wait_for(
                    partial(self._setting_key, name, unlike=pressed), wait
                )
            else:
                raise AssertionError(f"/settings never offered {variant}")

    def _setting_key(
        self, name: str, unlike: str | None = None
    ) -> tuple[StoredMessage, str] | None:
        """The newest settings key of setting ``name`` (its message and data), once it is not
        ``unlike`` (the key just tapped: the menu shows the next value)."""
        for msg in reversed(self.fake.messages(self.group_id, include_deleted=False)):
            for data in msg.callback_datas if msg.from_bot else ():
                if f":{name}=" in data:
                    return (msg, data) if data != unlike else None
        return None

    def lobby_text(self) -> str | None:
        """The lobby message's text, also once it has no keys left (started, cancelled)."""
        for msg in self.fake.messages(self.group_id, include_deleted=False):
            if msg.from_bot and (msg.text or "").startswith("🃏 Cuckoo"):
                return msg.text
        return None

    def table(self) -> StoredMessage | None:
        """The group's table message of the round being played (it has the My card key)."""
        for msg in reversed(self.fake.messages(self.group_id, include_deleted=False)):
            if msg.from_bot and any(d.startswith("1:m:") for d in msg.callback_datas):
                return msg
        return None

    def prompts(self) -> list[Prompt]:
        """Every message that shows move keys now: the group members' private prompts (this
        group's games only) and asks in the group."""
        found = []
        group = self.fake.world.chats.get(self.group_id)
        members = list(group.members) if group is not None else []
        for user_id in members:
            for msg in self.fake.dm(user_id):
                if msg.from_bot and not msg.deleted and any(map(_is_move, msg.callback_datas)):
                    found.append(Prompt(msg, user_id))
        for msg in self.fake.messages(self.group_id, include_deleted=False):
            if msg.from_bot and any(map(_is_move, msg.callback_datas)):
                mentions = [e for e in msg.entities if e.get("type") == "text_mention"]
                if mentions:
                    found.append(Prompt(msg, int(mentions[-1]["user"]["id"])))
        return found

    def prompt(self) -> Prompt | None:
        """The live turn prompt: the newest one (by game and turn)."""
        return max(self.prompts(), key=lambda p: p.order, default=None)

    async def next_prompt(
        self, after: str | None = None, wait: float = GROUP_PATIENCE
    ) -> Prompt | None:
        """The next live prompt whose keys differ from ``after``; None once the game is over."""

        done = _order(after) if after else (0, 0)

        def ready() -> Prompt | bool | None:
            # Older prompts may still show keys until their round ends: only a newer one counts.
            found = self.prompt()
            if found is not None and found.order > done:
                return found
            return True if self.game_over() else None

        found = await self.fake.wait_for(ready, wait)
        return found if isinstance(found, Prompt) else None

    def card_of(self, user_id: int) -> str | None:
        """The card the bot last told this user privately (the newest message naming one)."""
        for msg in reversed(self.fake.dm(user_id)):
            if msg.from_bot and msg.text:
                cards = [*CARD.finditer(msg.text), *KILLE_CARD.finditer(msg.text)]
                if cards:
                    return max(cards, key=lambda found: found.start()).group(0)
        return None

    async def press(
        self, user_id: int, message: StoredMessage, data: str, wait: float = 10.0
    ) -> dict[str, Any]:
        """Tap a button as ``user_id``; returns what the user saw (the callback answer)."""
        query = self.fake.press_button(user_id, message.chat_id, message.message_id, data)
        return await self.fake.wait_callback_answer(query, wait)

    async def say(self, user_id: int, text: str, chat_id: int | None = None) -> None:
        self.fake.user_sends(user_id, self.group_id if chat_id is None else chat_id, text)

    def game_over(self) -> bool:
        """The latest game in the group has ended: a winner's message after its last round.
        A winner's message whose Play again key names an older game than one the group or a
        prompt shows keys for is that older game's, shown again after a restart."""
        last_round = last_trophy = 0
        trophy_game = newest_game = 0
        for msg in self.fake.messages(self.group_id, include_deleted=False):
            text = msg.text or ""
            games = [_game_of(d) for d in msg.callback_datas]
            newest_game = max([newest_game, *games])
            if msg.from_bot and text.startswith("🃏") and "·" in text.split("\n", 1)[0]:
                last_round = msg.message_id
            elif msg.from_bot and text.startswith("🏆"):
                last_trophy = msg.message_id
                trophy_game = max(games, default=0)
        prompts = [p.order[0] for p in self.prompts()]
        if trophy_game and trophy_game < max([newest_game, *prompts]):
            return False
        return last_trophy > last_round > 0


def choose(card: str | None, dealer: bool, table_size: int) -> str:
    """A person's simple habit: get rid of low cards, keep the rest."""
    if card is None:
        return "k"
    bar = 6 if table_size <= 5 else 4
    if rank_of(card) <= bar and rank_of(card) != 13:
        return "c" if dealer else "s"
    return "k"


async def play_out(
    driver: TableDriver,
    humans: list[int],
    table_size: int,
    max_turns: int = 2000,
    check: Callable[[Prompt], Awaitable[None]] | None = None,
    wait: float = GROUP_PATIENCE,
) -> None:
    """Press keys for the humans until the game is over; ``check`` looks at every prompt;
    ``wait``: seconds to wait for the next prompt (or the end)."""
    last: str | None = None
    for _ in range(max_turns):
        prompt = await driver.next_prompt(after=last, wait=wait)
        if prompt is None:
            return
        if prompt.actor not in humans:
            raise AssertionError(f"the bot waits for {prompt.actor}, who is not a human here")
        if check is not None:
            await check(prompt)
        dealer = prompt.data("c") is not None
        kind = choose(driver.card_of(prompt.actor), dealer, table_size)
        data = prompt.data(kind) or prompt.data("k")
        assert data is not None
        last = prompt.data("k")
        await driver.press(prompt.actor, prompt.message, data)
    raise AssertionError("the game did not end")


def told_rounds(texts: str) -> set[int]:
    """The rounds the group saw end (each table, a folded one too, starts with its title):
    revealed, or their cards gathered."""
    told = set()
    for table in texts.split("🃏 Round ")[1:]:
        number = int(table.split(" ", 1)[0])
        if "Cards on the table" in table:
            # A revealed round keeps its acts, folded under an earlier table or not.
            assert any(mark in table for mark in ("✋", "🔄", "👑", "✂️", "⏱")), table
            told.add(number)
        elif f"cards of round {number} were gathered" in table:
            told.add(number)
    return told

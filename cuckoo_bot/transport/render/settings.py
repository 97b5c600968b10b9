"""A group's house rules: the rules as text, the settings keys that change them, and the
language keys."""

from __future__ import annotations

from cuckoo_bot.app.model import Chat
from cuckoo_bot.domain.rules import FinalTie, HouseRules
from cuckoo_bot.i18n.messages import LANGUAGE_NAMES
from cuckoo_bot.transport import keydata
from cuckoo_bot.transport.render.common import Part, Rendered, keys


class SettingsPart(Part):
    def rules(self, lang: str, rules: HouseRules, timeout: float) -> str:
        t = self.tr.t
        house = []
        if rules.lives != 3:
            house.append(t(lang, "rules_lives", lives=rules.lives))
        if rules.max_players != 10:
            house.append(t(lang, "rules_max_players", max_players=rules.max_players))
        if not rules.kings_block:
            house.append(t(lang, "rules_no_block"))
        if rules.double_cut:
            house.append(t(lang, "rules_double_cut"))
        if rules.fast_turns:
            house.append(t(lang, "rules_fast_turns"))
        if rules.final_tie is FinalTie.SUDDEN_DEATH:
            house.append(t(lang, "rules_sudden_death"))
        return t(
            lang,
            "rules",
            min_players=rules.min_players,
            max_players=rules.max_players,
            lives=rules.lives,
            final_tie=t(
                lang,
                "rules_tie_sudden"
                if rules.final_tie is FinalTie.SUDDEN_DEATH
                else "rules_tie_shared",
            ),
            timeout=int(timeout),
            fast=t(lang, "rules_fast") if rules.fast_turns else "",
            house=", ".join(house) + "." if house else t(lang, "rules_house_default"),
        )

    def settings(self, lang: str, chat: Chat, default_timeout: float) -> Rendered:
        t = self.tr.t
        r = chat.rules

        def onoff(value: bool) -> str:
            return t(lang, "value_on" if value else "value_off")

        tie = t(
            lang, "value_sudden_death" if r.final_tie is FinalTie.SUDDEN_DEATH else "value_shared"
        )
        timeout = int(chat.turn_timeout or default_timeout)
        next_timeout = {30: 60, 60: 90, 90: 120, 120: 300}.get(timeout, 30)
        rows = [
            [(t(lang, "setting_lives", value=r.lives), f"lives={5 if r.lives == 3 else 3}")],
            [
                (
                    t(lang, "setting_max_players", value=r.max_players),
                    f"max_players={20 if r.max_players == 10 else 10}",
                )
            ],
            [
                (
                    t(lang, "setting_kings_block", value=onoff(r.kings_block)),
                    f"kings_block={int(not r.kings_block)}",
                )
            ],
            [
                (
                    t(lang, "setting_final_tie", value=tie),
                    "final_tie="
                    + ("shared" if r.final_tie is FinalTie.SUDDEN_DEATH else "sudden_death"),
                )
            ],
            [
                (
                    t(lang, "setting_double_cut", value=onoff(r.double_cut)),
                    f"double_cut={int(not r.double_cut)}",
                )
            ],
            [
                (
                    t(lang, "setting_fast_turns", value=onoff(r.fast_turns)),
                    f"fast_turns={int(not r.fast_turns)}",
                )
            ],
            [(t(lang, "setting_turn_timeout", value=timeout), f"turn_timeout={next_timeout}")],
        ]
        rows_of_keys = [
            [(label, keydata.KeyData(keydata.SETTING, arg=arg).encode()) for label, arg in row]
            for row in rows
        ]
        rows_of_keys.append(self._language_row())
        text = t(lang, "settings_title") + "\n\n" + t(lang, "settings_help")
        return Rendered(text, keys(rows_of_keys))

    def _language_row(self) -> list[tuple[str, str]]:
        return [
            (label, keydata.KeyData(keydata.LANGUAGE, arg=code).encode())
            for code, label in LANGUAGE_NAMES.items()
        ]

    def languages(self, lang: str) -> Rendered:
        return Rendered(self.tr.t(lang, "language_prompt"), keys([self._language_row()]))

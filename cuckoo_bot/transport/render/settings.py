"""A group's house rules: the rules as text, the settings keys that change them, and the
language keys."""

from __future__ import annotations

from cuckoo_bot.app.model import LANGUAGE_NAMES, Chat
from cuckoo_bot.app.settings import SETTINGS, encode
from cuckoo_bot.domain.rules import FinalTie, GameName, HouseRules
from cuckoo_bot.transport import keydata
from cuckoo_bot.transport.render.common import Part, Rendered, keys


class SettingsPart(Part):
    def rules(self, lang: str, rules: HouseRules, timeout: float) -> str:
        """/rules: the game as played here, its last line the rules in force."""
        t = self.tr.t
        block = "block" if rules.kings_block else "free"
        return t(
            lang,
            "rules_kille_text" if rules.kille else "rules",  # the Kille deck's own powers
            game_name=self.game_name(lang, rules),
            min_players=rules.min_players,
            max_players=rules.max_players,
            lives=rules.lives,
            deal=t(lang, "rules_deal_stays" if rules.dealer_stays else "rules_deal_passes"),
            swap=t(lang, f"rules_swap_{block}"),
            queens=t(lang, "rules_queens_pass" if rules.queens_block else "rules_queens_none"),
            stakes=t(lang, "rules_stakes_told") if rules.stakes else "",
            cut=t(lang, f"rules_cut_{block}"),
            final_tie=t(
                lang,
                "rules_tie_sudden"
                if rules.final_tie is FinalTie.SUDDEN_DEATH
                else "rules_tie_shared",
            ),
            timeout=int(timeout),
            fast=t(lang, "rules_fast") if rules.fast_turns else "",
            line=self.rules_line(lang, rules, timeout),
        )

    def help_group(self, lang: str, rules: HouseRules) -> str:
        """/help in a group: the game by the name the group gives it, its gist by its rules."""
        t = self.tr.t
        gist = (
            "help_gist_kille"
            if rules.kille
            else "help_gist"
            if rules.kings_block
            else "help_gist_free"
        )
        return t(lang, "help_group", game_name=self.game_name(lang, rules), gist=t(lang, gist))

    def settings(self, lang: str, chat: Chat, default_timeout: float) -> Rendered:
        """One key per setting (``app.settings``): what it is now; a tap sets the next."""
        rows = []
        for setting in SETTINGS:
            value = setting.get(chat, default_timeout)
            label = self.tr.t(lang, setting.label, value=self._value(lang, value))
            arg = f"{setting.name}={encode(setting.following(value))}"
            rows.append([(label, keydata.KeyData(keydata.SETTING, arg=arg).encode())])
        rows.append(self._language_row())
        text = self.tr.t(lang, "settings_title") + "\n\n" + self.tr.t(lang, "settings_help")
        return Rendered(text, keys(rows))

    def _value(self, lang: str, value: object) -> str:
        if isinstance(value, bool):
            return self.tr.t(lang, "value_on" if value else "value_off")
        if isinstance(value, FinalTie | GameName):
            return self.tr.t(lang, f"value_{value.value}")
        return str(value)

    def _language_row(self) -> list[tuple[str, str]]:
        return [
            (label, keydata.KeyData(keydata.LANGUAGE, arg=code).encode())
            for code, label in LANGUAGE_NAMES.items()
        ]

    def languages(self, lang: str) -> Rendered:
        return Rendered(self.tr.t(lang, "language_prompt"), keys([self._language_row()]))

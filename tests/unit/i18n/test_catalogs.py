"""The Spanish and French catalogs: complete, current, well-formed for Telegram, and loaded."""

from __future__ import annotations

import html
import re
import tomllib
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog, Message
from babel.messages.pofile import read_po, write_po

from cuckoo_bot.app.model import SUPPORTED_LANGUAGES
from cuckoo_bot.i18n import sync as sync_module
from cuckoo_bot.i18n import translator
from cuckoo_bot.i18n.messages import MESSAGES, SOURCE_LANGUAGE
from cuckoo_bot.i18n.translator import Translator, catalog_path, load_catalog, placeholders
from fakebotapi.api_messages import MAX_ANSWER_LENGTH
from fakebotapi.errors import ApiError
from fakebotapi.html import parse_html

ALL = SUPPORTED_LANGUAGES
TRANSLATED = tuple(language for language in ALL if language != SOURCE_LANGUAGE)
BUTTON_LIMIT = 30
COMMAND_DESCRIPTION_LIMIT = 256  # BotCommand.description
NBSP = "\u00a0"

NAME = html.escape("<b>&Ana")  # user text arrives escaped; it must not break the markup
SAMPLE: dict[str, object] = {
    "name": NAME,
    "names": f"{NAME}, {html.escape('Bob & <i>')}",
    "creator": NAME,
    "dealer": NAME,
    "target": html.escape("Zoë <3"),
    "other": NAME,
    "player": NAME,
    "n": 7,
    "sign": "+",
    "seats": 6,
    "acts": f"✋ {NAME} · 🔄 {NAME} ⇄ {NAME}",
    "mention": f'<a href="tg://user?id=42">{NAME}</a>',
    "chat": html.escape("Friday <cards> & co"),
    "link": "https://t.me/cuckoo_bot?start=hello",
    "card": "10♥",
    "gave": "3♣",
    "king": "K♠",
    "queen": "Q♥",
    "via": html.escape("Bea & co"),
    "chips": "13 chips",
    "each": "6 chips",
    "game_name": "Chase the Ace",
    "cards": f"{NAME} K♠, {NAME} 2♥",
    "round": 3,
    "lives": "❤️❤️🖤",
    "min_players": 3,
    "max_players": 10,
    "min": 3,
    "max": 10,
    "count": 4,
    "have": 2,
    "minutes": 10,
    "seconds": 90,
    "time": '<tg-time unix="1764626670" format="T">21:04:30 UTC</tg-time>',
    "clock": '90 s, until <tg-time unix="1764626670" format="T">21:04:30 UTC</tg-time>',
    "losses": f"{NAME} 2♣ 💔, {NAME} 3♠ 💀",
    "position": 2,
    "players": 5,
    "timeout": 90,
    "detail": html.escape("lives must be one of (3, 5), not <7>"),
    "where": html.escape("Friday <cards> & co"),
    "season": "2025-06",
    "label": "All time",
    "games": 12,
    "wins": 5,
    "shared": 1,
    "rating": 27.4,
    "game": 12,
    "date": "2025-06-14",
    "winner": NAME,
    "rounds": 7,
    "points": "+3",
    "place": 1,
    "others": "2 others",
    "when": 'at <tg-time unix="1764626670" format="T">21:04:30 UTC</tg-time>',
    "until": ' (until <tg-time unix="1764626670" format="T">21:04:30 UTC</tg-time>)',
}


def sample(language: str) -> dict[str, object]:
    """Sample values for every placeholder; fragments come from the same language."""
    text = load_catalog(language)
    values = dict(SAMPLE)
    values["final_tie"] = text.get("rules_tie_sudden", MESSAGES["rules_tie_sudden"])
    values["fast"] = text.get("rules_fast", MESSAGES["rules_fast"])
    items = " · ".join(
        text.get(key, MESSAGES[key]).format(lives=5, max_players=12, seconds=90)
        for key in (
            "rules_no_block",
            "rules_double_cut",
            "rules_dealer_stays",
            "rules_queens_block",
            "rules_stakes",
            "rules_kille",
            "rules_lives",
            "rules_max_players",
            "rules_clock_fast",
        )
    )
    values["items"] = items
    values["line"] = text.get("rules_line_house", MESSAGES["rules_line_house"]).format(items=items)
    values["deal"] = text.get("rules_deal_stays", MESSAGES["rules_deal_stays"])
    values["call"] = text.get("call_chase_the_ace", MESSAGES["call_chase_the_ace"])
    values["swap"] = text.get("rules_swap_block", MESSAGES["rules_swap_block"])
    values["queens"] = text.get("rules_queens_pass", MESSAGES["rules_queens_pass"])
    values["stakes"] = text.get("rules_stakes_told", MESSAGES["rules_stakes_told"])
    values["cut"] = text.get("rules_cut_free", MESSAGES["rules_cut_free"])
    values["gist"] = text.get("help_gist_kille", MESSAGES["help_gist_kille"])
    values["value"] = text.get("value_on", MESSAGES["value_on"])
    values["label"] = text.get("league_all_time", MESSAGES["league_all_time"])
    return values


def read_catalog(language: str) -> Catalog:
    with catalog_path(language).open("rb") as handle:
        catalog: Catalog = read_po(handle, locale=language)
    return catalog


def entries(language: str) -> dict[str, Message]:
    return {m.context: m for m in read_catalog(language) if m.id and m.context}


def texts(language: str) -> dict[str, str]:
    """key -> template as the catalog has it (English for "en")."""
    if language == "en":
        return dict(MESSAGES)
    return {key: str(m.string) for key, m in entries(language).items()}


def tags(text: str) -> list[str]:
    return sorted(re.findall(r"</?[a-zA-Z][^>]*>", text))


@pytest.fixture
def fresh_catalogs() -> Iterator[None]:
    """Forget cached catalogs before and after, so a test can load its own files."""
    load_catalog.cache_clear()
    yield
    load_catalog.cache_clear()


# -- completeness -------------------------------------------------------------------------------


@pytest.mark.parametrize("language", TRANSLATED)
def test_every_key_has_a_current_translation(language: str) -> None:
    found = entries(language)
    problems = []
    for key, english in MESSAGES.items():
        message = found.get(key)
        if message is None:
            problems.append(f"{key}: missing")
        elif message.id != english:
            problems.append(f"{key}: msgid is stale (rerun python -m cuckoo_bot.i18n.sync)")
        elif message.fuzzy:
            problems.append(f"{key}: fuzzy")
        elif not str(message.string).strip():
            problems.append(f"{key}: empty")
    problems += [f"{key}: not in the registry" for key in found.keys() - MESSAGES.keys()]
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("language", TRANSLATED)
def test_placeholders_are_the_same_as_in_english(language: str) -> None:
    wrong = {
        key: (sorted(placeholders(text)), sorted(placeholders(MESSAGES[key])))
        for key, text in texts(language).items()
        if placeholders(text) != placeholders(MESSAGES[key])
    }
    assert not wrong, wrong


@pytest.mark.parametrize("language", TRANSLATED)
def test_html_tags_and_commands_are_the_same_as_in_english(language: str) -> None:
    wrong: dict[str, object] = {}
    for key, text in texts(language).items():
        english = MESSAGES[key]
        if tags(text) != tags(english):
            wrong[key] = (tags(text), tags(english))
        commands = sorted(re.findall(r"(?<![\w<])/[a-z]+", text))
        if commands != sorted(re.findall(r"(?<![\w<])/[a-z]+", english)):
            wrong[key] = commands
    assert not wrong, wrong


# -- well-formed for Telegram -----------------------------------------------------------------


@pytest.mark.parametrize("language", ALL)
def test_every_text_formats_and_parses_as_telegram_html(language: str) -> None:
    values = sample(language)
    errors = {}
    for key, template in texts(language).items():
        text = template.format_map(values)
        try:
            plain, _ = parse_html(text, lambda _: None)
        except ApiError as error:
            errors[key] = error.description
            continue
        if not plain.strip():
            errors[key] = "empty after parsing"
        elif "<b>&Ana" not in plain and "{name}" in template:
            errors[key] = "the escaped name is not shown literally"
    assert not errors, errors


@pytest.mark.parametrize("language", ALL)
def test_button_labels_are_short_and_keep_their_emoji(language: str) -> None:
    buttons = {key: text for key, text in texts(language).items() if key.startswith("btn_")}
    assert buttons
    for key, label in buttons.items():
        assert 0 < len(label) <= BUTTON_LIMIT, (key, label)
        assert "<" not in label and "&" not in label, (key, label)  # buttons are plain text
        emoji = re.match(r"[^\w]*", MESSAGES[key])
        assert emoji is not None and label.startswith(emoji.group()), (key, label)


@pytest.mark.parametrize("language", ALL)
def test_popup_answers_fit_in_a_callback_answer(language: str) -> None:
    values = sample(language)
    for key, template in texts(language).items():
        if key.startswith("reply_"):
            text = template.format_map(values)
            assert len(text) <= MAX_ANSWER_LENGTH, (key, len(text))


@pytest.mark.parametrize("language", ALL)
def test_command_descriptions_are_plain_and_short(language: str) -> None:
    commands = {key: text for key, text in texts(language).items() if key.startswith("cmd_")}
    for key, text in commands.items():
        assert 0 < len(text) <= COMMAND_DESCRIPTION_LIMIT, key
        assert not re.search(r"[<>&{}]", text), (key, text)


@pytest.mark.parametrize("language", TRANSLATED)
def test_the_lobby_hint_names_the_join_button(language: str) -> None:
    text = texts(language)
    named = re.search(r"<b>(.*?)</b>", text["lobby_hint"])
    assert named is not None
    assert named.group(1) == text["btn_join"]


@pytest.mark.parametrize("language", TRANSLATED)
def test_the_league_header_keeps_the_column_layout(language: str) -> None:
    english = MESSAGES["league_header"]
    header = texts(language)["league_header"]
    assert len(header) == len(english)
    starts = [m.start() for m in re.finditer(r"\S+", english)]
    assert [m.start() for m in re.finditer(r"\S+", header)] == starts


def test_french_puts_a_no_break_space_before_double_punctuation() -> None:
    wrong = {}
    for key, text in texts("fr").items():
        bad = re.findall(r".[:;!?»]", re.sub(r"<[^>]*>|\{\w+\}", "", text))
        bad += re.findall(r"«.", text)
        bad = [pair for pair in bad if NBSP not in pair]
        if bad:
            wrong[key] = bad
    assert not wrong, wrong


def test_spanish_questions_and_exclamations_are_opened() -> None:
    for key, text in texts("es").items():
        assert text.count("¿") == text.count("?"), key
        assert text.count("¡") == text.count("!"), key


# -- the translator ------------------------------------------------------------------------------


@pytest.mark.parametrize("language", TRANSLATED)
def test_translator_returns_the_catalog_text(language: str) -> None:
    values = sample(language)
    t = Translator()
    for key, template in texts(language).items():
        assert t.t(language, key, **values) == template.format_map(values), key
    assert t.t(language, "btn_join") != MESSAGES["btn_join"]


def test_spanish_example() -> None:
    assert Translator().t("es", "reveal_lost", name=NAME) == f"💔 {NAME} pierde una vida."


@pytest.mark.parametrize("language", ["de", "pt-BR", "", None])
def test_an_unknown_language_falls_back_to_english(language: str | None) -> None:
    t = Translator()
    values = sample("en")
    for key, english in MESSAGES.items():
        assert t.t(language, key, **values) == english.format_map(values), key


def _write_catalog(root: Path, language: str, items: Mapping[str, tuple[str, str, bool]]) -> None:
    """items: key -> (msgid, msgstr, fuzzy)."""
    catalog = Catalog(locale=language, domain=translator.DOMAIN, fuzzy=False)
    for key, (msgid, msgstr, fuzzy) in items.items():
        catalog.add(msgid, msgstr, context=key, flags=["fuzzy"] if fuzzy else [])
    path = root / language / "LC_MESSAGES" / f"{translator.DOMAIN}.po"
    path.parent.mkdir(parents=True)
    with path.open("wb") as handle:
        write_po(handle, catalog)


def test_stale_and_fuzzy_entries_are_ignored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fresh_catalogs: None
) -> None:
    _write_catalog(
        tmp_path,
        "es",
        {
            "reply_welcome": (MESSAGES["reply_welcome"], "¡Hola, hola!", False),
            "reply_started": ("Let's go!", "¡Vamos!", False),  # English has changed since
            "reply_cancelled": (MESSAGES["reply_cancelled"], "Cancelada.", True),
            "no_such_key": ("Gone", "Ya no existe", False),
        },
    )
    _write_catalog(tmp_path, "fr", {})
    monkeypatch.setattr(translator, "LOCALES", tmp_path)
    assert load_catalog("es") == {"reply_welcome": "¡Hola, hola!"}
    t = Translator()
    assert t.t("es", "reply_welcome") == "¡Hola, hola!"
    assert t.t("es", "reply_started") == MESSAGES["reply_started"]
    assert t.t("es", "reply_cancelled") == MESSAGES["reply_cancelled"]
    assert t.t("fr", "reply_welcome") == MESSAGES["reply_welcome"]


# -- the sync script ------------------------------------------------------------------------------


def _catalog_file(root: Path, language: str) -> dict[str, Message]:
    with sync_module.po_path(root, language).open("rb") as handle:
        return {m.context: m for m in read_po(handle, locale=language) if m.id and m.context}


def _entry_text(root: Path, language: str, key: str) -> str:
    """The lines of one entry in the .po file, from its comments to its msgstr."""
    text = sync_module.po_path(root, language).read_text(encoding="utf-8")
    block = next(b for b in text.split("\n\n") if f'msgctxt "{key}"' in b)
    return block


def test_sync_keeps_flags_fuzzy_adds_and_drops(tmp_path: Path) -> None:
    old = "Old text,\non two lines"
    first = {"kept": "Keep {name}", "changed": old, "removed": "Bye"}
    reports = sync_module.sync(tmp_path, first, ["es"])
    assert all(report.changed for report in reports)
    assert sync_module.pot_path(tmp_path).exists()
    assert reports[-1].untranslated == 3

    # a translator fills in the catalog and leaves a comment
    path = sync_module.po_path(tmp_path, "es")
    with path.open("rb") as handle:
        catalog = read_po(handle, locale="es")
    for message in catalog:
        if message.context:
            message.string = f"ES {message.context}"
            message.user_comments = ["checked by Ana"]
    with path.open("wb") as handle:
        write_po(handle, catalog)

    second = {"kept": "Keep {name}", "changed": "New text", "added": "Hello"}
    report = sync_module.sync(tmp_path, second, ["es"])[-1]
    found = _catalog_file(tmp_path, "es")
    assert list(found) == ["kept", "changed", "added"]
    assert found["kept"].string == "ES kept" and not found["kept"].fuzzy
    assert found["changed"].id == "New text" and found["changed"].fuzzy
    assert found["changed"].string == "ES changed"
    assert found["added"].string == "" and not found["added"].fuzzy
    assert (report.translated, report.fuzzy, report.untranslated) == (1, 1, 1)
    entry = _entry_text(tmp_path, "es", "changed")
    assert "#| msgid" in entry and "on two lines" in entry  # the old English, as a hint
    assert entry.count("checked by Ana") == 1
    assert "# |" not in entry

    # a rerun with nothing new leaves every file as it is
    before = {p: p.read_bytes() for p in tmp_path.rglob("*.po*")}
    assert not any(r.changed for r in sync_module.sync(tmp_path, second, ["es"]))
    assert {p: p.read_bytes() for p in tmp_path.rglob("*.po*")} == before

    # the English changes again before anyone checked: the hint still shows the first English
    sync_module.sync(tmp_path, {**second, "changed": "Newer text"}, ["es"])
    again = _catalog_file(tmp_path, "es")["changed"]
    assert again.fuzzy and again.string == "ES changed" and again.id == "Newer text"
    entry = _entry_text(tmp_path, "es", "changed")
    assert "on two lines" in entry and "New text" not in entry
    assert entry.count("checked by Ana") == 1
    changed = _catalog_file(tmp_path, "es")["changed"]
    assert sync_module.previous_and_comments(changed) == ([old], ["checked by Ana"])

    # once checked (flag removed), the hint goes away on the next sync
    with path.open("rb") as handle:
        catalog = read_po(handle, locale="es")
    checked = catalog.get("Newer text", context="changed")
    assert checked is not None
    checked.flags.discard("fuzzy")
    with path.open("wb") as handle:
        write_po(handle, catalog)
    sync_module.sync(tmp_path, {**second, "changed": "Newer text"}, ["es"])
    assert "#|" not in _entry_text(tmp_path, "es", "changed")
    assert _catalog_file(tmp_path, "es")["changed"].string == "ES changed"


def test_sync_hint_keeps_the_exact_old_english(tmp_path: Path) -> None:
    """The ``#|`` lines are wrapped comments; reading them back gives the old text exactly."""
    sync_module.sync(tmp_path, MESSAGES, ["fr"])
    path = sync_module.po_path(tmp_path, "fr")
    with path.open("rb") as handle:
        catalog = read_po(handle, locale="fr")
    for message in catalog:
        message.string = "x" if message.context else message.string
    with path.open("wb") as handle:
        write_po(handle, catalog)
    sync_module.sync(tmp_path, {key: f"{text} (new)" for key, text in MESSAGES.items()}, ["fr"])
    found = _catalog_file(tmp_path, "fr")
    for key, english in MESSAGES.items():
        assert found[key].fuzzy, key
        assert sync_module.previous_and_comments(found[key]) == ([english], []), key


def test_sync_check_writes_nothing_and_fails_when_out_of_date(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert sync_module.main(["--check", "--locales", str(tmp_path)]) == 1
    assert not any(tmp_path.iterdir())
    assert "out of date" in capsys.readouterr().out


def test_every_answer_a_use_case_or_the_rules_can_give_has_words() -> None:
    from cuckoo_bot.app.results import ReplyCode
    from cuckoo_bot.domain import errors

    codes = {code.value for code in ReplyCode}
    # Every answer has words, and every answer's words belong to an answer the bot can give.
    assert not sorted(code for code in codes if f"reply_{code}" not in MESSAGES)
    worded = {
        key.removeprefix("reply_").split(".")[0] for key in MESSAGES if key.startswith("reply_")
    }
    assert worded == codes
    # The rules' refusals are answers too (a broken deck or table never answers a press).
    refusals = {
        cls.code
        for cls in vars(errors).values()
        if isinstance(cls, type)
        and issubclass(cls, errors.RuleError)
        and cls is not errors.RuleError
    } - {"invalid_deck", "invalid_table", "invalid_settings"}
    assert refusals <= codes, refusals - codes


@pytest.mark.parametrize(
    ("language", "n", "shown"),
    [
        ("en", 0, "0 games"),
        ("en", 1, "1 game"),
        ("en", 2, "2 games"),
        ("es", 0, "0 partidas"),
        ("es", 1, "1 partida"),
        ("es", 21, "21 partidas"),
        ("fr", 0, "0 partie"),  # French counts 0 and 1 alike
        ("fr", 1, "1 partie"),
        ("fr", 2, "2 parties"),
    ],
)
def test_counts_take_the_plural_form_of_their_language(language: str, n: int, shown: str) -> None:
    assert Translator().count(language, "count_games", n) == shown


def test_every_count_has_its_other_form_in_every_language() -> None:
    counts = {key.rsplit(".", 1)[0] for key in MESSAGES if key.startswith("count_")}
    for language in ALL:
        table = texts(language)
        for key in counts:
            assert f"{key}.other" in table, (language, key)


def test_the_catalogs_are_the_languages_listed_once() -> None:
    """``model.LANGUAGE_NAMES`` is the one list; a catalog folder (which the wheel ships by its
    glob) exists for each translated language, and for no other."""
    folders = {p.name for p in translator.LOCALES.iterdir() if (p / "LC_MESSAGES").is_dir()}
    assert folders == set(TRANSLATED)
    assert SOURCE_LANGUAGE in ALL
    # setuptools wants a data folder named among the packages (else each build warns that it
    # "would be ignored"): pyproject.toml's list follows the languages too.
    config = tomllib.loads((Path(__file__).parents[3] / "pyproject.toml").read_text())
    prefix = "cuckoo_bot.i18n.locales."
    packaged = {
        name.removeprefix(prefix).split(".")[0]
        for name in config["tool"]["setuptools"]["packages"]
        if name.startswith(prefix)
    }
    assert packaged == set(TRANSLATED)

"""Look messages up by key and language; catalogs are gettext .po files read with Babel."""

from __future__ import annotations

import logging
import string
from functools import cache
from pathlib import Path
from typing import Any

from babel import Locale
from babel.messages.pofile import read_po

from cuckoo_bot.app.model import DEFAULT_LANGUAGE, SUPPORTED_LANGUAGES
from cuckoo_bot.i18n.messages import MESSAGES, SOURCE_LANGUAGE

LOCALES = Path(__file__).parent / "locales"
DOMAIN = "cuckoo"
LANGUAGES = SUPPORTED_LANGUAGES
log = logging.getLogger(__name__)


def catalog_path(language: str) -> Path:
    return LOCALES / language / "LC_MESSAGES" / f"{DOMAIN}.po"


@cache
def load_catalog(language: str) -> dict[str, str]:
    """key -> translated text, from the language's .po file (msgctxt is the key)."""
    if language == SOURCE_LANGUAGE:
        return dict(MESSAGES)
    path = catalog_path(language)
    with path.open("rb") as handle:
        catalog = read_po(handle, locale=language)
    table: dict[str, str] = {}
    for message in catalog:
        # A fuzzy or stale entry (the English changed since it was translated) is not used.
        fresh = message.context and MESSAGES.get(message.context) == message.id
        if fresh and message.string and not message.fuzzy:
            table[str(message.context)] = str(message.string)
    return table


@cache
def _locale(language: str) -> Locale:
    return Locale.parse(language)


def plural_form(language: str, n: int) -> str:
    """The CLDR plural category of ``n`` in ``language`` (one, few, many, other ...), by
    Babel's plural rules: French says "1 partie" and "0 partie", English "0 games"."""
    return str(_locale(language).plural_form(abs(n)))


def placeholders(text: str) -> set[str]:
    return {field for _, field, _, _ in string.Formatter().parse(text) if field}


class Translator:
    """``t(lang, key, **params)``; a missing translation falls back to English."""

    def __init__(self, default: str = DEFAULT_LANGUAGE) -> None:
        self.default = default
        for language in LANGUAGES:
            load_catalog(language)  # read every catalog at start-up, not on a hot path

    def t(self, language: str | None, key: str, /, **params: Any) -> str:
        text = self.template(language, key)
        return text.format_map(params) if params or "{" in text else text

    def template(self, language: str | None, key: str) -> str:
        """The message as written, its ``{fields}`` unfilled (the live table's page fills
        them itself)."""
        lang = language if language in LANGUAGES else self.default
        text = load_catalog(lang).get(key)
        if text is None:
            text = MESSAGES[key]
            if lang != SOURCE_LANGUAGE:
                log.warning("no %s translation for %s", lang, key)
        return text

    def count(self, language: str | None, key: str, n: int, /, **params: Any) -> str:
        """``n`` with its words in the plural form the language wants: the message
        ``key.<form>`` (``key.one``, ``key.other``, and ``key.few`` or ``key.many`` where a
        language has them), else ``key.other``."""
        lang = language if language in LANGUAGES else self.default
        form = f"{key}.{plural_form(lang, n)}"
        return self.t(lang, form if form in MESSAGES else f"{key}.other", n=n, **params)

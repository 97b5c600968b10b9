"""Bring the gettext catalogs in line with the English registry in ``messages.py``.

Run ``python -m cuckoo_bot.i18n.sync`` after changing any English text. For every language it
rewrites ``locales/<lang>/LC_MESSAGES/cuckoo.po`` (and the template ``locales/cuckoo.pot``):

* an entry whose msgid still equals the English text keeps its translation (and its flags);
* an entry whose English text changed is marked ``fuzzy``; the old translation stays as a hint
  and the old English is kept as ``#| msgid`` so a translator can see what changed. The
  translator ignores fuzzy entries until someone checks them and removes the flag;
* a new key gets an empty msgstr; a key removed from the registry is dropped.

Entries are matched by msgctxt (the key), never by similar text. Files whose content did not
change are left untouched, so reruns are no-ops. ``--check`` writes nothing and exits with 1 if a
file is out of date or a translation is missing or fuzzy (for CI).
"""

from __future__ import annotations

import argparse
import datetime as dt
import io
import re
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from babel.messages.catalog import Catalog, Message
from babel.messages.pofile import read_po, unescape, write_po

from cuckoo_bot.app.model import LANGUAGE_NAMES
from cuckoo_bot.i18n.messages import MESSAGES, SOURCE_LANGUAGE
from cuckoo_bot.i18n.translator import DOMAIN, LANGUAGES, LOCALES, placeholders

TRANSLATED = tuple(language for language in LANGUAGES if language != SOURCE_LANGUAGE)
PROJECT = "Cuckoo"
BUTTON_LIMIT = 30  # characters; inline keyboard labels must stay short
WIDTH = 76
_QUOTED = re.compile(r'"((?:[^"\\]|\\.)*)"')

_HEADER = """\
# {what} for Cuckoo, the Telegram party card game.
# Generated from cuckoo_bot/i18n/messages.py by
# python -m cuckoo_bot.i18n.sync (rerun it whenever the English changes).
# Edit only the msgstr lines; a "fuzzy" entry is not used until checked.
#"""


@dataclass(frozen=True)
class Report:
    """What a sync found or did for one file."""

    path: Path
    changed: bool
    translated: int = 0
    fuzzy: int = 0
    untranslated: int = 0

    @property
    def complete(self) -> bool:
        return self.fuzzy == 0 and self.untranslated == 0


def po_path(locales: Path, language: str) -> Path:
    return locales / language / "LC_MESSAGES" / f"{DOMAIN}.po"


def pot_path(locales: Path) -> Path:
    return locales / f"{DOMAIN}.pot"


def _auto_comments(key: str, text: str) -> list[str]:
    comments: list[str] = []
    fields = sorted(placeholders(text))
    if fields:
        comments.append("placeholders: " + ", ".join("{" + f + "}" for f in fields))
    if key.startswith("btn_"):
        comments.append(f"button label: at most {BUTTON_LIMIT} characters, keep the emoji")
    return comments


def _new_catalog(locale: str | None, what: str) -> Catalog:
    return Catalog(
        locale=locale,
        domain=DOMAIN,
        header_comment=_HEADER.format(what=what),
        project=PROJECT,
        version="1",
        copyright_holder="the Cuckoo authors",
        msgid_bugs_address="the Cuckoo project's issue tracker",
        last_translator="Cuckoo translators",
        language_team=LANGUAGE_NAMES.get(locale or "", "Cuckoo translators"),
        charset="utf-8",
        fuzzy=False,
    )


def build_template(messages: Mapping[str, str]) -> Catalog:
    """The .pot: every key (as msgctxt) with its English text, in registry order."""
    template = _new_catalog(None, "Message template")
    for key, text in messages.items():
        template.add(text, context=key, auto_comments=_auto_comments(key, text))
    return template


def _as_text(value: object) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, Sequence) and value:
        return str(value[0])
    return ""


def previous_and_comments(message: Message) -> tuple[list[str], list[str]]:
    """The ``#| msgid`` hint and the translator's own comments of a message read from a file.

    Babel writes ``previous_id`` as wrapped ``#| msgid "..." "..."`` comment lines but reads
    them back as translator comments starting with ``|``. Split them off again (so they are not
    copied as comments on every run) and decode the quoted chunks back into the old msgid.
    """
    hint = " ".join(c[1:].strip() for c in message.user_comments if c.startswith("|"))
    comments = [c for c in message.user_comments if not c.startswith("|")]
    if message.previous_id:
        return [_as_text(message.previous_id)], comments
    if not hint.startswith("msgid "):
        return [], comments
    singular = hint.removeprefix("msgid ").split(" msgid_plural ")[0]
    old = "".join(unescape(f'"{chunk}"') for chunk in _QUOTED.findall(singular))
    return ([old] if old else []), comments


def merge(template: Catalog, old: Catalog | None, language: str) -> Catalog:
    """A catalog for ``language`` with the template's entries and ``old``'s translations."""
    what = f"{language} translations"
    catalog = _new_catalog(language, what)
    previous: dict[str, Message] = {}
    if old is not None:
        catalog.last_translator = old.last_translator or catalog.last_translator
        catalog.language_team = old.language_team or catalog.language_team
        previous = {m.context: m for m in old if m.id and m.context}
    for entry in template:
        if not entry.id or not entry.context:
            continue
        key, text = entry.context, _as_text(entry.id)
        before = previous.get(key)
        string = _as_text(before.string) if before is not None else ""
        flags: set[str] = set()
        previous_id: list[str] = []
        comments: list[str] = []
        if before is not None:
            old_hint, comments = previous_and_comments(before)
            if string and before.id == text:
                if before.fuzzy:
                    flags.add("fuzzy")
                    previous_id = old_hint
            elif string:
                # The English changed: keep the old translation as a hint, but not in use.
                # If it was already fuzzy, the translation still belongs to the older English.
                flags.add("fuzzy")
                previous_id = old_hint if before.fuzzy and old_hint else [_as_text(before.id)]
        catalog.add(
            text,
            string,
            flags=flags,
            auto_comments=entry.auto_comments,
            user_comments=comments,
            previous_id=previous_id,
            context=key,
        )
    return catalog


def _render(catalog: Catalog) -> bytes:
    buffer = io.BytesIO()
    write_po(buffer, catalog, width=WIDTH, no_location=True, include_previous=True)
    return buffer.getvalue()


def _read(path: Path, locale: str | None) -> Catalog | None:
    if not path.exists():
        return None
    with path.open("rb") as handle:
        catalog: Catalog = read_po(handle, locale=locale)
    return catalog


def _write(path: Path, catalog: Catalog, now: dt.datetime, dry: bool) -> bool:
    """Write ``catalog`` unless its content is unchanged; True if it changed.

    The caller sets the dates from the previous file, so a rerun with nothing new renders the
    same bytes; only a real change stamps the template's creation date or a catalog's revision
    date with ``now``.
    """
    current = path.read_bytes() if path.exists() else b""
    if _render(catalog) == current:
        return False
    if catalog.locale is None:
        catalog.creation_date = now
    else:
        catalog.revision_date = now
    if not dry:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(_render(catalog))
    return True


def _count(path: Path, catalog: Catalog, changed: bool) -> Report:
    entries = [m for m in catalog if m.id]
    fuzzy = sum(1 for m in entries if m.fuzzy and m.string)
    untranslated = sum(1 for m in entries if not m.string)
    return Report(path, changed, len(entries) - fuzzy - untranslated, fuzzy, untranslated)


def sync(
    locales: Path = LOCALES,
    messages: Mapping[str, str] = MESSAGES,
    languages: Iterable[str] = TRANSLATED,
    *,
    dry_run: bool = False,
    now: dt.datetime | None = None,
) -> list[Report]:
    """Update the template and every language's catalog under ``locales``."""
    stamp = now or dt.datetime.now(dt.UTC).replace(microsecond=0)
    template = build_template(messages)
    template_file = pot_path(locales)
    old_template = _read(template_file, None)
    if old_template is not None:
        template.creation_date = old_template.creation_date
    reports = [Report(template_file, _write(template_file, template, stamp, dry_run))]
    for language in languages:
        path = po_path(locales, language)
        old = _read(path, language)
        catalog = merge(template, old, language)
        catalog.creation_date = template.creation_date
        if old is not None:
            catalog.revision_date = old.revision_date
        changed = _write(path, catalog, stamp, dry_run)
        reports.append(_count(path, catalog, changed))
    return reports


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m cuckoo_bot.i18n.sync",
        description="Update the .pot template and the .po catalogs from the English registry.",
    )
    parser.add_argument(
        "--check",
        action="store_true",
        help="write nothing; exit 1 if a file is out of date or a translation is missing/fuzzy",
    )
    parser.add_argument("--locales", type=Path, default=LOCALES, help="the locales directory")
    args = parser.parse_args(argv)
    reports = sync(args.locales, dry_run=args.check)
    failed = False
    for report in reports:
        state = ("out of date" if args.check else "updated") if report.changed else "up to date"
        line = f"{report.path}: {state}"
        if report.path.suffix == ".po":
            line += (
                f"; {report.translated} translated, {report.fuzzy} fuzzy,"
                f" {report.untranslated} untranslated"
            )
            failed |= args.check and not report.complete
        failed |= args.check and report.changed
        print(line)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

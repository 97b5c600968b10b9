"""A Mini App request is someone only when Telegram signed its initData for this bot, lately."""

from __future__ import annotations

import time
from datetime import timedelta
from urllib.parse import parse_qsl, urlencode

import pytest

from cuckoo_bot.transport.webapp.auth import InitDataCheck, Refused
from tests.support.webapp import sign_init_data

TOKEN = "123456:webapp-test-token"
CHECK = InitDataCheck(TOKEN, max_age=timedelta(hours=1))


def test_a_fresh_signed_init_data_names_its_user_and_the_game_it_opened() -> None:
    viewer = CHECK.viewer(sign_init_data(TOKEN, 42, "Ann", language="fr-CA", start_param="12"))
    assert (viewer.user_id, viewer.first_name, viewer.language) == (42, "Ann", "fr")
    assert viewer.start_param == "12"


def _altered(init_data: str, **changes: str) -> str:
    fields = dict(parse_qsl(init_data))
    fields.update(changes)
    return urlencode(fields)


@pytest.mark.parametrize(
    "init_data",
    [
        None,
        "",
        "nonsense",
        # Another user's id put in after signing.
        _altered(sign_init_data(TOKEN, 42), user='{"id":7,"first_name":"Eve"}'),
        # A game changed after signing.
        _altered(sign_init_data(TOKEN, 42, start_param="12"), start_param="13"),
        # Signed with another bot's token.
        sign_init_data("999:another-bot", 42),
        # No signature at all.
        urlencode({"auth_date": str(int(time.time())), "user": '{"id":42,"first_name":"A"}'}),
        # A hash that is not hexadecimal (the comparison itself would raise).
        f"auth_date={int(time.time())}&hash=%C3%A9",
        # An old date on forged data: refused as forged, never as merely old.
        sign_init_data("999:another-bot", 42, auth_date=time.time() - 7 * 86_400),
        "auth_date=yesterday&hash=00",
    ],
    ids=[
        "missing",
        "empty",
        "garbage",
        "user-swapped",
        "game-swapped",
        "forged",
        "unsigned",
        "non-ascii-hash",
        "forged-and-old",
        "bad-date",
    ],
)
def test_missing_altered_or_forged_init_data_is_refused(init_data: str | None) -> None:
    with pytest.raises(Refused) as refused:
        CHECK.viewer(init_data)
    assert not refused.value.expired


def test_init_data_older_than_the_limit_is_refused_as_expired() -> None:
    old = sign_init_data(TOKEN, 42, auth_date=time.time() - 2 * 3600)
    with pytest.raises(Refused) as refused:
        CHECK.viewer(old)
    assert refused.value.expired
    assert InitDataCheck(TOKEN, max_age=timedelta(hours=3)).viewer(old).user_id == 42

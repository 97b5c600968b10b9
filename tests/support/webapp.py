"""A development signer for a Mini App's ``initData``, as Telegram signs it: the fields sorted
into ``key=value`` lines, an HMAC-SHA256 keyed by the bot token's derived key. Tests (and, in
time, ``cuckoo-bot demo --web``) use it; the bot itself never signs."""

from __future__ import annotations

import hashlib
import hmac
import json
import time
from urllib.parse import urlencode

from telegram_webapp_auth.auth import generate_secret_key


def sign_init_data(
    token: str,
    user_id: int,
    first_name: str = "Ann",
    *,
    language: str = "en",
    auth_date: float | None = None,
    start_param: str | None = None,
) -> str:
    user = {"id": user_id, "first_name": first_name, "language_code": language}
    fields = {
        "auth_date": str(int(time.time() if auth_date is None else auth_date)),
        "query_id": f"AAH{user_id}",
        "user": json.dumps(user, separators=(",", ":")),
    }
    if start_param is not None:
        fields["start_param"] = start_param
    check = "\n".join(f"{key}={value}" for key, value in sorted(fields.items()))
    digest = hmac.new(generate_secret_key(token), check.encode(), hashlib.sha256).hexdigest()
    return urlencode({**fields, "hash": digest})

"""URL checks as Telegram's own code makes them.

Ported from tdlib: `parse_url` from tdutils/td/utils/HttpUrl.cpp, `check_link` and
`link_user_id` from td/telegram/LinkManager.cpp (`check_link_impl`, `get_link_user_id`). The
error wording is tdlib's; callers put it into the Bot API's sentences.
"""

from __future__ import annotations

import ipaddress
import string
from dataclasses import dataclass

_ALNUM = frozenset(string.ascii_letters + string.digits)
_URL_PART = _ALNUM | frozenset(".-_!$,~*'();&+=")
_HEX = frozenset(string.hexdigits)
MAX_USER_ID = (1 << 40) - 1  # td::UserId::is_valid


class UrlError(ValueError):
    """A URL Telegram refuses; the message is tdlib's reason."""


@dataclass(frozen=True)
class HttpUrl:
    protocol: str  # "http" or "https"
    userinfo: str
    host: str  # lower-cased
    is_ipv6: bool
    specified_port: int  # 0 when the URL names none
    port: int
    query: str  # the path and what follows, starting with "/"

    def url(self) -> str:
        """The URL as tdlib writes it back (a bare host gets a "/" path)."""
        userinfo = f"{self.userinfo}@" if self.userinfo else ""
        port = f":{self.specified_port}" if self.specified_port else ""
        return f"{self.protocol}://{userinfo}{self.host}{port}{self.query}"


def _to_int(text: str) -> int | None:
    """td::to_integer_safe<int>: an optional "-" and digits, nothing else."""
    digits = text[1:] if text.startswith("-") else text
    return int(text) if digits.isdigit() and digits.isascii() else None


def _check_part(part: str, name: str, allow_colon: bool) -> None:
    i = 0
    while i < len(part):
        c = part[i]
        if c in _URL_PART or (allow_colon and c == ":") or ord(c) >= 128:
            i += 1
            continue
        if c == "%":
            if part[i + 1 : i + 2] in _HEX and part[i + 2 : i + 3] in _HEX and len(part) > i + 2:
                i += 3
                continue
            raise UrlError(f"Wrong percent-encoded symbol in URL {name}")
        raise UrlError(f"Disallowed character in URL {name}")


def parse_url(url: str, default_protocol: str = "http") -> HttpUrl:
    """`[https?://][userinfo@]host[:port][/path...]`, or UrlError with tdlib's reason."""
    cut = next((i for i, c in enumerate(url) if c in ":/?#@[]"), len(url))
    if url[cut : cut + 3] == "://":
        protocol = url[:cut].lower()
        if protocol not in ("http", "https"):
            raise UrlError("Unsupported URL protocol")
        rest = url[cut + 3 :]
    else:
        protocol, rest = default_protocol, url
    end = next((i for i, c in enumerate(rest) if c in "/?#"), len(rest))
    authority, query = rest[:end], rest[end:]
    colon = len(authority) - 1
    while colon > 0 and authority[colon] not in ":]@":
        colon -= 1
    port = 0
    userinfo_host = authority
    if colon > 0 and authority[colon] == ":":
        given = authority[colon + 1 :]
        while len(given) > 1 and given[0] == "0":
            given = given[1:]
        number = _to_int(given)
        port = number or -1
        userinfo_host = authority[:colon]
    if not 0 <= port <= 65535:
        raise UrlError("Wrong port number specified in the URL")
    userinfo, _, host = userinfo_host.rpartition("@")
    is_ipv6 = host.startswith("[") and host.endswith("]") and len(host) > 1
    if is_ipv6:
        try:
            ipaddress.IPv6Address(host[1:-1])
        except ValueError:
            raise UrlError("Wrong IPv6 address specified in the URL") from None
    if not host:
        raise UrlError("URL host is empty")
    if host == ".":
        raise UrlError("Host is invalid")
    specified = port
    if port == 0:
        port = 80 if protocol == "http" else 443
    query = query.rstrip(" \t\r\n\v\f") or "/"
    path = "".join(f"%{ord(c):02X}" if ord(c) <= 0x20 else c for c in query)
    if not path.startswith("/"):
        path = "/" + path
    host = host.lower()
    if not is_ipv6:
        _check_part(host, "host", False)
        _check_part(userinfo, "userinfo", True)
    return HttpUrl(protocol, userinfo, host, is_ipv6, specified, port, path)


def check_link(link: str, *, http_only: bool = False, https_only: bool = False) -> str:
    """A link Telegram accepts (http(s), or tg:, ton:, tonsite:), as it stores it."""
    lowered = link.lower()
    scheme = next((s for s in ("tg", "ton", "tonsite") if lowered.startswith(s + ":")), "")
    rest = link[len(scheme) + 1 :] if scheme else link
    if scheme and rest.startswith("//"):
        rest = rest[2:]
    url = parse_url(rest)
    if https_only and (url.protocol != "https" or scheme):
        raise UrlError("Only HTTPS links are allowed")
    if scheme:
        if http_only:
            raise UrlError("Only HTTP links are allowed")
        if (
            rest.lower().startswith("http://")
            or url.protocol == "https"
            or url.userinfo
            or url.specified_port
            or url.is_ipv6
        ):
            raise UrlError("Wrong tg URL" if scheme == "tg" else "Wrong ton URL")
        allowed = _ALNUM | {"-", "_"} | ({"."} if scheme == "tonsite" else set())
        if any(c not in allowed for c in url.host):
            raise UrlError("Unallowed characters in URL host")
        query = url.query[1:] if url.query.startswith("/?") else url.query
        return f"{scheme}://{url.host}{query}"
    if "." not in url.host and not url.is_ipv6:
        raise UrlError("Wrong HTTP URL")
    return url.url()


def link_error(link: str, error: UrlError) -> str:
    """LinkManager::check_link's sentence around a reason."""
    return f"URL '{link}' is invalid: {error}"


def link_user_id(url: str) -> int | None:
    """The user a `tg://user?id=N` link names (LinkManager::get_link_user_id), else None."""
    rest = url.lower()
    if not rest.startswith("tg:"):
        return None
    rest = rest[3:].removeprefix("//")
    if not rest.startswith("user") or (len(rest) > 4 and rest[4] not in "/?#"):
        return None
    rest = rest[4:].removeprefix("/")
    if not rest.startswith("?"):
        return None
    for parameter in rest[1:].split("#", 1)[0].split("&"):
        key, _, value = parameter.partition("=")
        if key == "id":
            digits = value[1:] if value.startswith("-") else value
            user_id = int(value) if digits.isdigit() and digits.isascii() else 0
            return user_id if 0 < user_id <= MAX_USER_ID else None
    return None


def origin(url: str) -> str:
    """`scheme://host[:port]` of a URL, lower-cased, for comparing against allowed origins."""
    scheme, _, rest = url.partition("://")
    authority = rest.split("/", 1)[0].split("?", 1)[0].split("#", 1)[0]
    return f"{scheme.lower()}://{authority.lower()}"

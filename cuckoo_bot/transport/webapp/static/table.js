// @ts-check
/* Cuckoo: the live table (Telegram Mini App page).
 *
 * The first half is pure functions (no DOM, no clock, no network), exported on
 * window.CuckooTable so tests can call them; the second half wires them to the page.
 * The server's API: GET /app/api/table, the SSE stream /app/api/events (read with fetch,
 * since EventSource cannot send the Authorization header), POST /app/api/move and
 * /app/api/again. The views they bring are typed in contract.js (generated from
 * cuckoo_bot/transport/webapp/contract.py, the one definition): PageView, TableView, SeatJson.
 *
 * Names are hostile user input: they only ever reach the page through textContent.
 * The only markup built from strings is the cards' SVG, and only from a validated card code.
 */
(function () {
  "use strict";

  /** @typedef {import("./contract.js").PageView} PageView */
  /** @typedef {import("./contract.js").SeatJson} SeatJson */

  // What the page says before any View has brought the game's own texts (the catalogs' English,
  // kept equal to cuckoo_bot/i18n/messages.py's web_ entries by the page's tests).
  const FALLBACK = {
    title: "🃏 Cuckoo",
    loading: "Laying out the table…",
    live: "Live",
    reconnecting: "Reconnecting…",
    polling: "Slow connection: checking every few seconds",
    connection_lost: "Connection lost: trying again…",
    expired: "This table was opened a while ago: open it again from the chat.",
    unauthorized: "Telegram could not confirm who you are: open the table from the chat.",
    not_member: "This game belongs to a group you are not in.",
    no_game: "There is no such game.",
    bad_link: "This link names no game: open the table from the chat.",
    error: "Something went wrong: nothing changed. Try again.",
    player: "Player",
  };

  // The API's error codes -> the text that explains them.
  const ERROR_TEXT = {
    expired: "expired",
    unauthorized: "unauthorized",
    forbidden: "not_member",
    no_game: "no_game",
    bad_request: "bad_link",
  };

  const RING_MAX = 8; // seats drawn around the oval; more sit in rows
  const WARN_SECONDS = 10;
  const RETRY_MS = 1000;
  const POLL_MS = 2000;
  const STREAM_RETRY_SLOW_MS = 30000;
  const STREAM_FAILS_BEFORE_POLLING = 3;
  const TELEGRAM_WAIT_MS = 3000; // for Telegram's script, when the address has no launch data
  const STREAM_SILENCE_MS = 40000; // the server pings every 15 s: silence this long is a dead stream

  // -- launch parameters ------------------------------------------------------------------------

  function digitsOnly(value) {
    return typeof value === "string" && /^\d{1,18}$/.test(value) ? value : null;
  }

  function parseJson(text) {
    if (typeof text !== "string" || !text) return null;
    try {
      const value = JSON.parse(text);
      return value && typeof value === "object" && !Array.isArray(value) ? value : null;
    } catch (_) {
      return null;
    }
  }

  /**
   * Who and which game: initData from Telegram.WebApp (tgInitData) or the hash's tgWebAppData;
   * the game from ?game= or the initData's start_param; the theme from Telegram.WebApp
   * (tgTheme) or the hash's tgWebAppThemeParams.
   */
  function parseLaunch(search, hash, tgInitData, tgTheme) {
    const query = new URLSearchParams((search || "").replace(/^\?/, ""));
    const launch = new URLSearchParams((hash || "").replace(/^#/, ""));
    const initData = tgInitData || launch.get("tgWebAppData") || "";
    const data = new URLSearchParams(initData);
    const startParam = data.get("start_param") || launch.get("tgWebAppStartParam") || null;
    const game = digitsOnly(query.get("game")) || digitsOnly(startParam);
    let user = parseJson(data.get("user"));
    if (user && typeof user.id !== "number") user = null;
    const themed = tgTheme && Object.keys(tgTheme).length ? tgTheme : null;
    const theme = themed || parseJson(launch.get("tgWebAppThemeParams"));
    return {
      initData: initData,
      game: game === null ? null : Number(game),
      startParam: startParam,
      user: user,
      theme: theme,
      platform: launch.get("tgWebAppPlatform"),
    };
  }

  /** The page's base (".../app"), so the API is found under any path prefix. */
  function apiBase(pathname) {
    const match = /^(.*?\/app)(?:\/.*)?$/.exec(pathname || "");
    return match ? match[1] : "/app";
  }

  /** CSS variables for Telegram's themeParams: bg_color -> --tg-theme-bg-color. */
  function themeVars(params) {
    const vars = {};
    if (!params || typeof params !== "object") return vars;
    for (const key of Object.keys(params)) {
      const value = params[key];
      if (!/^[a-z_]{1,40}$/.test(key) || typeof value !== "string") continue;
      if (!/^#[0-9a-fA-F]{3,8}$/.test(value)) continue; // colours only: nothing else gets into CSS
      vars["--tg-theme-" + key.replace(/_/g, "-")] = value;
    }
    return vars;
  }

  /** True for a dark colour ("#rrggbb" or "#rgb"), by its relative luminance. */
  function isDark(hex) {
    if (typeof hex !== "string") return false;
    let h = hex.replace("#", "");
    if (h.length === 3) h = h.replace(/./g, "$&$&");
    if (!/^[0-9a-fA-F]{6}/.test(h)) return false;
    const channel = (i) => {
      const c = parseInt(h.slice(i, i + 2), 16) / 255;
      return c <= 0.03928 ? c / 12.92 : Math.pow((c + 0.055) / 1.055, 2.4);
    };
    const lum = 0.2126 * channel(0) + 0.7152 * channel(2) + 0.0722 * channel(4);
    return lum < 0.2;
  }

  // -- the event stream ---------------------------------------------------------------------------

  /**
   * SSE framing: the complete events in `buffer` and the incomplete rest.
   * Lines are "field: value" (one space after the colon dropped), ":" starts a comment, a blank
   * line ends an event; several data lines are joined with "\n".
   */
  function parseSse(buffer) {
    const events = [];
    const text = buffer.replace(/\r\n?/g, "\n");
    let start = 0;
    for (;;) {
      const end = text.indexOf("\n\n", start);
      if (end < 0) break;
      const block = text.slice(start, end);
      start = end + 2;
      const event = { id: null, event: "message", data: null };
      const data = [];
      for (const line of block.split("\n")) {
        if (!line || line[0] === ":") continue;
        const colon = line.indexOf(":");
        const field = colon < 0 ? line : line.slice(0, colon);
        let value = colon < 0 ? "" : line.slice(colon + 1);
        if (value[0] === " ") value = value.slice(1);
        if (field === "data") data.push(value);
        else if (field === "event") event.event = value;
        else if (field === "id") event.id = value;
      }
      if (data.length) {
        event.data = data.join("\n");
        events.push(event);
      }
    }
    return { events: events, rest: text.slice(start) };
  }

  /** Whether `view` should replace `shown` (null: nothing shown yet). */
  function isNewer(view, shown) {
    if (!view || typeof view.version !== "number") return false;
    return !shown || view.version > shown.version;
  }

  // -- time ----------------------------------------------------------------------------------------

  /** Milliseconds since the epoch of an ISO 8601 time with an offset (any fraction digits). */
  function parseIso(text) {
    if (typeof text !== "string") return NaN;
    const m = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d+))?(Z|[+-]\d\d:?\d\d)?$/.exec(text);
    if (!m) return NaN;
    const ms = m[2] ? Number((m[2] + "00").slice(0, 3)) : 0;
    let zone = m[3] || "Z";
    if (zone !== "Z" && zone.indexOf(":") < 0) zone = zone.slice(0, 3) + ":" + zone.slice(3);
    const base = Date.parse(m[1] + zone);
    return isNaN(base) ? NaN : base + ms;
  }

  /**
   * Milliseconds left of the turn: (deadline - now) of the View, less the time spent here since
   * it arrived (`elapsedMs`, from a monotonic clock). The local wall clock is never read.
   */
  function remainingMs(deadline, now, elapsedMs) {
    const end = parseIso(deadline);
    const then = parseIso(now);
    if (isNaN(end) || isNaN(then)) return null;
    return Math.max(0, end - then - (elapsedMs || 0));
  }

  /** The whole seconds to show for `ms` left (rounded up: "1 s" until the very end). */
  function secondsLeft(ms) {
    return ms === null || ms === undefined ? null : Math.ceil(ms / 1000);
  }

  function isWarning(seconds) {
    return seconds !== null && seconds <= WARN_SECONDS;
  }

  // -- texts ---------------------------------------------------------------------------------------

  /**
   * `template` with its {field}s filled from `values`, in one pass: a value is never read as a
   * template again (a name like "{name}" stays as it is). Unknown fields are left as written.
   */
  function fmt(template, values) {
    if (typeof template !== "string") return "";
    return template.replace(/\{(\w+)\}/g, function (whole, field) {
      return values && Object.prototype.hasOwnProperty.call(values, field)
        ? String(values[field])
        : whole;
    });
  }

  /** A translator over the View's strings, falling back to the page's own English. */
  function texts(strings) {
    const table = Object.assign({}, FALLBACK, strings || {});
    return function t(key, values) {
      const template = Object.prototype.hasOwnProperty.call(table, key) ? table[key] : key;
      return fmt(template, values || {});
    };
  }

  /**
   * A name set inside a sentence, isolated (FSI ... PDI): a right-to-left name, or one holding
   * a direction override, never turns the rest of the sentence around.
   */
  function iso(name) {
    return "\u2068" + String(name) + "\u2069";
  }

  function listNames(names) {
    return names.map(iso).join(", ");
  }

  // -- what the page shows -----------------------------------------------------------------------

  function seatOf(view, player) {
    return (view.seats || []).find((s) => s.player === player) || null;
  }

  function nameOf(view, player, t) {
    const seat = seatOf(view, player);
    return seat && seat.name ? seat.name : t("player");
  }

  /** The next seat still in the game after `player`, in table order (whom a swap goes to). */
  function nextActive(view, player) {
    const seats = view.seats || [];
    const at = seats.findIndex((s) => s.player === player);
    if (at < 0) return null;
    for (let step = 1; step < seats.length; step++) {
      const seat = seats[(at + step) % seats.length];
      if (!seat.out) return seat;
    }
    return null;
  }

  const ACTED = ["keep", "timeout", "swap", "blocked", "cut", "cut_blocked"];

  /**
   * What one seat shows: face "up" (with the card), "down" (a card back) or "none" (no card);
   * a card is face up only when it is the viewer's own or the round is revealed, whatever
   * else a View might hold. Also the seat's line of status and its hearts.
   */
  function seatModel(view, seat, t) {
    const you = view.viewer !== null && view.viewer !== undefined && seat.player === view.viewer;
    const playing = view.status === "running" || view.status === "finished";
    const revealed = !!view.revealed;
    const code = parseCard(seat.card) ? seat.card : null;
    let face = "none";
    if (playing && code && (revealed || you)) face = "up";
    else if (view.status === "running" && !seat.out && !revealed) face = "down";
    const turn = view.status === "running" && view.actor === seat.player && !revealed;
    const lost = revealed && !!seat.lost;
    let status = "";
    let tone = "";
    if (lost) {
      status = seat.out ? t("out") : t("lost");
      tone = "bad";
    } else if (seat.out && view.status !== "lobby") {
      status = t("out");
      tone = "out";
    } else if (turn) {
      status = t("playing");
      tone = "turn";
    } else if (view.status === "running" && ACTED.indexOf(seat.acted) >= 0) {
      const target = seat.target !== null && seat.target !== undefined;
      status = t("acted_" + seat.acted, {
        target: target ? iso(nameOf(view, seat.target, t)) : "",
      });
      tone = seat.acted === "blocked" || seat.acted === "cut_blocked" ? "king" : "done";
    }
    const shown =
      view.status === "running" && !revealed && /^K[CDHS]$/.test(seat.shown || "") ? seat.shown : null;
    const max = Math.max(view.max_lives || 0, seat.lives || 0);
    const lives = Math.max(0, seat.lives || 0);
    const breaking = lost ? 1 : 0;
    return {
      player: seat.player,
      name: seat.name || t("player"),
      you: you,
      dealer: !!seat.dealer && view.status === "running",
      out: !!seat.out && view.status !== "lobby",
      turn: turn,
      face: face,
      card: face === "up" ? code : null,
      status: status,
      tone: tone,
      shown: shown,
      lost: lost,
      hearts: {
        full: lives,
        breaking: breaking,
        empty: Math.max(0, max - lives - breaking),
        show: view.status !== "lobby" && max > 0,
      },
    };
  }

  /** Ring for up to RING_MAX seats, rows beyond. */
  function layoutFor(count) {
    return count <= RING_MAX ? "ring" : "rows";
  }

  /**
   * Where each seat sits on the oval, in % of the table's box: the viewer (or the first seat)
   * at the bottom, the others clockwise after it in table order (the next player on its left).
   */
  function ringPositions(count, bottomIndex) {
    const out = [];
    const first = bottomIndex >= 0 ? bottomIndex : 0;
    for (let i = 0; i < count; i++) {
      const k = (i - first + count) % count;
      const angle = Math.PI / 2 + (k * 2 * Math.PI) / count;
      out.push({
        x: Math.round((50 + 39 * Math.cos(angle)) * 10) / 10,
        y: Math.round((50 + 41 * Math.sin(angle)) * 10) / 10,
      });
    }
    return out;
  }

  /** The line under the header: whose turn, the reveal, the end, or the lobby. */
  function banner(view, t) {
    if (view.status === "lobby") return { kind: "lobby", text: t("lobby") };
    if (view.status === "cancelled") return { kind: "cancelled", text: t("cancelled") };
    if (view.status === "finished") {
      const names = (view.winners || []).map((p) => nameOf(view, p, t));
      if (names.length === 1) return { kind: "finished", text: t("won", { name: iso(names[0]) }) };
      if (names.length > 1) {
        return { kind: "finished", text: t("won_shared", { names: listNames(names) }) };
      }
      return { kind: "finished", text: t("game_over") };
    }
    if (view.revealed) {
      const lost = (view.seats || []).filter((s) => s.lost).map((s) => s.name || t("player"));
      return {
        kind: "reveal",
        text: t("reveal"),
        detail: lost.length ? t("reveal_lowest", { names: listNames(lost) }) : "",
      };
    }
    if (view.actor !== null && view.actor !== undefined) {
      if (view.actor === view.viewer) return { kind: "you", text: t("your_turn"), clock: true };
      return { kind: "turn", text: t("turn_of", { name: iso(nameOf(view, view.actor, t)) }), clock: true };
    }
    return { kind: "wait", text: "" };
  }

  /** The question above the keys, on the viewer's turn. */
  function prompt(view, t) {
    const options = view.options || [];
    if (!options.length) return "";
    if (options.indexOf("cut") >= 0) {
      const me = seatOf(view, view.viewer);
      return me && me.acted === "cut" ? t("prompt_cut_again") : t("prompt_dealer");
    }
    const next = nextActive(view, view.viewer);
    return t("prompt", { name: iso(next ? next.name || t("player") : t("player")) });
  }

  // -- cards ---------------------------------------------------------------------------------------

  const RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"];
  const SUITS = {
    C: { symbol: "♣", red: false },
    D: { symbol: "♦", red: true },
    H: { symbol: "♥", red: true },
    S: { symbol: "♠", red: false },
  };
  const RED = "#d0312d";
  const BLACK = "#1b1c20";

  // Suit shapes in a 20 x 20 box, drawn rather than typed: every font draws them alike.
  const SUIT_PATHS = {
    H: "M10 18.5C9 17.6 1 12.4 1 6.6 1 3.6 3.3 1.5 6 1.5c1.8 0 3.3 1 4 2.5.7-1.5 2.2-2.5 4-2.5 2.7 0 5 2.1 5 5.1 0 5.8-8 11-9 11.9z",
    D: "M10 1 18 10 10 19 2 10z",
    S: "M10 1C8.6 3 2 7.6 2 12c0 2.5 2 4.2 4.2 4.2 1.4 0 2.5-.6 3.1-1.5-.2 1.8-1 3.2-2.3 4.3h6c-1.3-1.1-2.1-2.5-2.3-4.3.6.9 1.7 1.5 3.1 1.5 2.2 0 4.2-1.7 4.2-4.2 0-4.4-6.6-9-8-11z",
    C: "M10 1.2a4.3 4.3 0 0 0-3.3 7.1A4.3 4.3 0 1 0 9.2 15c-.2 1.7-1 3-2.2 4h6c-1.2-1-2-2.3-2.2-4a4.3 4.3 0 1 0 2.5-6.7A4.3 4.3 0 0 0 10 1.2z",
  };

  // Pip layouts for 2..10: [column (-1 left, 0 middle, 1 right), row from 0 (top) to 1].
  const PIPS = {
    2: [[0, 0], [0, 1]],
    3: [[0, 0], [0, 0.5], [0, 1]],
    4: [[-1, 0], [1, 0], [-1, 1], [1, 1]],
    5: [[-1, 0], [1, 0], [0, 0.5], [-1, 1], [1, 1]],
    6: [[-1, 0], [1, 0], [-1, 0.5], [1, 0.5], [-1, 1], [1, 1]],
    7: [[-1, 0], [1, 0], [0, 0.25], [-1, 0.5], [1, 0.5], [-1, 1], [1, 1]],
    8: [[-1, 0], [1, 0], [0, 0.25], [-1, 0.5], [1, 0.5], [0, 0.75], [-1, 1], [1, 1]],
    9: [[-1, 0], [1, 0], [-1, 1 / 3], [1, 1 / 3], [0, 0.5], [-1, 2 / 3], [1, 2 / 3], [-1, 1], [1, 1]],
    10: [[-1, 0], [1, 0], [0, 1 / 6], [-1, 1 / 3], [1, 1 / 3], [-1, 2 / 3], [1, 2 / 3], [0, 5 / 6], [-1, 1], [1, 1]],
  };

  /** {rank, suit} of a card code ("AS", "10H", "KD"), or null. */
  function parseCard(code) {
    const m = /^(A|[2-9]|10|J|Q|K)([CDHS])$/.exec(typeof code === "string" ? code : "");
    return m ? { rank: m[1], suit: m[2] } : null;
  }

  /** The card's name for people: "Q♥". */
  function cardLabel(code) {
    const card = parseCard(code);
    return card ? card.rank + SUITS[card.suit].symbol : "";
  }

  function r1(n) {
    return Math.round(n * 10) / 10;
  }

  function pip(suit, cx, cy, size, flip) {
    const s = size / 20;
    const x = r1(cx - size / 2);
    const y = r1(cy - size / 2);
    const turn = flip ? " rotate(180 10 10)" : "";
    return '<path transform="translate(' + x + " " + y + ") scale(" + r1(s * 100) / 100 + ")" +
      turn + '" d="' + SUIT_PATHS[suit] + '"/>';
  }

  /**
   * One card face as an SVG string (viewBox 100 x 140): a big corner index top left and,
   * turned, bottom right; pips for 2-10, one big suit for the Ace, a framed letter for J Q K.
   * Only a valid card code gets here; anything else draws the back.
   */
  function cardSvg(code) {
    const card = parseCard(code);
    if (!card) return backSvg();
    const colour = SUITS[card.suit].red ? RED : BLACK;
    const ten = card.rank === "10";
    const index =
      '<text x="13" y="31" text-anchor="middle" font-size="' + (ten ? 25 : 30) + '"' +
      (ten ? ' letter-spacing="-2"' : "") + ' font-weight="700">' + card.rank + "</text>" +
      pip(card.suit, 13, 43, 15, false);
    let middle = "";
    if (card.rank === "A") {
      middle = pip(card.suit, 50, 70, 46, false);
    } else if (card.rank === "J" || card.rank === "Q" || card.rank === "K") {
      middle =
        '<rect x="25" y="22" width="50" height="96" rx="6" fill="' + colour +
        '" fill-opacity=".08" stroke="' + colour + '" stroke-width="2"/>' +
        '<text x="50" y="86" text-anchor="middle" font-size="46" font-weight="700">' +
        card.rank + "</text>" + pip(card.suit, 50, 36, 17, false) + pip(card.suit, 50, 104, 17, true);
    } else {
      const layout = PIPS[Number(card.rank)];
      for (const [col, row] of layout) {
        const cx = 50 + col * 17;
        const cy = 34 + row * 72;
        middle += pip(card.suit, cx, cy, 17, row > 0.5);
      }
    }
    return (
      '<svg class="svgcard" viewBox="0 0 100 140" xmlns="http://www.w3.org/2000/svg" role="img"' +
      ' aria-label="' + cardLabel(code) + '" data-card="' + code + '">' +
      '<rect x="1" y="1" width="98" height="138" rx="9" fill="#fff" stroke="#c9ccd3" stroke-width="1.5"/>' +
      '<g fill="' + colour + '" font-family="system-ui,-apple-system,Segoe UI,Roboto,sans-serif">' +
      index + '<g transform="rotate(180 50 70)">' + index + "</g>" + middle + "</g></svg>"
    );
  }

  /** The back of every card: a lattice in a frame, with a medallion; the same for all cards. */
  function backSvg() {
    const x0 = 9, y0 = 9, x1 = 91, y1 = 131;
    let lines = "";
    for (let c = -140; c <= 240; c += 10) {
      // y = x + c and y = -x + c, clipped to the frame
      let a = Math.max(x0, y0 - c), b = Math.min(x1, y1 - c);
      if (a < b) lines += "M" + a + " " + (a + c) + "L" + b + " " + (b + c);
      a = Math.max(x0, c - y1);
      b = Math.min(x1, c - y0);
      if (a < b) lines += "M" + a + " " + (c - a) + "L" + b + " " + (c - b);
    }
    return (
      '<svg class="svgcard back" viewBox="0 0 100 140" xmlns="http://www.w3.org/2000/svg"' +
      ' aria-hidden="true">' +
      '<rect x="1" y="1" width="98" height="138" rx="9" fill="#fff" stroke="#c9ccd3" stroke-width="1.5"/>' +
      '<rect x="' + x0 + '" y="' + y0 + '" width="' + (x1 - x0) + '" height="' + (y1 - y0) +
      '" rx="5" fill="#2d4fa0"/>' +
      '<path d="' + lines + '" stroke="#fff" stroke-opacity=".28" stroke-width="1.6"/>' +
      '<ellipse cx="50" cy="70" rx="21" ry="27" fill="#2d4fa0" stroke="#fff" stroke-width="2.4"/>' +
      '<g fill="#fff">' + pip("S", 50, 70, 20, false) + "</g>" +
      '<rect x="' + x0 + '" y="' + y0 + '" width="' + (x1 - x0) + '" height="' + (y1 - y0) +
      '" rx="5" fill="none" stroke="#c63d4a" stroke-width="2"/></svg>'
    );
  }

  const HEART = "M10 18.5C9 17.6 1 12.4 1 6.6 1 3.6 3.3 1.5 6 1.5c1.8 0 3.3 1 4 2.5.7-1.5 2.2-2.5 4-2.5 2.7 0 5 2.1 5 5.1 0 5.8-8 11-9 11.9z";

  function heartSvg(kind) {
    return '<svg class="heart ' + kind + '" viewBox="0 0 20 20" aria-hidden="true"><path d="' +
      HEART + '"/></svg>';
  }

  const api = {
    FALLBACK: FALLBACK,
    parseLaunch: parseLaunch,
    apiBase: apiBase,
    themeVars: themeVars,
    isDark: isDark,
    parseSse: parseSse,
    isNewer: isNewer,
    parseIso: parseIso,
    remainingMs: remainingMs,
    secondsLeft: secondsLeft,
    isWarning: isWarning,
    fmt: fmt,
    iso: iso,
    texts: texts,
    nextActive: nextActive,
    seatModel: seatModel,
    layoutFor: layoutFor,
    ringPositions: ringPositions,
    banner: banner,
    prompt: prompt,
    parseCard: parseCard,
    cardLabel: cardLabel,
    cardSvg: cardSvg,
    backSvg: backSvg,
    RANKS: RANKS,
    SUITS: Object.keys(SUITS),
  };
  /** @type {any} */ (window).CuckooTable = api; // the page's tests call the pure functions

  // == the page ===================================================================================

  // Telegram's script loads on its own (async, and it may never come): ask for it each time.
  function tg() {
    const telegram = /** @type {any} */ (window).Telegram; // Telegram's own script, if it came
    return telegram && telegram.WebApp ? telegram.WebApp : null;
  }
  const S = {
    launch: null,
    base: "/app",
    view: /** @type {PageView | null} */ (null),
    at: 0, // performance.now() when the shown View arrived
    t: texts(null),
    fatal: null,
    busy: false,
    conn: "connecting",
    revealedRounds: new Set(), // rounds whose flip has played
    toastTimer: 0,
  };
  const live = { fails: 0, polling: false, pollTimer: 0, retryTimer: 0, controller: null };

  function $(id) {
    return document.getElementById(id);
  }

  function el(tag, cls, text) {
    const node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined && text !== null) node.textContent = text;
    return node;
  }

  function haptic(kind, style) {
    const app = tg();
    const h = app && app.HapticFeedback;
    if (!h) return;
    try {
      if (kind === "impact") h.impactOccurred(style || "medium");
      else if (kind === "notify") h.notificationOccurred(style || "success");
    } catch (_) {
      /* an old client: no haptics */
    }
  }

  function applyTheme() {
    const root = document.documentElement;
    const app = tg();
    const params = (app && app.themeParams && Object.keys(app.themeParams).length && app.themeParams) ||
      (S.launch && S.launch.theme) || null;
    for (const [name, value] of Object.entries(themeVars(params))) root.style.setProperty(name, value);
    let dark;
    if (params && params.bg_color) dark = isDark(params.bg_color);
    else if (app && app.colorScheme) dark = app.colorScheme === "dark";
    else dark = !!(window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches);
    root.dataset.scheme = dark ? "dark" : "light";
  }

  // -- network -----------------------------------------------------------------------------------

  function url(path, params) {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(params || {})) if (v !== null && v !== undefined) q.set(k, v);
    const s = q.toString();
    return S.base + "/api/" + path + (s ? "?" + s : "");
  }

  function headers(json) {
    const h = { Authorization: "tma " + S.launch.initData };
    if (json) h["Content-Type"] = "application/json";
    return h;
  }

  async function readJson(res) {
    try {
      return await res.json();
    } catch (_) {
      return null;
    }
  }

  /** A refusal the page cannot get past by trying again: show it and stop. */
  function fatalFor(status, body) {
    if (status === 401 || status === 403 || status === 404 || status === 400) {
      const code = body && typeof body.error === "string" ? body.error : "";
      if (body && body.strings) S.t = texts(body.strings);
      if (ERROR_TEXT[code]) return ERROR_TEXT[code];
      return status === 401 ? "unauthorized" : status === 403 ? "not_member" : status === 404 ? "no_game" : "bad_link";
    }
    return null;
  }

  function stopLive() {
    clearTimeout(live.retryTimer);
    clearInterval(live.pollTimer);
    live.polling = false;
    if (live.controller) live.controller.abort();
  }

  function fail(key) {
    S.fatal = key;
    stopLive();
    setConn("stopped");
    render();
  }

  function acceptView(view) {
    if (!view || !isNewer(view, S.view)) return false;
    const before = S.view;
    S.view = view;
    S.at = performance.now();
    if (view.strings) S.t = texts(view.strings); // sent once a stream: later views keep them
    // The page reads in the game's language (screen readers, hyphenation), not the file's "en".
    if (typeof view.lang === "string" && /^[a-z]{2}$/.test(view.lang)) {
      document.documentElement.lang = view.lang;
    }
    if (view.actor === view.viewer && view.viewer !== null && (view.options || []).length) {
      if (!before || before.turn !== view.turn || before.round !== view.round) haptic("notify", "warning");
    }
    render();
    return true;
  }

  /** The table; when polling, only if newer than the version shown (204: nothing new). */
  async function loadTable(newer) {
    const query = { game: S.launch.game };
    if (newer && S.view) query.after = S.view.version;
    const res = await fetch(url("table", query), { headers: headers(), cache: "no-store" });
    if (res.status === 204) return true;
    const body = await readJson(res);
    if (res.ok) {
      acceptView(body);
      return true;
    }
    const fatal = fatalFor(res.status, body);
    if (fatal) fail(fatal);
    return false;
  }

  function setConn(state) {
    S.conn = state;
    const box = $("conn");
    if (!box) return;
    box.dataset.state = state;
    const label = { live: "live", polling: "polling", connecting: "reconnecting", off: "connection_lost" }[state];
    const text = label ? S.t(label) : "";
    box.title = text;
    box.setAttribute("aria-label", text);
    box.querySelector("span").textContent = state === "live" ? text : state === "polling" ? "…" : "";
  }

  function startPolling() {
    if (live.polling) return;
    live.polling = true;
    setConn("polling");
    live.pollTimer = setInterval(function () {
      if (S.fatal) return;
      loadTable(true).catch(function () {});
    }, POLL_MS);
  }

  function stopPolling() {
    if (!live.polling) return;
    live.polling = false;
    clearInterval(live.pollTimer);
  }

  function scheduleStream(ms) {
    clearTimeout(live.retryTimer);
    live.retryTimer = setTimeout(stream, ms);
  }

  /** One connection to the event stream; on its end, the next one (or polling) is scheduled. */
  function stream() {
    if (S.fatal) return;
    const controller = new AbortController();
    live.controller = controller;
    let got = false;
    let watchdog = 0;
    const arm = function () {
      clearTimeout(watchdog);
      watchdog = setTimeout(function () { controller.abort(); }, STREAM_SILENCE_MS);
    };
    if (!live.polling && S.conn !== "live") setConn("connecting");
    arm();
    (async function () {
      const after = S.view ? S.view.version : null;
      const res = await fetch(url("events", { game: S.launch.game, after: after }), {
        headers: headers(),
        cache: "no-store",
        signal: controller.signal,
      });
      if (!res.ok) {
        const fatal = fatalFor(res.status, await readJson(res));
        if (fatal) fail(fatal);
        return;
      }
      if (!live.polling) setConn("live");
      const reader = res.body.getReader();
      const decoder = new TextDecoder();
      let buffer = "";
      for (;;) {
        const chunk = await reader.read();
        if (chunk.done) break;
        arm();
        if (!got) {
          got = true;
          live.fails = 0;
          stopPolling();
          setConn("live");
        }
        buffer += decoder.decode(chunk.value, { stream: true });
        const parsed = parseSse(buffer);
        buffer = parsed.rest;
        for (const event of parsed.events) {
          if (event.event !== "table") continue;
          let view = null;
          try {
            view = JSON.parse(event.data);
          } catch (_) {
            continue;
          }
          acceptView(view);
        }
      }
    })()
      .catch(function () { /* a network error: counted below */ })
      .finally(function () {
        clearTimeout(watchdog);
        if (S.fatal || live.controller !== controller) return;
        if (!got) live.fails += 1;
        if (live.fails >= STREAM_FAILS_BEFORE_POLLING) {
          startPolling();
          scheduleStream(STREAM_RETRY_SLOW_MS);
        } else {
          if (!live.polling && !got) setConn("connecting");
          scheduleStream(RETRY_MS);
        }
      });
  }

  async function post(path, body) {
    const res = await fetch(S.base + "/api/" + path, {
      method: "POST",
      headers: headers(true),
      body: JSON.stringify(body),
      cache: "no-store",
    });
    const data = await readJson(res);
    if (res.ok || res.status === 409) return data || {};
    const fatal = fatalFor(res.status, data);
    if (fatal) fail(fatal);
    throw new Error("HTTP " + res.status);
  }

  /** A key pressed on the page: the keys wait while it is asked; the answer comes as a toast
   *  and a haptic, and the view it carries (a move's) is shown. */
  async function press(path, body) {
    const view = S.view;
    if (!view || S.busy) return;
    haptic("impact", "medium");
    S.busy = true;
    renderKeys();
    let shown = false;
    try {
      const answer = await post(path, body(view));
      if (answer.reply) toast(answer.reply);
      haptic("notify", answer.ok ? "success" : "error");
      S.busy = false;
      shown = acceptView(answer.view);
    } catch (_) {
      S.busy = false;
      if (!S.fatal) toast(S.t("error"));
    }
    if (!shown) renderKeys();
  }

  function move(kind) {
    return press("move", function (view) {
      return { game: view.game, move: kind, turn: view.turn, round: view.round };
    });
  }

  function again() {
    return press("again", function (view) { return { game: view.game }; });
  }

  // -- drawing -----------------------------------------------------------------------------------

  function toast(text) {
    const box = $("toast");
    box.textContent = text;
    box.classList.add("show");
    clearTimeout(S.toastTimer);
    S.toastTimer = setTimeout(function () { box.classList.remove("show"); }, 2800);
  }

  function cardNode(model, flip) {
    const wrap = el("div", "card3d");
    if (model.face === "none") return null;
    const inner = el("div", "inner");
    const back = el("div", "face back");
    back.innerHTML = backSvg();
    inner.appendChild(back);
    if (model.face === "up") {
      const front = el("div", "face front");
      front.innerHTML = cardSvg(model.card); // a validated code only (seatModel)
      inner.appendChild(front);
      wrap.setAttribute("role", "img");
      wrap.setAttribute("aria-label", cardLabel(model.card));
      if (flip) {
        wrap.classList.add("flip");
        requestAnimationFrame(function () {
          requestAnimationFrame(function () { wrap.classList.add("up"); });
        });
      } else {
        wrap.classList.add("up");
      }
    } else {
      wrap.setAttribute("role", "img");
      wrap.setAttribute("aria-label", S.t("card_back"));
    }
    wrap.appendChild(inner);
    return wrap;
  }

  function heartsNode(model) {
    const box = el("div", "hearts");
    if (!model.hearts.show) return box;
    box.setAttribute("aria-label", S.t("lives", { n: model.hearts.full }));
    let html = "";
    for (let i = 0; i < model.hearts.full; i++) html += heartSvg("full");
    for (let i = 0; i < model.hearts.breaking; i++) html += heartSvg("breaking");
    for (let i = 0; i < model.hearts.empty; i++) html += heartSvg("empty");
    box.innerHTML = html; // static SVG only
    return box;
  }

  function seatNode(model, flip) {
    const seat = el("div", "seat");
    seat.dataset.player = String(model.player);
    for (const [flag, on] of [["me", model.you], ["turn", model.turn], ["out", model.out], ["lost", model.lost], ["dealer", model.dealer]]) {
      if (on) seat.classList.add(flag);
    }
    const slot = el("div", "slot");
    const card = cardNode(model, flip);
    if (card) slot.appendChild(card);
    else slot.appendChild(el("div", "nocard"));
    if (model.dealer) {
      const chip = el("div", "chip", S.t("dealer_chip"));
      chip.title = S.t("dealer");
      chip.setAttribute("aria-label", S.t("dealer"));
      slot.appendChild(chip);
    }
    if (model.shown) {
      const king = el("div", "shown");
      king.innerHTML = cardSvg(model.shown); // a King's code, checked by seatModel
      slot.appendChild(king);
    }
    seat.appendChild(slot);
    const name = el("div", "name");
    name.dir = "auto";
    const who = el("bdi", null, model.name);
    name.appendChild(who);
    if (model.you) name.appendChild(el("span", "you", S.t("you")));
    seat.appendChild(name);
    seat.appendChild(heartsNode(model));
    const status = el("div", "status" + (model.tone ? " " + model.tone : ""), model.status);
    status.dir = "auto";
    seat.appendChild(status);
    return seat;
  }

  function renderTable(view) {
    const table = $("table");
    table.replaceChildren();
    const seats = view.seats || [];
    if (view.status === "cancelled" || !seats.length) {
      table.className = "table empty";
      return;
    }
    const layout = layoutFor(seats.length);
    table.className = "table " + layout + " n" + seats.length;
    const key = view.game + ":" + view.round;
    const flip = !!view.revealed && !S.revealedRounds.has(key);
    if (view.revealed) S.revealedRounds.add(key);
    const felt = el("div", "felt");
    table.appendChild(felt);
    const center = el("div", "center");
    if (view.status === "lobby") center.textContent = S.t("lobby_players", { count: seats.length });
    else if (view.round) center.textContent = S.t("round", { round: view.round });
    felt.appendChild(center);
    const bottom = seats.findIndex((s) => s.player === view.viewer);
    const spots = layout === "ring" ? ringPositions(seats.length, bottom) : null;
    seats.forEach(function (seat, i) {
      const node = seatNode(seatModel(view, seat, S.t), flip);
      if (spots) {
        node.style.left = spots[i].x + "%";
        node.style.top = spots[i].y + "%";
      }
      (layout === "ring" ? table : felt).appendChild(node);
    });
  }

  function renderBanner(view) {
    const box = $("banner");
    box.replaceChildren();
    const b = banner(view, S.t);
    box.className = "banner " + b.kind;
    if (!b.text) return;
    box.appendChild(el("div", "text", b.text));
    if (b.detail) box.appendChild(el("div", "detail", b.detail));
    if (b.clock && view.deadline) {
      const clock = el("div", "clock");
      clock.appendChild(el("span", "secs"));
      const bar = el("div", "bar");
      bar.appendChild(el("i"));
      clock.appendChild(bar);
      box.appendChild(clock);
      tick();
    }
  }

  // The turn's full length: the View's turn_seconds, else (an older server) the first
  // remaining time seen for a turn, so the bar starts full and empties at the clock's pace.
  const turnLength = new Map();

  function tick() {
    const view = S.view;
    const clock = /** @type {HTMLElement | null} */ (document.querySelector("#banner .clock"));
    if (!view || !clock) return;
    const ms = remainingMs(view.deadline, view.now, performance.now() - S.at);
    const secs = secondsLeft(ms);
    if (secs === null) {
      clock.hidden = true;
      return;
    }
    const key = view.game + ":" + view.round + ":" + view.turn;
    if (!turnLength.has(key)) {
      const full = typeof view.turn_seconds === "number" ? view.turn_seconds * 1000 : ms;
      turnLength.set(key, Math.max(full, ms, 1000));
    }
    clock.querySelector(".secs").textContent = S.t("seconds", { seconds: secs });
    /** @type {HTMLElement} */ (clock.querySelector(".bar i")).style.width = Math.min(100, (100 * ms) / turnLength.get(key)) + "%";
    clock.classList.toggle("warn", isWarning(secs));
  }

  function renderNote(view) {
    const box = $("note");
    box.replaceChildren();
    box.className = "note";
    if (S.fatal) {
      box.className = "note fatal";
      box.appendChild(el("div", null, S.t(S.fatal)));
      return;
    }
    if (!view) {
      box.appendChild(el("div", "hint", S.t("loading")));
      return;
    }
    const lines = [];
    if (view.status === "running" && (view.viewer === null || view.viewer === undefined)) {
      lines.push(["spectating", "watch"]);
    }
    if (view.status === "running" && view.revealed) lines.push(["next_round", "hint"]);
    else if (view.status === "running" && view.viewer !== null && view.actor !== view.viewer) {
      const me = seatOf(view, view.viewer);
      if (me && me.acted && !me.out) lines.push(["wait_reveal", "hint"]);
    }
    for (const [key, cls] of lines) box.appendChild(el("div", cls, S.t(key)));
  }

  function renderPodium(view) {
    const box = $("podium");
    box.replaceChildren();
    if (view.status !== "finished") {
      box.hidden = true;
      return;
    }
    box.hidden = false;
    box.appendChild(el("h2", null, S.t("podium")));
    const winners = (view.winners || []).map((p) => seatOf(view, p)).filter(Boolean);
    const place = (s) => (typeof s.place === "number" ? s.place : 999);
    const rest = (view.seats || [])
      .filter((s) => (view.winners || []).indexOf(s.player) < 0)
      .sort((a, b) => place(a) - place(b)); // the finishing order: who went out last first
    const stand = el("div", "stand");
    const top = el("div", "step first");
    for (const seat of winners) {
      const who = el("div", "winner");
      who.appendChild(el("div", "cup", "🏆"));
      const name = el("bdi", "wname", seat.name || S.t("player"));
      who.appendChild(name);
      top.appendChild(who);
    }
    top.appendChild(el("div", "block", "1"));
    stand.appendChild(top);
    box.appendChild(stand);
    if (rest.length) {
      const list = el("ol", "others");
      for (const seat of rest) {
        const item = el("li");
        if (typeof seat.place === "number") item.value = seat.place; // a shared place shows once
        item.appendChild(el("bdi", null, seat.name || S.t("player")));
        list.appendChild(item);
      }
      box.appendChild(list);
    }
  }

  function keyButton(label, cls, onPress) {
    const button = el("button", "key " + cls, label);
    button.type = "button";
    button.disabled = S.busy;
    button.addEventListener("click", onPress);
    return button;
  }

  function renderKeys() {
    const box = $("keys");
    box.replaceChildren();
    const view = S.view;
    if (!view || S.fatal) {
      box.hidden = true;
      return;
    }
    if (view.status === "finished") {
      box.hidden = false;
      const row = el("div", "row");
      row.appendChild(keyButton(S.t("play_again"), "again", again));
      box.appendChild(row);
      return;
    }
    const options = view.status === "running" && !view.revealed && view.actor === view.viewer ? view.options || [] : [];
    if (!options.length) {
      box.hidden = true;
      return;
    }
    box.hidden = false;
    box.appendChild(el("div", "prompt", prompt(view, S.t)));
    const row = el("div", "row");
    for (const option of /** @type {const} */ (["keep", "swap", "cut"])) {
      if (options.indexOf(option) < 0) continue;
      const button = keyButton(S.t(option), option, function () { move(option); });
      button.dataset.move = option;
      row.appendChild(button);
    }
    box.appendChild(row);
  }

  function render() {
    const view = S.view;
    document.title = S.t("title");
    $("title").textContent = S.t("title");
    $("round").textContent = view && view.round && view.status !== "lobby" ? S.t("round", { round: view.round }) : "";
    if (view && !S.fatal) {
      renderBanner(view);
      renderTable(view);
      renderPodium(view);
      document.body.dataset.status = view.status;
    } else {
      $("banner").replaceChildren();
      $("table").replaceChildren();
      $("podium").hidden = true;
    }
    renderNote(view);
    renderKeys();
    setConn(S.conn);
  }

  let telegramDone = false;

  /** Tell Telegram the page is ready, take the whole height, follow its theme. */
  function telegramReady() {
    const app = tg();
    if (!app || telegramDone) return;
    telegramDone = true;
    try {
      app.ready();
      app.expand();
      app.onEvent("themeChanged", applyTheme);
    } catch (_) {
      /* an old client */
    }
    applyTheme();
  }

  function readLaunch() {
    const app = tg();
    S.launch = parseLaunch(
      location.search,
      location.hash,
      app && app.initData ? app.initData : "",
      app && app.themeParams ? app.themeParams : null
    );
  }

  async function start() {
    readLaunch();
    S.base = apiBase(location.pathname);
    applyTheme();
    if (tg()) telegramReady();
    else {
      const script = document.getElementById("telegram-js");
      if (script) script.addEventListener("load", telegramReady);
    }
    setInterval(tick, 250);
    render();
    // No launch data in the address (a reload, say): Telegram's script may still bring it.
    for (let waited = 0; !S.launch.initData && !tg() && waited < TELEGRAM_WAIT_MS; waited += 100) {
      await new Promise(function (done) { setTimeout(done, 100); });
    }
    if (!S.launch.initData && tg()) {
      readLaunch();
      telegramReady();
    }
    if (!S.launch.initData) return fail("unauthorized");
    if (S.launch.game === null) return fail("bad_link");
    try {
      await loadTable();
    } catch (_) {
      setConn("off");
    }
    if (!S.fatal) stream();
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();

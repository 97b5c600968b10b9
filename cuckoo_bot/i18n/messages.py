"""Every message the bot shows, by key, in English. The catalogs under ``locales/`` translate
them: each entry has ``msgctxt`` = the key and ``msgid`` = the English text below.

Texts are HTML (Telegram's parse mode); placeholders are ``{name}`` fields, already escaped
by the renderer. Lives are drawn as hearts, which keeps plural forms out of the catalogs.
"""

from __future__ import annotations

SOURCE_LANGUAGE = "en"  # the language these texts are written in; the catalogs translate them

MESSAGES: dict[str, str] = {
    # -- help, rules, start -------------------------------------------------------------------
    # /help in a group: the game by the group's name for it, its gist by the group's rules.
    "help_group": (
        "🃏 <b>{game_name}</b>: {gist}\n\n"
        "/newgame: open a lobby\n/join: join the lobby\n/leave: leave the lobby or the game\n"
        "/startgame: start the game (its creator or an admin)\n/cancel: cancel it (creator or admin)\n"
        "/leaderboard: this group's league table (<code>/leaderboard global</code> for everyone)\n"
        "/history: the last games here (<code>/history 12</code>: game 12 round by round)\n"
        "/rules: the rules\n/settings: house rules (admins)\n/language: the group's language"
    ),
    "help_gist": (
        "one card each. Keep it or swap it with the next player; a King blocks the swap. The"
        " lowest card at the reveal loses a life."
    ),
    "help_gist_free": (
        "one card each. Keep it or swap it with the next player, who must accept. The lowest card"
        " at the reveal loses a life."
    ),
    "help_gist_kille": (
        "one card each from the Swedish Kille deck. Keep it or swap it with the next player,"
        " unless their card has a power (the Cuckoo, the Hussar, the Pig, the Inn, the Cavalier:"
        " /rules). The lowest card at the reveal loses a life."
    ),
    "help_private": (
        "🃏 <b>Cuckoo</b>: the party card game for Telegram groups.\n\n"
        "Add me to a group and type /newgame there. I send your cards here, privately.\n\n"
        "/stats: your record\n/rules: the rules\n/language: your language"
    ),
    # What Telegram shows in an empty chat with the bot (at most 512 characters), and on its
    # profile (at most 120).
    "bot_description": (
        "🃏 Cuckoo is the party card game for Telegram groups: one card each, keep it or swap it"
        " with the next player, and don't be caught with the lowest card.\n\nAdd me to a group"
        " and type /newgame there. Your cards come here, privately."
    ),
    "bot_short_description": "Cuckoo, the party card game for groups: add me to one and type"
    " /newgame.",
    "welcome": (
        "Hi {name}! Your cards will arrive here during games. To play, add me to a group and"
        " type /newgame there."
    ),
    "group_only": "That command works in a group: add me to one and use it there.",
    "stats_private": "📊 Your record is yours alone: tap below and I will show it to you privately.",
    "btn_stats": "📊 My record",
    "rules": (
        "<b>{game_name}: the rules</b>\n\n"
        "• One 52-card deck. Ranks from high to low: K Q J 10 9 8 7 6 5 4 3 2 A. Suits never"
        " matter; the Ace is the lowest card.\n"
        "• {min_players} to {max_players} players, {lives} lives each. The first dealer is drawn"
        " at random; {deal}\n"
        "• Each round everyone gets one hidden card. Turns go clockwise from the dealer's left;"
        " the dealer acts last. Everyone has exactly one turn.\n"
        "• On your turn, keep your card or ask the next player to swap. {swap} A card you were"
        " handed can be passed on in your own turn. Asking with a King in hand is allowed, just"
        " unwise. {queens}\n"
        "• The dealer keeps, or cuts a card from the deck. {cut}\n"
        "• Then all cards are shown. Everyone holding the lowest rank loses a life, ties"
        " included. At 0 lives you are out.\n"
        "• The last player left wins. If everyone left goes out in the same reveal, {final_tie}\n"
        "• If you leave mid-round, the cards are gathered and dealt again; nobody loses a life.\n"
        "• You have {timeout} seconds per turn; if the time runs out you keep your card{fast}."
        " Miss two turns in a row and you leave the game at the next deal.{stakes}\n\n"
        "{line}"
    ),
    "rules_kille_text": (
        "<b>{game_name}: the rules</b> · One-card Kille\n\n"
        "• The Swedish Kille deck: 42 cards, two of each of 21. From low to high: 🎭 Mask,"
        " 🪴 Flowerpot, 🌿 Wreath, the numbers 1 to 12, 🏠 Inn, 🐎 Cavalier, 🐖 Pig, ⚔️ Hussar,"
        " 🐦 Cuckoo, 🃏 Harlequin.\n"
        "• {min_players} to {max_players} players, {lives} lives each. The first dealer is drawn"
        " at random; {deal}\n"
        "• Each round everyone gets one hidden card. Turns go clockwise from the dealer's left;"
        " the dealer acts last. Everyone has exactly one turn.\n"
        "• On your turn, keep your card or ask the next player to swap. They must accept unless"
        " they hold one of these, which they show:\n"
        "  🐦 the Cuckoo: “Cuckoo stands, no more swaps!” Nobody else plays: the cards are shown"
        " at once.\n"
        "  ⚔️ the Hussar or 🐖 the Pig strikes: no swap, and you lose a life at the reveal (one in"
        " all, even if you also hold the lowest card).\n"
        "  🏠 the Inn or 🐎 the Cavalier sends you past: you ask the player after them instead,"
        " and so on; with nobody left to ask (never yourself), you keep your card.\n"
        "• 🃏 The Harlequin is the highest card as dealt or cut, but once it changes hands in a"
        " swap it is the lowest of all.\n"
        "• The dealer keeps, or cuts a card from the deck: it becomes theirs, unless it is a"
        " Cuckoo, which is set aside while the dealer keeps their own.\n"
        "• Then all cards are shown. Everyone holding the lowest card loses a life, ties"
        " included. At 0 lives you are out.\n"
        "• The last player left wins. If everyone left goes out in the same reveal, {final_tie}\n"
        "• If you leave mid-round, the cards are gathered and dealt again; nobody loses a life.\n"
        "• You have {timeout} seconds per turn; if the time runs out you keep your card{fast}."
        " Miss two turns in a row and you leave the game at the next deal.{stakes}\n\n"
        "{line}"
    ),
    "rules_stakes_told": (
        "\n• Here the game is played for stakes: everyone puts a chip in the pot, and one more"
        " for every life they lose; the winner takes the pot (a shared win splits it, and what"
        " cannot be split stays for the group's next game). /leaderboard keeps everyone's chips."
    ),
    "rules_deal_passes": "the deal then passes to the left, skipping players who are out.",
    "rules_deal_stays": (
        "here the dealer stays: the same player deals every round, and once they are out the"
        " deal passes to the left, to the next player still in, who then stays."
    ),
    "rules_swap_block": (
        "They must accept unless they hold a King: they show it and both keep their cards. A"
        " blocked swap is not redirected."
    ),
    "rules_swap_free": "They must accept, whatever they hold: here Kings do not block.",
    "rules_queens_none": "Queens and Jacks have no powers.",
    "rules_queens_pass": (
        "Here Coucou's Queens play: a Queen refuses too, more weakly. Her holder shows her, and"
        " you keep your card and ask the player after her instead, once; a King or another"
        " Queen there ends it, and a Queen held by the dealer blocks as a King does. Jacks have"
        " no powers."
    ),
    "rules_cut_block": (
        "If it is not a King it becomes the dealer's card; if it is a King the cut is blocked,"
        " the dealer keeps the original card and the King is set aside."
    ),
    "rules_cut_free": "The card cut becomes the dealer's, whatever it is: here Kings do not block.",
    "rules_tie_shared": "they share the victory.",
    "rules_tie_sudden": "they play sudden death: one card each, highest wins, again while tied.",
    "rules_fast": " and lose a life at the reveal",
    # The rules in force, in one line: the lobby, the first table and /rules end with it.
    "rules_line_classic": "📜 Classic rules: {items}",
    "rules_line_house": "📜 House rules: {items}",
    "rules_lives": "{lives} lives",
    "rules_no_block": "Kings do not block",
    "rules_double_cut": "the dealer may cut twice",
    "rules_dealer_stays": "the dealer stays",
    "rules_queens_block": "Coucou's Queens",
    "rules_stakes": "played for stakes",
    "rules_kille": "One-card Kille (the 42-card Kille deck)",
    "rules_sudden_death": "sudden death on a final tie",
    "rules_max_players": "up to {max_players} players",
    "rules_clock": "{seconds} s a turn, then you keep",
    "rules_clock_fast": "{seconds} s a turn, then you keep and lose a life",
    # -- lobby ----------------------------------------------------------------------------------
    "lobby_title": "🃏 <b>{game_name}</b>: a new game, opened by {creator}",
    "lobby_players": "Players ({count}/{max}):",
    "lobby_nobody": "Nobody has joined yet.",
    "lobby_hint": (
        "Tap <b>Join</b> to play. {min} to {max} players. {creator} or an admin starts the game;"
        " it starts by itself {when} if there are enough players."
    ),
    # When a lobby starts by itself: a time Telegram shows in each reader's zone (it does not
    # go stale as "in 10 min" would), or, without one, in how many minutes.
    "lobby_at": "at {time}",
    "lobby_in": "in {minutes} min",
    "lobby_offered": "Last game's players, tap <b>Join</b> to play again: {names}",
    "lobby_started": "The game has started.",
    "lobby_cancelled": "This game was cancelled.",
    "lobby_expired": "This lobby closed: not enough players joined in time.",
    "lobby_bot_removed": "This game was cancelled.",
    "btn_join": "Join",
    "btn_leave": "Leave",
    "btn_start": "Start",
    "btn_add_computer": "🤖 Add computer player",
    "btn_cancel": "Cancel",
    "btn_open_private": "Open my private chat",
    # -- the table ------------------------------------------------------------------------------
    "table_title": "🃏 <b>Round {round}</b> · dealer: {dealer}",
    "act_keep": "✋ {name} kept.",
    "act_dealer_keep": "✋ {name} kept (no cut).",
    "act_dealer_stands": "✋ {name} keeps the card they cut.",
    "act_dealer_keeps_own": "✋ {name} keeps their own card.",
    "act_timeout": "⏱ {name} ran out of time and kept.",
    "act_swap": "🔄 {name} swapped with {target}.",
    "act_blocked": "👑 {name} asked {target} to swap: “{call}” blocked by {target}'s {king}!",
    "act_passed": "{sign} {name} asked {target} to swap: {target} showed the {king} and sent them on.",
    "act_queen_blocked": "{sign} {name} asked {target} to swap: blocked by {target}'s {king}.",
    "act_stopped": (
        "🐦 {name} asked {target} to swap: {target} showed the {king}. “Cuckoo stands, no more"
        " swaps!” The cards are shown at once."
    ),
    "act_struck": (
        "⚔️ {name} asked {target} to swap: {target} showed the {king} and struck. No swap, and"
        " {name} loses a life at the reveal."
    ),
    "act_cut": "✂️ {name} cut a card from the deck.",
    "act_cut_blocked": "👑 {name} cut the {king}: blocked, the dealer keeps the old card.",
    "turn_prompt": "👉 {mention}, your turn: keep your card, or swap with {target}? ({clock})",
    "turn_prompt_dealer": "👉 {mention}, you deal: keep your card, or cut one from the deck? ({clock})",
    "turn_prompt_cut_again": "👉 {mention}: cut once more, or keep this card? ({clock})",
    "turn_private_hint": "I can't write to you privately: tap 🎴 My card to see your card.",
    "table_waiting": "⏳ {name}'s turn: keep or swap? ({clock})",
    "table_waiting_dealer": "⏳ {name} deals: keep or cut? ({clock})",
    # How long a turn has: the seconds, and the time it runs out (shown in the reader's own
    # time zone by Telegram), or only the seconds when the time is not known.
    "clock": "{seconds} s, until {time}",
    "clock_seconds": "{seconds} s",
    # One row per seat: the name and lives, what the seat did this round, and at the reveal the
    # card held, with 💔 for a life lost and 💀 for out.
    "row_waiting": "{name} {lives}",
    "row_turn": "{name} {lives} · ⏳ playing",
    "row_keep": "{name} {lives} · ✋ kept",
    "row_dealer_keep": "{name} {lives} · ✋ kept, no cut",
    "row_dealer_stands": "{name} {lives} · ✋ kept the cut card",
    "row_dealer_keeps_own": "{name} {lives} · 👑 cut {king}: set aside · ✋ kept their card",
    "row_timeout": "{name} {lives} · ⏱ time ran out, kept",
    "row_swap": "{name} {lives} · 🔄 swapped with {target}",
    "row_blocked": "{name} {lives} · 👑 “{call}” {target} showed {king}: no swap",
    "row_queen_blocked": "{name} {lives} · {sign} {target} showed {king}: no swap",
    "row_swap_via": "{name} {lives} · {sign} {via} showed {queen}, sent on · 🔄 swapped with {target}",
    "row_blocked_via": (
        "{name} {lives} · {sign} {via} showed {queen}, sent on · 👑 “{call}” {target} showed {king}:"
        " no swap"
    ),
    "row_queen_blocked_via": (
        "{name} {lives} · {sign} {via} showed {queen}, sent on · {sign} {target} showed {king}:"
        " no swap"
    ),
    "row_stopped": "{name} {lives} · 🐦 {target} showed {king}: “Cuckoo stands!” No more swaps",
    "row_stopped_via": (
        "{name} {lives} · {sign} {via} showed {queen}, sent on · 🐦 {target} showed {king}:"
        " “Cuckoo stands!” No more swaps"
    ),
    "row_struck": "{name} {lives} · ⚔️ {target} showed {king}: struck, a life at the reveal",
    "row_struck_via": (
        "{name} {lives} · {sign} {via} showed {queen}, sent on · ⚔️ {target} showed {king}:"
        " struck, a life at the reveal"
    ),
    "row_cut": "{name} {lives} · ✂️ cut from the deck",
    "row_cut_blocked": "{name} {lives} · 👑 cut {king}: set aside",
    "table_revealed": "👀 <b>Cards on the table!</b>",
    "table_pot": "💰 Pot: {chips}",
    "table_revealed_lost": "💔 {names}",
    "table_revealed_out": "💀 {names} out",
    "table_cancelled": "The game was cancelled.",
    "table_gathered": "The cards of round {round} were gathered.",
    "btn_keep": "✋ Keep",
    "btn_swap": "🔄 Swap",
    "btn_cut": "✂️ Cut",
    "btn_my_card": "🎴 My card",
    # -- private chats --------------------------------------------------------------------------
    "private_head": "🃏 <b>{chat}</b> · round {round}",
    "deal_card": "Your card: <b>{card}</b>",
    "deal_place": "You play in position {position} of {players}; {dealer} deals.",
    "deal_you_deal": "You deal: you play last of {players}.",
    "prompt_card": "Your card: <b>{card}</b>",
    "prompt_swapped": "🔄 {other} swapped with you: you now hold <b>{card}</b>.",
    "prompt_swapped_gave": "🔄 {other} swapped with you: you gave {gave} and now hold <b>{card}</b>.",
    "prompt_cut": "✂️ You cut: you now hold <b>{card}</b>.",
    "prompt_lives": "Lives: {lives}",
    # The first line of a prompt: how the player's last round ended.
    "last_safe": "↩️ Round {round}: {card}, safe",
    "last_lost": "↩️ Round {round}: {card}, the lowest card: 💔 a life lost",
    "last_lost_tied": "↩️ Round {round}: {card}, the lowest card with {others}: 💔 a life lost",
    "last_lost_timeout": "↩️ Round {round}: {card}, 💔 a life lost to the clock",
    "last_lost_struck": "↩️ Round {round}: {card}, 💔 a life lost to a strike",
    # A reply to the prompt of a player who has not played yet, shortly before time runs out.
    "nudge": "⏰ Only {seconds} s left for your turn (until {time})! When time runs out, you keep your card.",
    "nudge_fast": "⏰ Only {seconds} s left for your turn (until {time})! When time runs out, you keep your card and lose a life at the reveal.",
    # A prompt's first line, what a phone's lock screen shows: the call to act, where and when.
    "prompt_call": "👉 <b>Your turn</b> · {chat} · round {round} · {seconds} s",
    "prompt_ask": "Keep your card, or swap with {target}?{until}",
    "prompt_ask_dealer": "You deal: keep your card, or cut one from the deck?{until}",
    "prompt_ask_again": "Cut once more, or keep this card?{until}",
    "prompt_until": " (until {time})",
    "result_safe": "You held {card}: safe. {lives}",
    "result_lost": "💔 You held {card}, the lowest card, and lost a life. {lives}",
    "result_lost_tied": "💔 You held {card}, the lowest card with {others}, and lost a life. {lives}",
    "result_lost_timeout": "💔 You held {card} and lost a life for running out of time. {lives}",
    "result_lost_struck": (
        "💔 You held {card} and lost a life: you were struck when you asked for a swap. {lives}"
    ),
    "result_out": "💀 You held {card}, the lowest card, and lost your last life.",
    "result_out_tied": "💀 You held {card}, the lowest card with {others}, and lost your last life.",
    "result_out_timeout": "💀 You held {card} and lost your last life for running out of time.",
    "result_out_struck": (
        "💀 You held {card} and lost your last life: you were struck when you asked for a swap."
    ),
    "count_others.one": "{n} other player",
    "count_others.other": "{n} other players",
    "result_gathered": "The cards were gathered: nobody lost a life.",
    "close_out": "You are out of this game; the others play on.",
    "close_won": "🏆 {names} won the game.",
    "close_you_won": "🏆 You won the game!",
    # The end of a won game, a new message to everyone who sat at it.
    "final_head": "🏁 <b>{chat}</b> · the end",
    "final_place": "Your place: {place} of {seats}.",
    "close_you_won_shared": "🏆 You won the game, shared with {names}!",
    "close_won_shared": "🏆 {names} won the game together.",
    "close_game_over": "The game is over.",
    "close_abandoned": "The game is over: everyone left stopped playing.",
    "close_cancelled": "The game was cancelled.",
    "close_resigned": "🚪 You left the game.",
    "close_idle": "💤 You missed two turns in a row and left the game.",
    "close_removed": "🚪 The game's creator or a group admin took you out of the game: the others play on without you.",
    # -- the reveal -----------------------------------------------------------------------------
    "reveal_lost": "💔 {name} loses a life.",
    "reveal_lost_timeout": "💔 {name} loses a life for running out of time.",
    "reveal_lost_struck": "💔 {name} loses a life, struck when asking for a swap.",
    # A Kille Harlequin that changed hands this round, at the reveal: it counts lowest.
    "card_spent": "{card} (swapped: the lowest)",
    # A player whose name shows as nothing (only invisible characters): numbered by seat.
    "player_n": "Player {n}",
    "reveal_out": "💀 {name} is out of the game.",
    # -- the end ----------------------------------------------------------------------------------
    "game_won": "🏆 {name} won the game!",
    "game_won_shared": "🏆 {names} won the game together: a shared victory!",
    "game_abandoned": "The game is over: everyone left stopped playing, so nobody wins.",
    "history_title": "📜 <b>The last games here</b>",
    "history_empty": "No game has finished here yet.",
    "history_line": "<b>#{game}</b> · {date} · 🏆 {winner} · {rounds}\n👥 {players}",
    "history_hint": "Round by round: /history {game}",
    # /history N of a long game: its story goes to the asker's private chat, not the group.
    "history_sent": "📜 {name}, the story of game #{game} is in our private chat.",
    "history_private": (
        "📜 The story of game #{game} takes several messages: tap below and I will send it"
        " to you privately."
    ),
    "btn_history_private": "📜 Read it privately",
    "story_title": "📜 <b>Game #{game}</b>, round by round",
    "summary_rounds": "📋 {rounds}",
    "pot_taken": "💰 {name} takes the pot: {chips}.",
    "final_chips": "🪙 {chips} this game",
    "pot_shared": "💰 The pot of {chips} is shared: {each} each to {names}.",
    "pot_left.one": "🪙 {n} chip stays in the pot for the group's next game.",
    "pot_left.other": "🪙 {n} chips stay in the pot for the group's next game.",
    # The end of a game in the group: everyone in the order they finished, the round they went
    # out in, the points the game won or cost them in this month's table, and their place there.
    "summary_podium": "🏅 <b>How it ended</b>",
    "podium_out": "out in round {round}",
    "podium_month": "#{place} this month",
    "count_chips.one": "{n} chip",
    "count_chips.other": "{n} chips",
    "count_points.one": "{sign}{n} point",
    "count_points.other": "{sign}{n} points",
    "btn_play_again": "🔁 Play again",
    # -- announcements --------------------------------------------------------------------------
    "ann_misdealt": "🔁 The cards are gathered and dealt again; nobody loses a life.",
    "ann_removed_idle": "💤 {name} missed two turns in a row and leaves the game.",
    "ann_resigned": "🚪 {name} left the game.",
    "ann_removed": "🚪 {name} was taken out of the game (a creator's or an admin's /kick).",
    "ann_sudden_death": "⚔️ Everyone left went out together! Sudden death for {names}: one card each, highest wins.",
    "ann_sudden_draw": "⚔️ Sudden death: {cards}.",
    "ann_sudden_again": "Tied again: {names} draw once more.",
    # -- short answers (popups and replies) -------------------------------------------------------
    "reply_joined": "You're in! Your cards will come in our private chat.",
    "reply_already_joined": "You're already in.",
    "reply_lobby_full": "The lobby is full ({max} players).",
    "reply_lobby_closed": "This lobby is closed.",
    "reply_left": "You left the lobby.",
    "reply_resigned": "You left the game.",
    "reply_skipped": "⏭ {player}'s turn is skipped: as if their time had run out.",
    "reply_skipped_by": "⏭ {player} skipped your turn: you kept {card}.",
    "reply_kick_whom": "Use /kick while it is the quiet player's turn, or reply to one of their messages with /kick.",
    "reply_no_turn": "No turn is waiting to be skipped right now.",
    "reply_not_in_game": "You're not in this game.",
    "reply_not_your_turn": "It's not your turn: waiting for {player}.",
    "reply_stale_turn": "That button belongs to an earlier turn.",
    "reply_game_not_running": "This game is not running.",
    "reply_illegal_action": "You can't do that now.",
    "reply_game_over": "This game is over.",
    "reply_started": "Game on!",
    "reply_need_players": "You need at least {min} players to start (now {have}).",
    "reply_creator_or_admin_only": "Only the game's creator or a group admin can do that.",
    "reply_game_exists": "There is already a game in this chat: join it, or /cancel it.",
    "reply_no_lobby": "There is no lobby open. Open one with /newgame.",
    "reply_no_game": "There is no game to cancel.",
    "reply_already_running": "The game is already running.",
    "reply_cancelled": "Cancelled.",
    "reply_computer_added": "{name} takes a seat.",
    "reply_again_opened": "A new game is open: you're in. The others can tap Join.",
    "reply_lobby_open": "A lobby is open: tap Join in it.",
    "reply_history_usage": "Use /history for the last games, or /history 12 for game 12.",
    "reply_history_not_found": "There is no finished game {game} in this group.",
    "reply_play_again_expired": "That game ended a while ago: open a new one with /newgame.",
    # A second tap on a prompt already played: what the player did this round.
    "reply_already_keep": "You already played this turn: you kept your card.",
    "reply_already_timeout": "Your turn ran out: you kept your card.",
    "reply_already_swap": "You already played this turn: you swapped with {player}.",
    "reply_already_blocked": "You already played this turn: {player} showed the {king}.",
    "reply_already_cut": "You already played this turn: you cut.",
    "reply_already_stopped": "You already played this turn: {player} showed the {king}.",
    "reply_already_struck": "You already played this turn: {player} showed the {king} and struck.",
    "reply_already_cut_blocked": "You already played this turn: you cut the {king}.",
    # The round so far, in the prompt of a player whose turn it is: one short item per act
    # (no card label: the prompt names one card only, the player's own).
    "prompt_so_far": "This round: {acts}",
    # The round so far, in the prompt: the reader is "you"; keeps in a row share one ✋.
    "brief_you": "you",
    "brief_keep": "✋ {name}",
    "brief_timeout": "⏱ {name}",
    "brief_swap": "🔄 {name} ⇄ {target}",
    "brief_blocked": "👑 {target} blocks {name}",
    "brief_cut": "✂️ {name}",
    "brief_cut_blocked": "👑 {name} cuts a King",
    "brief_blocked_by_you": "👑 your King blocks {name}",
    "brief_passed": "{sign} {target} sends {name} on",
    "brief_passed_by_you": "{sign} your {king} sends {name} on",
    "brief_queen_blocked": "{sign} {target} blocks {name}",
    "brief_queen_blocked_by_you": "{sign} your {king} blocks {name}",
    "brief_stopped": "🐦 {target}'s Cuckoo stops {name}: no more swaps",
    "brief_stopped_by_you": "🐦 your Cuckoo stops {name}: no more swaps",
    "brief_struck": "⚔️ {target} strikes {name}",
    "brief_struck_by_you": "⚔️ your {king} strikes {name}",
    "brief_cut_blocked_you": "👑 you cut a King",
    "reply_timed_out": "⏱ Time ran out: you kept {card}.",
    # Under the answer on the prompt a player pressed.
    # ...when the press ended the round (the next deal comes after a short pause).
    "played_revealed": "👀 Cards on the table: the group shows them.",
    "reply_done_keep": "You kept {card}.",
    "reply_done_swap": "You swapped with {player}: you now hold {card}.",
    "reply_done_blocked": "“{call}” {player} shows the {king}: no swap. You keep {card}.",
    "reply_done_queen_blocked": (
        "{player} shows the {king}, and nobody is left to ask after her: no swap. You keep {card}."
    ),
    "reply_done_swap_via": (
        "{via} shows the {queen} and sends you on: you swapped with {player}, and now hold {card}."
    ),
    "reply_done_blocked_via": (
        "{via} shows the {queen} and sends you on, but {player} shows the {king}: no swap. You"
        " keep {card}."
    ),
    "reply_done_stopped": (
        "“Cuckoo stands!” {player} shows the {king}: no swap, and the cards are shown at once."
        " You keep {card}."
    ),
    "reply_done_stopped_via": (
        "{via} shows the {queen} and sends you on, but {player} shows the {king}: “Cuckoo"
        " stands!” No swap, and the cards are shown at once. You keep {card}."
    ),
    "reply_done_struck": (
        "{player} shows the {king} and strikes: no swap, and you lose a life at the reveal. You"
        " keep {card}."
    ),
    "reply_done_struck_via": (
        "{via} shows the {queen} and sends you on, but {player} shows the {king} and strikes: no"
        " swap, and you lose a life at the reveal. You keep {card}."
    ),
    "reply_done_cut": "You cut: you now hold {card}.",
    "reply_done_cut_blocked": "You cut the {king}: it is set aside, and you keep {card}.",
    "reply_your_card": "Your card: {card}\nRound {round} · lives: {lives}",
    "reply_no_card": "You have no card in this round.",
    "reply_unknown_button": "This button no longer works.",
    "reply_try_again": "Something went wrong on my side: nothing changed. Try again in a moment.",
    "reply_need_private": "Tap Start in my private chat so I can send you your cards; that joins you.",
    "reply_language_set": "Language: English.",
    "reply_unknown_language": "I speak English, Spanish and French.",
    "reply_invalid_setting": "That value is not allowed: {detail}",
    "reply_setting_changed": "Saved. It applies from the next game.",
    "reply_welcome": "Welcome!",
    "reply_not_admin": "Only group admins can change the settings.",
    "reply_not_member": "That game belongs to a group you are not in.",
    # -- league ---------------------------------------------------------------------------------
    "league_title": "🏆 <b>League table</b>: {where}",
    "league_global": "all groups",
    "league_season": "This month ({season})",
    "league_all_time": "All time",
    "league_empty": "No finished games yet.",
    "league_same": "{label}, and all time",
    "league_chips": "🪙 Chips: {chips}",
    # Columns of a 32-character monospace table: rank, name (12), points, games, wins.
    "league_header": "#  Player         Pts Games Wins",
    "stats_title": "📊 <b>Your record</b>",
    "stats_line": "{label}: {games}, {wins} ({shared}), {points}, {lives}",
    # Counts, each in the plural form its number takes in the language (``Translator.count``:
    # key.one, key.other, and key.few or key.many where a language needs them).
    "count_games.one": "{n} game",
    "count_games.other": "{n} games",
    "count_wins.one": "{n} win",
    "count_wins.other": "{n} wins",
    "count_shared.one": "{n} shared",
    "count_shared.other": "{n} shared",
    "count_lives_lost.one": "{n} life lost",
    "count_lives_lost.other": "{n} lives lost",
    "count_rounds.one": "{n} round",
    "count_rounds.other": "{n} rounds",
    "stats_none": "You have not finished a game yet.",
    # -- settings and language --------------------------------------------------------------------
    "settings_title": "⚙️ <b>House rules for this group</b> (tap to change; applies from the next game)",
    # Under the title of /settings: what each setting does, one line each.
    "settings_help": (
        "• <b>Lives</b>: how many each player starts with.\n"
        "• <b>Max players</b>: the most who can sit at one table.\n"
        "• <b>Kings block</b>: a King refuses a swap (or a cut) and stays where it is.\n"
        "• <b>Final tie</b>: when the last players all go out together, they share the win or"
        " play sudden death.\n"
        "• <b>Dealer's double cut</b>: the dealer may cut a second time.\n"
        "• <b>Dealer stays</b>: the same player deals every round (once out, the next one"
        " still in).\n"
        "• <b>Coucou's Queens</b>: a Queen refuses a swap too, more weakly: the asker asks the"
        " player after her instead.\n"
        "• <b>Stakes</b>: each player puts a chip in the pot, and one more for every life lost;"
        " the winner takes it. /leaderboard keeps everyone's chips.\n"
        "• <b>One-card Kille</b>: the Swedish Kille deck's 42 cards instead of the 52, with their"
        " powers (/rules tells them); Kings block and Coucou's Queens rest meanwhile.\n"
        "• <b>Fast turns</b>: running out of time also costs a life at the reveal.\n"
        "• <b>Turn time</b>: the seconds each player has to decide.\n"
        "• <b>Name</b>: Cuckoo, Chase the Ace or Ranter-Go-Round, the game's regional names (the"
        " same rules): the messages and the call when a King blocks follow it."
    ),
    "setting_lives": "Lives: {value}",
    "setting_max_players": "Max players: {value}",
    "setting_kings_block": "Kings block: {value}",
    "setting_final_tie": "Final tie: {value}",
    "setting_double_cut": "Dealer's double cut: {value}",
    "setting_dealer_stays": "Dealer stays: {value}",
    "setting_queens_block": "Coucou's Queens: {value}",
    "setting_stakes": "Stakes: {value}",
    "setting_kille": "One-card Kille: {value}",
    "setting_fast_turns": "Fast turns: {value}",
    "setting_turn_timeout": "Turn time: {value} s",
    "setting_name": "Name: {value}",
    "value_on": "on",
    "value_off": "off",
    "value_shared": "shared victory",
    "value_sudden_death": "sudden death",
    # The game's names (a group's setting): in titles, and on the setting's key.
    "value_cuckoo": "Cuckoo",
    "value_chase_the_ace": "Chase the Ace",
    "value_ranter_go_round": "Ranter-Go-Round",
    # What a King's holder calls out when they block a swap, by the game's name.
    "call_cuckoo": "Cuckoo!",
    "call_chase_the_ace": "Ace!",
    "call_ranter_go_round": "Cuckoo!",
    "language_prompt": "Choose the language:",
    # -- the command menu (setMyCommands; plain text, at most 256 characters) ------------------
    "cmd_newgame": "Open a new game lobby",
    "cmd_join": "Join the lobby",
    "cmd_leave": "Leave the lobby or the game",
    "cmd_startgame": "Start the game",
    "cmd_cancel": "Cancel the game",
    "cmd_skip": "Skip the turn of a player gone quiet (creator, admins)",
    "cmd_kick": "Take a quiet player out of the game (creator, admins)",
    "cmd_leaderboard": "League table (add 'global' for all groups)",
    "cmd_history": "The last games here (a number: that game round by round)",
    "cmd_rules": "The rules",
    "cmd_settings": "House rules (admins)",
    "cmd_language": "Change the language",
    "cmd_help": "What I can do",
    "cmd_start": "Receive your cards here",
    "cmd_stats": "Your record",
    # -- the live table (Mini App page): plain text, no HTML --
    # The label of the key that opens the page from the chat.
    "btn_open_table": "🃏 Open the table",
    # The page gets every web_ text without its prefix and fills the {name} fields itself.
    "web_title": "🃏 {name}",
    # The game's name on the live table's title (the group's setting).
    "web_name_cuckoo": "Cuckoo",
    "web_name_chase_the_ace": "Chase the Ace",
    "web_name_ranter_go_round": "Ranter-Go-Round",
    "web_loading": "Laying out the table…",
    "web_round": "Round {round}",
    "web_pot": "💰 Pot: {n}",
    "web_your_turn": "Your turn!",
    "web_turn_of": "{name}'s turn",
    "web_seconds": "{seconds} s",
    "web_prompt": "Keep your card, or swap it with {name}?",
    "web_prompt_dealer": "You deal: keep your card, or cut one from the deck?",
    "web_prompt_cut_again": "Cut once more, or keep this card?",
    "web_keep": "✋ Keep",
    "web_swap": "🔄 Swap",
    "web_cut": "✂️ Cut",
    "web_wait_reveal": "The reveal comes when everyone has played.",
    # What a seat did this round, under its name.
    "web_playing": "⏳ playing",
    "web_acted_keep": "✋ kept",
    "web_acted_timeout": "⏱ time ran out: kept",
    "web_acted_swap": "🔄 swapped with {target}",
    "web_acted_blocked": "👑 blocked by {target}'s King",
    # {card}: the card shown ("Q♥", "🏠 Inn"); {sign}: 👸 before a Queen, ↪️ before a Kille card.
    "web_acted_queen_blocked": "{sign} blocked by {target}'s {card}",
    "web_acted_struck": "⚔️ struck by {target}'s {card}: a life at the reveal",
    "web_acted_stopped": "🐦 stopped by {target}'s {card}: the round ends",
    # An ask sent on by a Queen (Kille: an Inn, a Cavalier): before how it ended, after " · ".
    "web_acted_via": "{sign} sent on by {via}'s {card}",
    "web_acted_cut": "✂️ cut from the deck",
    "web_acted_cut_blocked": "👑 cut {card}: blocked",
    "web_dealer": "Dealer",
    # The dealer's chip on the table: one letter.
    "web_dealer_chip": "D",
    "web_you": "You",
    "web_lives": "Lives: {n}",
    "web_out": "💀 out",
    "web_lost": "💔 lost a life",
    # Under a Kille Harlequin face up that changed hands this round.
    "web_spent": "🃏 swapped: lowest",
    # A seat whose player's name is not known.
    "web_player": "Player",
    "web_card_back": "A face-down card",
    "web_spectating": "👀 You are watching: the cards stay hidden until the reveal.",
    "web_reveal": "👀 Cards on the table!",
    "web_reveal_lowest": "Lowest card: {names}",
    "web_next_round": "The next round comes in a moment.",
    "web_won": "🏆 {name} won the game!",
    "web_won_shared": "🏆 {names} won the game together!",
    "web_game_over": "The game is over.",
    "web_podium": "🏅 How it ended",
    "web_play_again": "🔁 Play again",
    "web_lobby": "⏳ Waiting for the game to start…",
    "web_lobby_players": "Players at the table: {count}",
    "web_cancelled": "This game was cancelled.",
    # The connection indicator, and what the page says when it cannot show the table.
    "web_live": "Live",
    "web_reconnecting": "Reconnecting…",
    "web_polling": "Slow connection: checking every few seconds",
    "web_connection_lost": "Connection lost: trying again…",
    "web_expired": "This table was opened a while ago: open it again from the chat.",
    "web_unauthorized": "Telegram could not confirm who you are: open the table from the chat.",
    "web_not_member": "This game belongs to a group you are not in.",
    "web_no_game": "There is no such game.",
    "web_bad_link": "This link names no game: open the table from the chat.",
    "web_error": "Something went wrong: nothing changed. Try again.",
}

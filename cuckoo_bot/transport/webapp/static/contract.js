// The live table's contract, generated from cuckoo_bot/transport/webapp/contract.py
// (python -m cuckoo_bot.transport.webapp.contract): do not edit by hand.

/**
 * A card's face as the page draws it: the page knows no deck, it draws what it is told.
 * @typedef {Object} FaceJson
 * @property {string} label
 * @property {string} corner
 * @property {"C" | "D" | "H" | "S" | ""} suit
 * @property {boolean} red
 * @property {number} pips
 * @property {string} picture
 * @property {"" | "mask" | "flowerpot" | "wreath" | "number" | "inn" | "cavalier" | "pig" | "hussar" | "cuckoo" | "harlequin"} motif
 * @property {string} sign
 */

/**
 * One seat as a viewer may see it.
 * @typedef {Object} SeatJson
 * @property {number} player
 * @property {string} name
 * @property {number} lives
 * @property {boolean} out
 * @property {boolean} dealer
 * @property {"keep" | "swap" | "blocked" | "queen_blocked" | "struck" | "stopped" | "cut" | "cut_blocked" | "timeout" | null} acted
 * @property {number | null} target
 * @property {string | null} shown
 * @property {number | null} via
 * @property {string | null} via_shown
 * @property {string | null} card
 * @property {boolean} spent
 * @property {boolean} lost
 * @property {number | null} place
 */

/**
 * The table as one viewer sees it (``view.as_json``), the same for every page of them.
 * @typedef {Object} TableJson
 * @property {number} game
 * @property {number} version
 * @property {"lobby" | "running" | "finished" | "cancelled"} status
 * @property {number} round
 * @property {number} turn
 * @property {number | null} actor
 * @property {string | null} deadline
 * @property {number} turn_seconds
 * @property {boolean} revealed
 * @property {number | null} viewer
 * @property {Array<"keep" | "swap" | "cut">} options
 * @property {number[]} winners
 * @property {number} max_lives
 * @property {SeatJson[]} seats
 * @property {Object<string, FaceJson>} faces
 * @property {string} lang
 * @property {"cuckoo" | "chase_the_ace" | "ranter_go_round"} name
 * @property {number | null} pot
 * @property {string} rules
 */

/**
 * The table as sent: with the server's time, which the page counts the turn down from.
 * @typedef {Object} TableView
 * @property {number} game
 * @property {number} version
 * @property {"lobby" | "running" | "finished" | "cancelled"} status
 * @property {number} round
 * @property {number} turn
 * @property {number | null} actor
 * @property {string | null} deadline
 * @property {number} turn_seconds
 * @property {boolean} revealed
 * @property {number | null} viewer
 * @property {Array<"keep" | "swap" | "cut">} options
 * @property {number[]} winners
 * @property {number} max_lives
 * @property {SeatJson[]} seats
 * @property {Object<string, FaceJson>} faces
 * @property {string} lang
 * @property {"cuckoo" | "chase_the_ace" | "ranter_go_round"} name
 * @property {number | null} pot
 * @property {string} rules
 * @property {string} now
 */

/**
 * What the page receives: the view, and the page's texts in the game's language (in an
 * @typedef {Object} PageView
 * @property {number} game
 * @property {number} version
 * @property {"lobby" | "running" | "finished" | "cancelled"} status
 * @property {number} round
 * @property {number} turn
 * @property {number | null} actor
 * @property {string | null} deadline
 * @property {number} turn_seconds
 * @property {boolean} revealed
 * @property {number | null} viewer
 * @property {Array<"keep" | "swap" | "cut">} options
 * @property {number[]} winners
 * @property {number} max_lives
 * @property {SeatJson[]} seats
 * @property {Object<string, FaceJson>} faces
 * @property {string} lang
 * @property {"cuckoo" | "chase_the_ace" | "ranter_go_round"} name
 * @property {number | null} pot
 * @property {string} rules
 * @property {string} now
 * @property {Object<string, string>} [strings]
 */

export {};

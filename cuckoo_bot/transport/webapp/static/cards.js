// @ts-check
/* The cards as SVG, built only from a validated card code (the only markup the page builds
 * from strings), the card back, and the hearts of a seat's lives. */

// -- cards ---------------------------------------------------------------------------------------

export const RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"];
export const SUITS = {
  C: { symbol: "♣", red: false },
  D: { symbol: "♦", red: true },
  H: { symbol: "♥", red: true },
  S: { symbol: "♠", red: false },
};
export const RED = "#d0312d";
export const BLACK = "#1b1c20";

// Suit shapes in a 20 x 20 box, drawn rather than typed: every font draws them alike.
export const SUIT_PATHS = {
  H: "M10 18.5C9 17.6 1 12.4 1 6.6 1 3.6 3.3 1.5 6 1.5c1.8 0 3.3 1 4 2.5.7-1.5 2.2-2.5 4-2.5 2.7 0 5 2.1 5 5.1 0 5.8-8 11-9 11.9z",
  D: "M10 1 18 10 10 19 2 10z",
  S: "M10 1C8.6 3 2 7.6 2 12c0 2.5 2 4.2 4.2 4.2 1.4 0 2.5-.6 3.1-1.5-.2 1.8-1 3.2-2.3 4.3h6c-1.3-1.1-2.1-2.5-2.3-4.3.6.9 1.7 1.5 3.1 1.5 2.2 0 4.2-1.7 4.2-4.2 0-4.4-6.6-9-8-11z",
  C: "M10 1.2a4.3 4.3 0 0 0-3.3 7.1A4.3 4.3 0 1 0 9.2 15c-.2 1.7-1 3-2.2 4h6c-1.2-1-2-2.3-2.2-4a4.3 4.3 0 1 0 2.5-6.7A4.3 4.3 0 0 0 10 1.2z",
};

// Pip layouts for 2..10: [column (-1 left, 0 middle, 1 right), row from 0 (top) to 1].
export const PIPS = {
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
export function parseCard(code) {
  const m = /^(A|[2-9]|10|J|Q|K)([CDHS])$/.exec(typeof code === "string" ? code : "");
  return m ? { rank: m[1], suit: m[2] } : null;
}

/** The card's name for people: "Q♥". */
export function cardLabel(code) {
  const card = parseCard(code);
  return card ? card.rank + SUITS[card.suit].symbol : "";
}

export function r1(n) {
  return Math.round(n * 10) / 10;
}

export function pip(suit, cx, cy, size, flip) {
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
export function cardSvg(code) {
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
export function backSvg() {
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

export const HEART = "M10 18.5C9 17.6 1 12.4 1 6.6 1 3.6 3.3 1.5 6 1.5c1.8 0 3.3 1 4 2.5.7-1.5 2.2-2.5 4-2.5 2.7 0 5 2.1 5 5.1 0 5.8-8 11-9 11.9z";

export function heartSvg(kind) {
  return '<svg class="heart ' + kind + '" viewBox="0 0 20 20" aria-hidden="true"><path d="' +
    HEART + '"/></svg>';
}

#!/usr/bin/env node
// An example adapter for `arbitro conform` (docs/conformance.md): a small Escoba engine of its
// own, written from escoba-es's book, speaking the adapter protocol on stdin/stdout.
//
//   arbitro conform escoba-es --games 20 -- node adapters/escoba.js
//
// It plays the book as written (options and overrides are not read): three cards each, one at a
// time from the player on the dealer's right; four face up, an opening 15 or 30 swept by the
// dealer's side; play passes to the right (seat s - 1); a card that can make 15 must take;
// three more each whenever the hands are empty; the last capturer takes what is left.
//
// An action it refuses is answered with a bug report in arbitro's notation (docs/protocol.md,
// notation): `refused MOVE in POSITION`, the move and the position line of the state it was
// tried in, which `arbitro show POSITION` draws and arbitro's `explain` judges.
"use strict";

const SUITS = "ocbe";
const RANKS = ["1", "2", "3", "4", "5", "6", "7", "S", "C", "R"];
const VALUE = { 1: 1, 2: 2, 3: 3, 4: 4, 5: 5, 6: 6, 7: 7, S: 8, C: 9, R: 10 };
const SETENTA = ["7", "6", "1", "5", "4", "3", "2"]; // best first; the figures come after, alike
const TARGET = 21;

const rank = (c) => c.slice(0, -1);
const suit = (c) => c.slice(-1);
const key = (c) => SUITS.indexOf(suit(c)) * 10 + RANKS.indexOf(rank(c));
const sorted = (cards) => [...cards].sort((a, b) => key(a) - key(b));
const sum = (cards) => cards.reduce((t, c) => t + VALUE[rank(c)], 0);

let g = null; // the hand being played

function start(req) {
  const n = req.players;
  const right = (s) => (s - 1 + n) % n;
  const order = [...req.order];
  const first = right(req.dealer);
  g = { n, sides: req.sides, right, hands: [], piles: [], escobas: [], last: null,
    dealer: req.dealer, layout: req.layout, hand: 0 }; // a hand number is not sent: 0
  for (let s = 0; s < n; s++) g.hands.push([]);
  for (let s = 0; s < req.sides; s++) { g.piles.push([]); g.escobas.push(0); }
  dealRound(order, first);
  g.table = order.splice(0, 4);
  g.stock = order;
  g.toMove = first;
  g.totals = req.scores;
  const total = sum(g.table);
  if (total === 15 || total === 30) { // the opening sweep
    const side = req.dealer % g.sides;
    g.piles[side].push(...g.table);
    g.escobas[side] += total / 15;
    g.last = side;
    g.table = [];
  }
  return report();
}

function dealRound(order, first) {
  for (let k = 0; k < 3; k++) {
    for (let i = 0, s = first; i < g.n; i++, s = g.right(s)) g.hands[s].push(order.shift());
  }
}

function groups(need, table) { // every group of table cards adding up to `need`
  const out = [];
  const walk = (i, left, taken) => {
    if (left === 0 && taken.length) out.push(sorted(taken));
    for (let j = i; j < table.length; j++) {
      const v = VALUE[rank(table[j])];
      if (v <= left) walk(j + 1, left - v, [...taken, table[j]]);
    }
  };
  walk(0, need, []);
  return out;
}

function legal() {
  const seat = g.toMove;
  const out = [];
  for (const card of sorted(g.hands[seat])) {
    const found = groups(15 - VALUE[rank(card)], g.table);
    for (const grp of found) out.push({ seat, card, capture: grp });
    if (!found.length) out.push({ seat, card, capture: [] });
  }
  return out;
}

// The notation (docs/protocol.md, notation): cards run together ("-" for none), lists per seat
// or side joined by "/", numbers by ","; a move is seat@card, then x and the cards it takes.
const cards = (xs) => xs.join("") || "-";
const moveText = (a) => `${a.seat}@${a.card}` + (a.capture.length ? "x" + cards(sorted(a.capture)) : "");
const DEALS = { 2: 6, 3: 4, 4: 3 }; // deals in a hand, three cards each (Desarrollo del juego)

function positionLine() { // the hand in play; its last_hand is "-" (none is scored yet here)
  const deal = DEALS[g.n] - g.stock.length / (g.n * 3);
  return ["escoba", g.n, g.sides, g.layout || "_", "play", g.dealer, g.toMove, g.hand, deal,
    g.hands.map((h) => cards(sorted(h))).join("/"), cards(sorted(g.table)), cards(g.stock),
    g.piles.map((p) => cards(sorted(p))).join("/"), g.escobas.join(","), g.last ?? "-",
    g.totals.join(","), "-"].join(" ");
}

function apply(action) {
  const seat = g.toMove;
  const ok = legal().some((a) => a.card === action.card &&
    JSON.stringify(a.capture) === JSON.stringify(sorted(action.capture)));
  if (!ok || action.seat !== seat) {
    const wellFormed = typeof action.card === "string" && Array.isArray(action.capture);
    const what = wellFormed ? moveText(action) : JSON.stringify(action);
    throw new Error(over() ? `refused ${what}: the hand is over` : `refused ${what} in ${positionLine()}`);
  }
  g.hands[seat].splice(g.hands[seat].indexOf(action.card), 1);
  const side = seat % g.sides;
  if (action.capture.length) {
    for (const c of action.capture) g.table.splice(g.table.indexOf(c), 1);
    g.piles[side].push(...action.capture, action.card);
    g.last = side;
    if (!g.table.length) g.escobas[side] += 1;
  } else {
    g.table.push(action.card);
  }
  g.toMove = g.right(seat);
  if (g.hands.every((h) => !h.length)) {
    if (g.stock.length) dealRound(g.stock, g.toMove);
    else if (g.last !== null) { g.piles[g.last].push(...g.table); g.table = []; }
  }
  return report();
}

const over = () => g.hands.every((h) => !h.length) && !g.stock.length;

function report() {
  const out = {
    hands: g.hands.map(sorted), table: sorted(g.table), stock: [...g.stock],
    piles: g.piles.map(sorted), escobas: [...g.escobas], last_capturer: g.last,
  };
  if (over()) out.ended = true; else out.to_move = g.toMove;
  return out;
}

function sole(values) { // the side with the most, or null on a tie at the top
  const top = Math.max(...values);
  return values.filter((v) => v === top).length === 1 ? values.indexOf(top) : null;
}

function setenta(pile) { // best card of each suit as places in the order, best first; or null
  const best = [];
  for (const s of SUITS) {
    const places = pile.filter((c) => suit(c) === s)
      .map((c) => (SETENTA.includes(rank(c)) ? SETENTA.indexOf(rank(c)) : SETENTA.length));
    if (!places.length) return null;
    best.push(Math.min(...places));
  }
  return best.sort((a, b) => a - b);
}

function score() {
  const cats = g.piles.map(() => ({ cards: 0, oros: 0, velo: 0, setenta: 0, escobas: 0 }));
  const w1 = sole(g.piles.map((p) => p.length));
  if (w1 !== null) cats[w1].cards = 1;
  const w2 = sole(g.piles.map((p) => p.filter((c) => suit(c) === "o").length));
  if (w2 !== null) cats[w2].oros = 1;
  g.piles.forEach((p, side) => {
    cats[side].velo = p.includes("7o") ? 1 : 0;
    cats[side].escobas = g.escobas[side];
  });
  const sets = g.piles.map(setenta);
  const cmp = (a, b) => { for (let i = 0; i < 4; i++) if (a[i] !== b[i]) return b[i] - a[i]; return 0; };
  const shown = sets.filter((x) => x !== null);
  if (shown.length) {
    const top = shown.reduce((a, b) => (cmp(a, b) >= 0 ? a : b));
    const at = sets.map((x, i) => (x !== null && cmp(x, top) === 0 ? i : -1)).filter((i) => i >= 0);
    if (at.length === 1) cats[at[0]].setenta = 1;
  }
  const scores = cats.map((c) => c.cards + c.oros + c.velo + c.setenta + c.escobas);
  const totals = g.totals.map((t, i) => t + scores[i]);
  const top = Math.max(...totals);
  const winner = top >= TARGET ? sole(totals) : null;
  return { scores, categories: cats, totals, winner };
}

function answer(req) {
  switch (req.op) {
    case "hello": return { protocol: "arbitro-adapter/1", engine: "example escoba engine (node)" };
    case "start": return start(req);
    case "legal": return legal();
    case "apply": return apply(req.action);
    case "score": return score();
    case "quit": return "bye";
    default: throw new Error(`unknown op ${req.op}`);
  }
}

let buffered = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => {
  buffered += chunk;
  let nl;
  while ((nl = buffered.indexOf("\n")) >= 0) {
    const line = buffered.slice(0, nl);
    buffered = buffered.slice(nl + 1);
    if (!line.trim()) continue;
    const req = JSON.parse(line);
    let out;
    try {
      out = { id: req.id, ok: true, result: answer(req) };
    } catch (e) {
      out = { id: req.id, ok: false, error: { type: "illegal-action", message: e.message } };
    }
    process.stdout.write(JSON.stringify(out) + "\n");
    if (req.op === "quit") process.exit(0);
  }
});

"""The one HTML page of ``training.viewer`` (plain HTML, CSS and JavaScript; no files fetched from
elsewhere). It talks to the server's JSON API only; every card it shows comes from the server's
scene of the chosen point of view, laid over the picture as elements carrying ``data-name`` (the
card's name, face-up cards only), ``data-region`` and ``data-seat``.

In a live game the scene's targets lie over the picture as transparent buttons (``button.target``,
``data-actions``: the moves a click there may make, with the move's key as a small label): a click
makes the move, or, where several moves start at the same card (a gap card that fits both piles),
marks the card and offers the second click (``button.then``, ``data-action``). Escape or a second
click on the marked card takes the choice back. The move buttons (``#actions button.action``,
``data-action``, ``data-key``) stay for keyboard users, and a move's key typed into ``#move-key``
makes it too."""

PAGE = r"""<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>keine_ahnung_env viewer</title>
<style>
  body { font-family: system-ui, sans-serif; margin: 0; background: #f3f1ea; color: #1c1c22; }
  header { background: #1c5638; color: white; padding: 10px 18px; }
  header h1 { margin: 0; font-size: 20px; }
  main { display: flex; gap: 18px; padding: 14px 18px; align-items: flex-start; }
  nav { width: 330px; flex: none; }
  section.box { background: white; border: 1px solid #d4cfc0; border-radius: 8px; padding: 10px 12px; margin-bottom: 14px; }
  h2 { font-size: 16px; margin: 2px 0 8px; }
  #replay-list { list-style: none; padding: 0; margin: 0; max-height: 420px; overflow-y: auto; overflow-x: hidden; }
  #replay-list button { width: 100%; text-align: left; margin: 2px 0; padding: 4px 6px; font-size: 12px;
                        background: #f8f7f2; border: 1px solid #ddd; border-radius: 4px; cursor: pointer;
                        overflow-wrap: anywhere; white-space: normal; }
  #replay-list .replay-name { font-weight: 600; display: block; }
  #replay-list .replay-info { color: #444; display: block; }
  #replay-list .unfinished { color: #8a4b00; font-weight: 600; }
  #replay-list button:hover { background: #e9f3ec; }
  label { display: block; font-size: 13px; margin: 6px 0 2px; }
  select, input { font-size: 13px; padding: 3px; width: 100%; box-sizing: border-box; }
  button.go { margin-top: 10px; padding: 6px 14px; font-size: 14px; background: #1c5638; color: white;
              border: none; border-radius: 5px; cursor: pointer; }
  #stage { flex: 1; min-width: 0; }
  #board { position: relative; display: inline-block; line-height: 0; }
  #board img { display: block; }
  #board .card { position: absolute; box-sizing: border-box; border-radius: 6px; }
  #board .card:hover { outline: 2px solid #ffd640; }
  #board button.target, #board button.then { position: absolute; box-sizing: border-box; padding: 0; margin: 0;
    background: transparent; border: 2px solid transparent; border-radius: 6px; cursor: pointer; z-index: 2; }
  #board button.target:hover, #board button.then:hover { border-color: #ffd640; background: rgba(255, 214, 64, 0.18); }
  #board button.target.chosen { border-color: #ffd640; background: rgba(255, 214, 64, 0.3); }
  #board button.then { z-index: 3; border: 2px dashed #ffd640; }
  #board .key { position: absolute; left: 50%; bottom: -7px; transform: translateX(-50%); line-height: 12px;
    font: 10px/12px ui-monospace, monospace; background: rgba(28, 28, 34, 0.85); color: white; padding: 0 3px;
    border-radius: 3px; pointer-events: none; white-space: nowrap; }
  #board.no-keys .key { display: none; }
  kbd { font: 11px ui-monospace, monospace; background: #1c1c22; color: white; border-radius: 3px; padding: 0 3px;
        margin-right: 4px; }
  #controls { margin: 8px 0; display: flex; gap: 6px; align-items: center; flex-wrap: wrap; }
  #controls button { padding: 4px 10px; }
  #caption { font-weight: 600; margin: 6px 0; }
  #actions { display: flex; flex-wrap: wrap; gap: 5px; margin: 8px 0; }
  #actions button { padding: 5px 9px; font-size: 13px; background: #fff8d8; border: 1px solid #c9a93a;
                    border-radius: 4px; cursor: pointer; }
  #actions button:hover { background: #ffe98a; }
  #error { color: #a00; font-weight: 600; white-space: pre-wrap; }
  pre { background: white; border: 1px solid #ddd; padding: 8px; font-size: 12px; white-space: pre-wrap; }
  #log { font-size: 12px; max-height: 180px; overflow-y: auto; }
  .hidden { display: none; }
</style>
</head>
<body>
<header><h1>keine_ahnung_env viewer</h1></header>
<main>
<nav>
  <section class="box">
    <h2>Replays</h2>
    <div id="replay-folder" style="font-size:12px;color:#555"></div>
    <ul id="replay-list"></ul>
  </section>
  <section class="box">
    <h2>Play against bots</h2>
    <label for="game">game</label><select id="game"></select>
    <label for="players">players</label><select id="players"></select>
    <label for="seat">your seat</label><select id="seat"></select>
    <label for="bots">bots (one per other seat, comma-separated)</label><input id="bots">
    <div id="bot-names" style="font-size:11px;color:#555;margin-top:3px"></div>
    <label for="seed">deal (seed, empty: random)</label><input id="seed" inputmode="numeric">
    <button class="go" id="start">Start a game</button>
  </section>
</nav>
<div id="stage">
  <div id="error" role="alert"></div>
  <div id="replay-panel" class="hidden">
    <h2 id="replay-title"></h2>
    <div id="controls">
      <label for="view" style="display:inline;margin:0">view</label>
      <select id="view" style="width:auto"></select>
      <button id="first">|&lt;</button><button id="prev">&lt; prev</button>
      <span id="move"></span>
      <button id="next">next &gt;</button><button id="last">&gt;|</button>
    </div>
  </div>
  <div id="play-panel" class="hidden">
    <h2 id="play-title"></h2>
    <div id="status"></div>
    <div id="hint" style="font-size:12px;color:#444;margin:4px 0">Click a highlighted card to make a move
      (a card of your layout to reveal it, a pile to place on it, a hand card to play it), or use the move
      buttons. <label style="display:inline"><input type="checkbox" id="show-keys" checked
      style="width:auto"> keys on the cards</label></div>
    <div id="actions"></div>
    <label for="move-key" style="display:inline">or type a move's key:</label>
    <input id="move-key" autocomplete="off" style="width:110px" placeholder="e.g. r0, then Enter">
  </div>
  <div id="caption"></div>
  <div id="board"></div>
  <div id="result" style="font-size:18px;font-weight:700;margin:8px 0"></div>
  <div id="log-box" class="hidden"><h2>What happened</h2><ol id="log"></ol></div>
  <h2 id="observation-title" class="hidden">What this seat knows (its observation)</h2>
  <pre id="observation" class="hidden"></pre>
</div>
</main>
<script>
"use strict";
const $ = (id) => document.getElementById(id);
let games = [];
let current = null;   // {kind: "replay", name, move, moves, players} or {kind: "play", id}
let busy = false;
let legalMoves = [];  // the live game's legal moves: {id, name, key}

async function api(method, url, body) {
  const options = {method, headers: {}};
  if (body !== undefined) { options.headers["Content-Type"] = "application/json"; options.body = JSON.stringify(body); }
  const response = await fetch(url, options);
  const data = await response.json();
  if (!response.ok) throw new Error(data.error || ("HTTP " + response.status));
  return data;
}

function showError(error) { $("error").textContent = error ? String(error.message || error) : ""; }

function drawBoard(data) {
  const board = $("board");
  board.replaceChildren();
  const img = document.createElement("img");
  img.id = "picture"; img.src = data.picture; img.width = data.width; img.height = data.height;
  img.alt = data.view_label;
  board.appendChild(img);
  for (const card of data.cards) {
    const el = document.createElement("div");
    el.className = "card";
    el.style.left = card.x + "px"; el.style.top = card.y + "px";
    el.style.width = card.w + "px"; el.style.height = card.h + "px";
    el.dataset.region = card.region;
    el.dataset.seat = card.seat === null ? "" : String(card.seat);
    el.dataset.faceUp = card.face_up ? "1" : "0";
    if (card.name !== null) { el.dataset.name = card.name; el.title = card.name; }
    else { el.title = "face down"; }
    if (card.mark) el.dataset.mark = card.mark;
    board.appendChild(el);
  }
  if (data.targets) drawTargets(data.targets);
  const obs = data.observation;
  for (const id of ["observation", "observation-title"]) $(id).classList.toggle("hidden", !obs);
  $("observation").textContent = obs || "";
}

// ---------------------------------------------------------------- replays
async function loadReplays() {
  const data = await api("GET", "/api/replays");
  $("replay-folder").textContent = data.replays.length ? "folder: " + data.folder :
    "no replays in " + data.folder + " (record some with --record DIR)";
  const list = $("replay-list");
  list.replaceChildren();
  for (const r of data.replays) {
    const li = document.createElement("li");
    const b = document.createElement("button");
    b.className = "replay"; b.dataset.name = r.name; b.title = r.name;
    const name = document.createElement("span");
    name.className = "replay-name"; name.textContent = r.name;
    b.appendChild(name);
    const info = document.createElement("span");
    info.className = "replay-info";
    info.textContent = r.error ? "unreadable" :
      `${r.env}, ${r.players} players, ${r.moves} moves (${r.agents.join(", ")})`;
    if (!r.error) {
      b.dataset.finished = r.finished ? "1" : "0";
      if (!r.finished) {
        const mark = document.createElement("span");
        mark.className = "unfinished"; mark.textContent = "unfinished: ";
        mark.title = "the game stopped before its end";
        info.prepend(mark);
      }
    }
    b.appendChild(info);
    b.addEventListener("click", () => openReplay(r.name, r.players));
    li.appendChild(b); list.appendChild(li);
  }
}

async function openReplay(name, players) {
  current = {kind: "replay", name, move: 0, moves: 0, players};
  const view = $("view");
  view.replaceChildren();
  for (const [value, text] of [["public", "the table (public)"], ["all", "all cards"],
       ...Array.from({length: players}, (_, p) => ["seat:" + p, "seat " + p])]) {
    const o = document.createElement("option"); o.value = value; o.textContent = text; view.appendChild(o);
  }
  $("replay-panel").classList.remove("hidden"); $("play-panel").classList.add("hidden");
  $("log-box").classList.add("hidden"); $("result").textContent = "";
  await showMove(0);
}

async function showMove(move) {
  if (!current || current.kind !== "replay") return;
  try {
    const q = new URLSearchParams({move: String(move), view: $("view").value});
    const data = await api("GET", `/api/replays/${encodeURIComponent(current.name)}?${q}`);
    current.move = data.move; current.moves = data.moves;
    $("replay-title").textContent = `${data.title}: ${data.name}`;
    $("move").textContent = `position ${data.move} / ${data.moves}`;
    $("move").dataset.move = String(data.move);
    $("caption").textContent = data.caption;
    drawBoard(data);
    showError(null);
  } catch (e) { showError(e); }
}

// ---------------------------------------------------------------- live games
function fillPlayForm() {
  const g = games.find((x) => x.env === $("game").value);
  if (!g) return;
  const players = $("players");
  const keep = Number(players.value) || g.default_players;
  players.replaceChildren();
  for (let p = g.min_players; p <= g.max_players; p++) {
    const o = document.createElement("option"); o.value = String(p); o.textContent = String(p); players.appendChild(o);
  }
  players.value = String(keep >= g.min_players && keep <= g.max_players ? keep : g.default_players);
  fillSeats();
  $("bot-names").textContent = "bots: " + g.bots.join(", ");
}

function fillSeats() {
  const g = games.find((x) => x.env === $("game").value);
  const n = Number($("players").value);
  const seat = $("seat");
  seat.replaceChildren();
  for (let p = 0; p < n; p++) {
    const o = document.createElement("option"); o.value = String(p); o.textContent = "seat " + p; seat.appendChild(o);
  }
  $("bots").value = Array(n - 1).fill(g.default_bot).join(",");
}

async function startGame() {
  const body = {env: $("game").value, players: Number($("players").value), seat: Number($("seat").value),
                bots: $("bots").value.split(",").map((s) => s.trim()).filter((s) => s)};
  const seed = $("seed").value.trim();
  if (seed !== "") body.seed = /^\d+$/.test(seed) ? Number(seed) : seed;
  try {
    const state = await api("POST", "/api/play", body);
    current = {kind: "play", id: state.id};
    $("replay-panel").classList.add("hidden"); $("play-panel").classList.remove("hidden");
    showState(state);
    showError(null);
  } catch (e) { showError(e); }
}

function showState(state) {
  $("play-title").textContent = `${state.title}, ${state.players} players: you are seat ${state.seat}`;
  $("play-panel").dataset.gameId = state.id;
  $("play-panel").dataset.moves = String(state.moves);
  $("status").dataset.base = state.over ? "game over" :
    (state.to_act === state.seat ? "your move: click a card or a move below." : `seat ${state.to_act} to act`);
  $("status").textContent = $("status").dataset.base;
  $("status").dataset.over = state.over ? "1" : "0";
  $("caption").textContent = state.agents.map((a, p) => `seat ${p}: ${a}`).join(" | ");
  const actions = $("actions");
  actions.replaceChildren();
  legalMoves = state.legal;
  for (const a of state.legal) {
    const b = document.createElement("button");
    b.className = "action"; b.dataset.action = String(a.id); b.dataset.key = a.key; b.dataset.name = a.name;
    const key = document.createElement("kbd"); key.textContent = a.key;
    b.append(key, a.name);
    b.title = `${a.name} (key ${a.key})`;
    b.addEventListener("click", () => act(a.id));
    actions.appendChild(b);
  }
  $("move-key").disabled = !state.legal.length;
  $("hint").classList.toggle("hidden", !state.legal.length);
  $("log-box").classList.remove("hidden");
  const log = $("log");
  log.replaceChildren();
  for (const line of state.log) { const li = document.createElement("li"); li.textContent = line; log.appendChild(li); }
  log.scrollTop = log.scrollHeight;
  $("result").textContent = state.over ? `${state.result} Scores: ` +
    state.scores.map((s, p) => `seat ${p}${p === state.seat ? " (you)" : ""}: ${s}`).join(", ") : "";
  drawBoard(state);
}

// Clicking the cards: the scene's targets as buttons over the picture. Targets sharing their first box
// are one button; a click makes its move, or (several moves there) marks it and offers their second box.
function boxButton(box, cls) {
  const b = document.createElement("button");
  b.className = cls; b.type = "button"; b.tabIndex = -1;  // keyboard users have the move buttons
  b.style.left = box.x + "px"; b.style.top = box.y + "px";
  b.style.width = box.w + "px"; b.style.height = box.h + "px";
  $("board").appendChild(b);
  return b;
}

function keyLabel(button, text) {
  if (!text) return;
  const k = document.createElement("span"); k.className = "key"; k.textContent = text;
  button.appendChild(k);
}

function commonPrefix(words) {
  let prefix = words[0] || "";
  for (const w of words) while (!w.startsWith(prefix)) prefix = prefix.slice(0, -1);
  return prefix;
}

function moveOf(id) { return legalMoves.find((a) => a.id === id) || {id, name: String(id), key: ""}; }

function drawTargets(targets) {
  const groups = new Map();
  for (const t of targets) {
    if (!legalMoves.some((a) => a.id === t.action)) continue;
    const where = [t.x, t.y, t.w, t.h].join(",");
    if (!groups.has(where)) groups.set(where, []);
    groups.get(where).push(t);
  }
  for (const group of groups.values()) {
    const moves = group.map((t) => moveOf(t.action));
    const b = boxButton(group[0], "target");
    b.dataset.actions = group.map((t) => t.action).join(" ");
    b.title = moves.map((m) => `${m.key}: ${m.name}`).join(" / ");
    b.setAttribute("aria-label", b.title);
    keyLabel(b, moves.length === 1 ? moves[0].key : commonPrefix(moves.map((m) => m.key)));
    b.addEventListener("click", () => clickTarget(group, b));
  }
}

function clearChoice() {
  for (const el of document.querySelectorAll("#board button.then, #board .choice")) el.remove();
  for (const el of document.querySelectorAll("#board button.chosen")) el.classList.remove("chosen");
}

function clickTarget(group, button) {
  if (busy) return;
  if (group.length === 1) { act(group[0].action); return; }
  const again = button.classList.contains("chosen");
  clearChoice();
  if (again) { showStatusHint(""); return; }
  button.classList.add("chosen");
  for (const t of group) {
    const move = moveOf(t.action);
    // The second click: the box of each move's second part (the pile), or the move named beside the card.
    const b = t.then ? boxButton(t.then, "then") :
      boxButton({x: t.x, y: t.y + t.h + 4 + 24 * group.indexOf(t), w: Math.max(t.w, 90), h: 22}, "then choice");
    if (!t.then) b.textContent = move.name;
    b.dataset.action = String(t.action);
    b.title = `${move.key}: ${move.name}`;
    b.setAttribute("aria-label", b.title);
    keyLabel(b, t.then ? move.key : "");
    b.addEventListener("click", () => act(t.action));
  }
  showStatusHint("Now click where it goes (Escape: choose again).");
}

function showStatusHint(text) { $("status").dataset.hint = text; $("status").textContent =
  $("status").dataset.base + (text ? " " + text : ""); }

async function act(action) {
  if (busy || !current || current.kind !== "play") return;
  busy = true;
  for (const b of document.querySelectorAll("#actions button, #board button")) b.disabled = true;
  try {
    showState(await api("POST", `/api/play/${encodeURIComponent(current.id)}/act`, {action}));
    showError(null);
  } catch (e) {
    showError(e);
    for (const b of document.querySelectorAll("#actions button, #board button")) b.disabled = false;
  }
  finally { busy = false; }
}

// ---------------------------------------------------------------- start
$("first").addEventListener("click", () => showMove(0));
$("prev").addEventListener("click", () => showMove(Math.max(0, current.move - 1)));
$("next").addEventListener("click", () => showMove(Math.min(current.moves, current.move + 1)));
$("last").addEventListener("click", () => showMove(current.moves));
$("view").addEventListener("change", () => showMove(current.move));
$("game").addEventListener("change", fillPlayForm);
$("players").addEventListener("change", fillSeats);
$("start").addEventListener("click", startGame);
$("show-keys").addEventListener("change", () => $("board").classList.toggle("no-keys", !$("show-keys").checked));
$("move-key").addEventListener("keydown", (e) => {
  if (e.key !== "Enter") return;
  const typed = $("move-key").value.trim();
  const move = legalMoves.find((a) => a.key === typed || a.key.toLowerCase() === typed.toLowerCase());
  if (move) { $("move-key").value = ""; act(move.id); }
  else showError(`no move '${typed}' now; moves: ${legalMoves.map((a) => a.key).join(" ")}`);
});
document.addEventListener("keydown", (e) => {
  if (e.key === "Escape" && document.querySelector("#board button.chosen")) { clearChoice(); showStatusHint(""); }
  if (!current || current.kind !== "replay" || e.target.tagName === "INPUT") return;
  if (e.key === "ArrowRight") $("next").click();
  if (e.key === "ArrowLeft") $("prev").click();
});

(async () => {
  try {
    const listing = await api("GET", "/api/games");
    games = listing.games;
    for (const g of games) {
      const o = document.createElement("option"); o.value = g.env; o.textContent = g.title; $("game").appendChild(o);
    }
    if (listing.default) $("game").value = listing.default;
    fillPlayForm();
    await loadReplays();
    document.body.dataset.ready = "1";
  } catch (e) { showError(e); }
})();
</script>
</body>
</html>
"""

// experiments.serve, the Play page: the setup form, then one seat of a game.
// The server owns the game; this page shows the seat's view it sends and posts moves.
"use strict";

let config = null;      // /api/config
let game = null;        // {id, token}
let view = null;        // the last view of the seat
let selected = [];      // cards or tiles clicked in the picture
let busy = false;       // a request or the opponents' moves are under way
let quitting = false;   // Quit was clicked: the opponents' loop stops, a second click does nothing
let gone = false;       // the server no longer has the game (dropped when idle): controls off
let wantsFocus = false; // the keyboard was on the moves: focus goes back to them on the next turn
const THINKING_AFTER_MS = 500;  // an opponent's move not come by then: the status says it is being chosen
// while the game is live and this page waits on nothing, its view is asked for this often
// (answered 304 while unchanged): a move made in another tab of the game shows here
const FOLLOW_MS = 2000;
let following = null;   // the timer of follow()
let polling = false;    // a follow() request is under way
let changing = null;    // this page's latest move, undo or ask for an opponent's move (its promise): a quit crossing it

const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);

// ------------------------------------------------------------ the setup form
function optionInput(field) {
  const id = `opt-${field.name}`;
  const choices = config.choices[field.name];
  let input;
  if (choices) {
    input = el("select", { id, name: field.name }, ...choices.map((c) => el("option", { value: c, text: c })));
    input.value = field.default;
  } else if (field.type === "bool") {
    input = el("input", { id, name: field.name, type: "checkbox" });
    input.checked = !!field.default;
  } else if (field.type.startsWith("int")) {
    input = el("input", { id, name: field.name, type: "number", value: field.default ?? "", placeholder: field.default === null ? "none" : "" });
  } else {
    input = el("input", { id, name: field.name, type: "text", value: field.default ?? "" });
  }
  input.dataset.type = field.type;
  input.dataset.default = JSON.stringify(field.default);
  return [el("label", { for: id, text: field.name }), input];
}

function readOptions() {
  const out = {};
  for (const input of $("options").querySelectorAll("input, select")) {
    const type = input.dataset.type;
    let value;
    if (input.type === "checkbox") value = input.checked;
    else if (type.startsWith("int")) value = input.value === "" ? null : Number(input.value);
    else value = input.value;
    if (JSON.stringify(value) !== input.dataset.default) out[input.name] = value;
  }
  return out;
}

function seatCount() {
  const v = config.variants[$("variant").value];
  const n = $("opt-num_players");
  if (n && n.value !== "") return Number(n.value);
  const field = v.options.find((f) => f.name === "num_players");
  return field ? field.default : 2;
}

function fillSeats() {
  const n = seatCount();
  const seat = $("seat");
  const keep = seat.value;
  seat.replaceChildren(...Array.from({ length: n }, (_, i) => el("option", { value: `player_${i}`, text: `player_${i}` })));
  if (keep && Number(keep.split("_")[1]) < n) seat.value = keep;
  const agents = config.variants[$("variant").value].agents;
  const box = $("opponents");
  const previous = Array.from(box.querySelectorAll("select")).map((s) => s.value);
  box.replaceChildren(el("legend", { text: "opponents" }));
  let k = 0;
  for (let i = 0; i < n; i++) {
    if (`player_${i}` === seat.value) continue;
    const s = el("select", { id: `opp-${k}`, name: `player_${i}` }, ...agents.map((a) => el("option", { value: a, text: a })));
    s.value = previous[k] && agents.includes(previous[k]) ? previous[k] : (agents.includes("heuristic") ? "heuristic" : agents[0]);
    box.append(el("label", { for: `opp-${k}`, text: `player_${i}` }), s);
    k++;
  }
}

function fillVariant() {
  const v = config.variants[$("variant").value];
  const box = $("options");
  box.replaceChildren(el("legend", { text: "options of env()" }));
  for (const f of v.options) box.append(...optionInput(f));
  const n = $("opt-num_players");
  if (n) n.addEventListener("change", fillSeats);
  fillSeats();
}

// the seed as typed: Number() rounds an integer past 2**53 (the server's bound), and the
// server's refusal would name another number than the one typed
function seedValue(text) {
  const digits = text.trim().replace(/^0+(?=\d)/, "");
  if (/^\d+$/.test(digits) && typeof JSON.rawJSON === "function") return JSON.rawJSON(digits);
  return Number(text);
}

async function start(event) {
  event.preventDefault();
  showError("");
  const opponents = Array.from($("opponents").querySelectorAll("select")).map((s) => s.value);
  const body = { variant: $("variant").value, options: readOptions(), seat: $("seat").value, opponents };
  if ($("seed").value !== "") body.seed = seedValue($("seed").value);
  $("start").disabled = true;
  try {
    const made = await api("POST", "/api/games", body);
    game = { id: made.id, token: made.token };
    sessionStorage.setItem(`game:${made.id}`, made.token);
    history.replaceState(null, "", `/play?game=${made.id}&speed=${$("speed").value}`);
    show(made.view);
    await opponentsMove();
  } catch (err) {
    showError(err.message);
  } finally {
    $("start").disabled = false;
  }
}

// ------------------------------------------------------------------ the game
function signed(x) {
  const text = String(Number(x.toFixed(3)));  // -0.3333333333333333 as -0.333, 1 as 1
  return x > 0 ? `+${text}` : text;
}

function status(v) {
  if (v.status !== "playing") {
    const entries = Object.entries(v.returns || {});
    const results = entries.map(([a, r]) => `${a} (${v.labels[a]}) ${signed(r)}`);
    if (v.status === "quit") return `game abandoned: ${results.join(", ")}`;
    // the game's winners: the best result, when not everyone has it (R-CRAZY-13's lowest total, ...)
    const best = Math.max(...entries.map(([, r]) => r));
    const winners = entries.filter(([, r]) => r === best).map(([a]) => `${a} (${v.labels[a]})`);
    const won = entries.length && winners.length < entries.length ? `won by ${winners.join(" and ")}` : "no winner";
    return `game over, ${won}: ${results.join(", ")}`;
  }
  if (v.thinking) return `${v.thinking.agent} (${v.thinking.label}) is choosing its move… (${v.thinking.seconds} s)`;
  return v.your_turn ? `your turn (${v.seat})` : `${v.to_act} (${v.labels[v.to_act]}) is to move…`;
}

// the record a dropped game's message names ("... play/NAME.jsonl on the Replays page"), as a link
function linkRecord(message) {
  const record = /play\/\S+\.jsonl/.exec(message);
  if (record) {
    $("error").append(" ", el("a", { href: `/replay?record=${encodeURIComponent(record[0])}`, id: "gone-record", text: "open it" }));
  }
}

// the game's controls off: it is over on the server's side (dropped while idle)
function disableGame() {
  gone = true;
  for (const b of $("game").querySelectorAll("button")) if (b.id !== "new") b.disabled = true;
  for (const hit of $("table").querySelectorAll("rect.hit")) hit.removeAttribute("tabindex");
}

// a failed request: 404 the game is gone (its record linked when saved), 409 / 422 the
// view was stale (another tab moved, the game ended): shown again from the server.
// Returns whether it was a 409 while an opponent chooses the move another tab asked for:
// no error, the view says who is choosing, and the page waits for that move; or, for
// this page's own ask for an opponent's move (`advancing`), a 409 because another tab
// moved the game on first: no error either, the page goes on from the new view
async function failed(err, advancing = false) {
  const stale = view;
  let fresh = null;
  if (err.status === 409 || err.status === 422) {
    try { fresh = await api("GET", `/api/games/${game.id}`, undefined, game.token); } catch (e) { /* the error is shown */ }
  }
  const waiting = !!(err.status === 409 && fresh && fresh.thinking);
  // a 409 of a game that ended meanwhile (quit in another tab while this one waited for an
  // opponent's move): the view's status says so, and no error happened here
  const ended = !!(err.status === 409 && fresh && fresh.status !== "playing");
  const movedOn = !!(advancing && err.status === 409 && fresh && fresh.version !== stale.version);
  if (!waiting && !ended && !movedOn) showError(err.message);
  if (fresh) show(fresh, false);
  if (err.status === 404) {
    disableGame();
    linkRecord(err.message);
  }
  return waiting || movedOn;
}

// the view polled while the game is live and this page waits on nothing (its turn, in
// another tab's hands, or a failed request's): an unchanged game answers 304 and nothing is
// redrawn (a selection being made stays); a changed one is shown (the moves of the other
// tab, the opponents' then made by this page too); stops when the game ended or is gone.
// Not while the tab is hidden (in the background, minimized): nobody sees what a poll would
// show; it polls at once when shown again (visibilitychange below)
function follow() {
  if (following === null) following = setInterval(followTick, FOLLOW_MS);
}

async function followTick() {
  if (gone || view.status !== "playing") {
    clearInterval(following);
    following = null;
    return;
  }
  if (busy || quitting || polling || document.visibilityState === "hidden") return;
  polling = true;
  const before = view;
  let fresh = null;
  try {
    // a view of an opponent thinking is no version's whole view: its seconds count (no ETag)
    const etag = before.thinking ? undefined : `"${before.version}"`;
    fresh = await api("GET", `/api/games/${game.id}`, undefined, game.token, etag);
  } catch (err) {
    if (err.status === 404 && view === before && !gone) await failed(err);  // dropped: said, controls off
    // another failure (the network, the server stopping): the next tick asks again
  } finally {
    polling = false;
  }
  // null: unchanged.  A request of this page answered meanwhile: its view is the newer one
  if (fresh === null || view !== before || busy || quitting || gone) return;
  if (fresh.version === before.version && !fresh.thinking && !before.thinking) return;
  show(fresh);
  await opponentsMove();
}

// the tab shown again: the game as it is now, at once, and the next poll FOLLOW_MS after it
document.addEventListener("visibilitychange", () => {
  if (document.visibilityState === "hidden" || following === null) return;
  clearInterval(following);
  following = null;
  follow();
  followTick();
});

// the opponent's move this page asked for: once it has not come within THINKING_AFTER_MS (a
// search agent thinking for seconds), the status says who is choosing and for how long,
// counted here as the view's "thinking" counts it for a page that did not ask
async function asked(request) {
  const before = view;
  const since = performance.now();
  const thinking = { agent: before.to_act, label: before.labels[before.to_act] };
  const tick = () => {
    if (view !== before || quitting) return;  // the game was quit meanwhile: its status stays
    const seconds = Math.round((performance.now() - since) / 100) / 10;
    $("status").textContent = status({ ...before, thinking: { ...thinking, seconds } });
  };
  let timer = setTimeout(() => { tick(); timer = setInterval(tick, 100); }, THINKING_AFTER_MS);
  try {
    return await request;
  } finally {
    clearTimeout(timer);
    clearInterval(timer);
    // no move came (a 500, the network): the status says again what the view says, not
    // "is choosing its move" with seconds that no longer count
    if (view === before && !quitting) $("status").textContent = status(view);
  }
}

function show(v, clear = true) {
  // after Quit, a view of the game still in play is an opponent's move that crossed it
  if (gone || (quitting && v.status === "playing")) return;
  // a view answered after a newer one (a refused hint's and a poll's requests crossed while
  // another tab played on): the game has passed it
  if (view && v.version < view.version) return;
  view = v;
  selected = [];
  if (clear) showError("");  // a new view: an earlier error is out of date
  // a keyboard user's focus was on a control this redraw replaces: it goes to the new moves
  const focused = document.activeElement;
  if (focused && ($("moves").contains(focused) || $("table").contains(focused))) wantsFocus = true;
  $("setup").hidden = true;
  $("game").hidden = false;
  $("status").textContent = status(v);
  $("status").className = "status" + (v.your_turn ? " yours" : "");
  $("table").innerHTML = v.svg;
  for (const hit of $("table").querySelectorAll("rect.hit")) {
    // the picture draws suits as shapes: each clickable card is a named button for the keyboard and screen readers
    hit.setAttribute("role", "button");
    hit.setAttribute("tabindex", "0");
    hit.setAttribute("aria-label", hit.dataset.card);
    hit.setAttribute("aria-pressed", "false");
    hit.addEventListener("click", () => clickCard(hit));
    hit.addEventListener("keydown", (e) => {
      if (e.key === "Enter" || e.key === " ") { e.preventDefault(); clickCard(hit); }
    });
  }
  $("hand-text").textContent = v.hand && v.hand.length ? `your hand: ${v.hand.join(" ")}` : "";
  $("moves").replaceChildren(
    ...v.moves.map((m) => el("button", { type: "button", class: "move", "data-action": m.action, onclick: () => play(m.action) }, m.text)),
  );
  if (wantsFocus && v.moves.length) {  // the opponents' views in between have no moves: wait for one
    $("moves").querySelector("button.move").focus();
    wantsFocus = false;
  }
  const last = v.events[v.events.length - 1];
  $("last-event").textContent = last ? `${last.agent} (${last.who}): ${last.text}` : "";
  $("hint").disabled = !v.your_turn;
  // only Rummikub builds a play over several moves; the other variants' moves are final
  $("undo").hidden = v.variant !== "rummikub_v0";
  $("undo").disabled = !v.can_undo;
  $("quit").disabled = v.status !== "playing" || quitting;
  $("hint-text").textContent = "";
  $("selection").textContent = "";
  const events = $("events");
  events.replaceChildren(
    ...v.events.map((e) =>
      el("li", { class: e.hand_over ? "hand-over" : null, value: e.step + 1 }, `${e.agent} (${e.who}): ${e.text}` + (e.hand_over ? ` — hand ${e.hand_over} over` : "")),
    ),
  );
  events.scrollTop = events.scrollHeight;
  showResult(v);
  if (v.status === "playing") follow();
}

function showResult(v) {
  const box = $("result");
  const r = v.hand_result;
  if (!r && v.status === "playing") { box.hidden = true; return; }
  box.hidden = false;
  box.replaceChildren();
  if (r) {
    box.append(el("h3", { text: r.title }));
    for (const line of r.lines) box.append(el("p", { text: line }));
    const rows = v.players.map((a) => el("tr", {}, el("td", { text: `${a} (${v.labels[a]})` }), el("td", { class: "num", text: r.scores[a] }), el("td", { class: "num", text: r.totals[a] })));
    box.append(el("table", { class: "data" }, el("tr", {}, el("th", { text: "seat" }), el("th", { text: "hand" }), el("th", { text: "total" })), ...rows));
  }
  if (v.status !== "playing") {
    box.append(el("p", { class: "status", id: "game-over", text: status(v) }));
    if (v.record) {
      const name = `play/${v.record}`;
      box.append(el("p", {}, "record saved: ", el("a", { href: `/replay?record=${encodeURIComponent(name)}`, id: "record-link", text: name })));
    } else if (v.record_error) {
      box.append(el("p", { class: "muted", id: "record-error", text: v.record_error }));
    }
  }
}

function clickCard(hit) {
  if (busy || gone || !view.your_turn) return;
  const card = hit.dataset.card;
  const i = selected.indexOf(card);
  if (i >= 0) selected.splice(i, 1); else selected.push(card);
  // a move that names exactly the cards clicked and is the only one naming them all is played at once
  const matches = view.moves.filter((m) => selected.length && selected.every((c) => m.cards.includes(c)));
  const exact = matches.filter((m) => m.cards.length === selected.length);
  if (matches.length === 1 && exact.length === 1) { play(exact[0].action); return; }
  for (const h of $("table").querySelectorAll("rect.hit")) {
    h.classList.toggle("selected", selected.includes(h.dataset.card));
    h.setAttribute("aria-pressed", String(selected.includes(h.dataset.card)));
  }
  for (const b of $("moves").querySelectorAll("button.move")) {
    b.classList.toggle("match", matches.some((m) => String(m.action) === b.dataset.action));
  }
  $("selection").textContent = selected.length ? `selected ${selected.join(" ")}: ${matches.length} move(s) use them` : "";
}

async function play(action) {
  if (busy || gone) return;
  busy = true;
  $("hint").disabled = true;  // a hint asked now would answer after the move: not your turn any more
  showError("");
  try {
    // the view's version: a move chosen from a view another tab has played past is refused (409)
    changing = api("POST", `/api/games/${game.id}/move`, { action, version: view.version }, game.token);
    show(await changing);
  } catch (err) {
    await failed(err);
  }
  busy = false;
  await opponentsMove();
}

async function opponentsMove(retries = 1) {
  if (busy || gone) return;
  busy = true;
  let stale = false;
  while (view.status === "playing" && !view.your_turn && !quitting) {
    // an opponent still choosing the move another request asked for (this page reloaded
    // meanwhile): its view is polled until the move is made, not asked for a second move
    await sleep(view.thinking ? Math.max(500, Number($("speed").value)) : Number($("speed").value));
    if (quitting) break;
    try {
      if (view.thinking) show(await api("GET", `/api/games/${game.id}`, undefined, game.token));
      else {
        changing = api("POST", `/api/games/${game.id}/advance`, { version: view.version }, game.token);
        show(await asked(changing));
      }
    } catch (err) {
      // quit while an opponent's move was on its way: the game is over, not in error
      if (quitting && err.status === 409) break;
      // another tab asked for this opponent's move first (each of its moves, in a run of
      // them): the view says who is choosing, and it is polled as above, however often;
      // or it was made already: this page goes on from the view after it
      if (await failed(err, true)) continue;
      stale = err.status === 409 || err.status === 422;
      break;
    }
  }
  busy = false;
  // the view reloaded after a refusal may have the opponents to move: go on with them
  if (stale && retries > 0) await opponentsMove(retries - 1);
}

async function hint() {
  if (busy || gone || !view.your_turn) return;
  const before = view;
  try {
    const h = await api("POST", `/api/games/${game.id}/hint`, { version: view.version }, game.token);
    if (view !== before) return;  // a move was made meanwhile: the hint was for the decision before
    $("hint-text").textContent = `the heuristic would play: ${h.text}`;
    for (const b of $("moves").querySelectorAll("button.move")) b.classList.toggle("hinted", b.dataset.action === String(h.action));
  } catch (err) {
    await failed(err);
    // the view it showed may have an opponent to move (another tab played your move): the
    // polls would answer 304 while nothing asks for that move
    await opponentsMove();
  }
}

async function undo() {
  if (busy || gone) return;
  busy = true;
  showError("");
  try {
    changing = api("POST", `/api/games/${game.id}/undo`, { version: view.version }, game.token);
    show(await changing);
  } catch (err) {
    await failed(err);
  }
  busy = false;
  await opponentsMove();  // a refused undo's view may have an opponent to move, as after a hint's
}

async function quit() {
  if (quitting || gone) return;
  quitting = true;
  $("quit").disabled = true;
  const mine = changing;
  try {
    // the view's version: a quit clicked on a view another tab has played past is refused (409)
    const url = `/api/games/${game.id}/quit`;
    const sent = view.version;
    try {
      show(await api("POST", url, { version: sent }, game.token));
    } catch (err) {
      // this page's own move, undo or ask for an opponent's move was played just before the
      // quit came (its answer crossed it): the game moved on by this page's doing, not another
      // tab's, and the quit is asked again from that answer's view (a 409 again if another tab
      // played too)
      const moved = err.status === 409 && mine ? await mine.catch(() => null) : null;
      if (!moved || moved.version <= sent) throw err;
      show(await api("POST", url, { version: moved.version }, game.token));
    }
  } catch (err) {
    // not quit by this click: the game goes on (a 409 of a stale view, a 500, the network),
    // or it is over already (a 409 too: failed() shows it over, Quit off); 404: it is gone
    if (err.status !== 404) {
      quitting = false;
      $("quit").disabled = false;
    }
    await failed(err);
    if (!quitting) await opponentsMove();
  }
}

async function init() {
  config = await api("GET", "/api/config");
  const variant = $("variant");
  for (const name of Object.keys(config.variants)) variant.append(el("option", { value: name, text: name }));
  const wanted = params.get("variant") || "gin_rummy_v0";
  if (config.variants[wanted]) variant.value = wanted;
  variant.addEventListener("change", fillVariant);
  $("seat").addEventListener("change", fillSeats);
  fillVariant();
  $("setup-form").addEventListener("submit", start);
  $("hint").addEventListener("click", hint);
  $("quit").addEventListener("click", quit);
  $("undo").addEventListener("click", undo);
  $("new").addEventListener("click", () => { location.href = "/play"; });
  if (params.get("speed") !== null) $("speed").value = params.get("speed");
  $("speed").addEventListener("change", () => {
    if (game) history.replaceState(null, "", `/play?game=${game.id}&speed=${$("speed").value}`);
  });
  const id = params.get("game");
  if (!id) return;
  // the token lives in the sessionStorage of the tab that started the game: another tab,
  // window or browser session never sees it, so the server could not show the game here
  const token = sessionStorage.getItem(`game:${id}`);
  if (!token) {
    showError(
      `game ${id} cannot be shown in this tab: it was started in another tab or browser session, ` +
      "which alone holds its key. Go back to that tab, or start a new game below " +
      "(a game is saved on the Replays page when it ends or is dropped).",
    );
    return;
  }
  game = { id, token };
  try {
    show(await api("GET", `/api/games/${id}`, undefined, token));
    await opponentsMove();
  } catch (err) {
    showError(`${err.message}. Start a new game below.`);
    if (err.status === 404) linkRecord(err.message);
  }
}

init().catch((err) => showError(err.message));

// experiments.serve, the Results page: the tournaments and evaluations under --results,
// then one of them: its tables, the head-to-head heat map, links to its recorded games.
"use strict";

const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);

// a link to the records of this run only (folder: where the run's records are, as the
// server found them): without it the Replay page would list every game of those agents,
// web games and other tournaments' included; a run without records gets no link
function replayLink(variant, agents, text, folder) {
  if (folder === null || folder === undefined) return el("span", { class: "muted", text: "none recorded" });
  const q = new URLSearchParams({ variant });
  for (const a of agents) q.append("agent", a);
  q.set("folder", folder);
  return el("a", { href: `/replay?${q}`, text });
}

function table(cls, head, rows) {
  return el(
    "table",
    { class: `data ${cls}` },
    el("thead", {}, el("tr", {}, ...head.map((h) => el("th", { text: h })))),
    el("tbody", {}, ...rows),
  );
}

function interval(r) {
  return `${fmt(r.win_rate)} [${fmt(r.win_rate_ci_low)}, ${fmt(r.win_rate_ci_high)}]`;
}

// points a hand more than the opponents', paired per deal (+: better), as the job prints it
function margin(r) {
  if (typeof r.points_margin !== "number") return "-";
  const sign = r.points_margin >= 0 ? "+" : "";
  const low = r.points_margin_ci_low, high = r.points_margin_ci_high;
  const half = typeof low === "number" && typeof high === "number" ? `±${fmt((high - low) / 2, 2)}` : "";
  return `${sign}${fmt(r.points_margin, 2)}${half}`;
}

function heatMap(variant, grid, folder) {
  const head = el("tr", {}, el("th", { text: "row vs column" }), ...grid.agents.map((a) => el("th", { text: a })));
  const rows = grid.agents.map((a) =>
    el(
      "tr",
      {},
      el("th", { text: a }),
      ...grid.agents.map((b) => {
        const c = (grid.cells[a] || {})[b];
        if (!c) return el("td", { class: "cell empty", text: "" });
        const td = el("td", {
          class: "cell",
          style: `background: ${heatColour(c.win_rate)}`,
          title: `${a} against ${b}: ${interval(c)}, ${c.games} games, ${c.deals} deals`,
          "data-agent": a,
          "data-opponent": b,
        });
        td.append(folder === null ? fmt(c.win_rate) : replayLink(variant, [a, b], fmt(c.win_rate), folder));
        return td;
      }),
    ),
  );
  return el("table", { class: "data heat", "data-variant": variant }, el("thead", {}, head), el("tbody", {}, ...rows));
}

function showTournament(box, run) {
  const meta = run.meta || {};
  box.append(
    el("p", { class: "muted", text: `${meta.games ?? "?"} games · seed ${meta.seed ?? "?"} · options ${JSON.stringify(meta.env_options || {})} · ${meta.seconds ?? "?"} s` + (meta.partial ? " · partial (stopped early)" : "") }),
    el("h2", { text: "win rates (95% Wilson intervals over deals)" }),
    table(
      "summary",
      ["variant", "agent", "games", "win rate [95% CI]", "draws", "points/hand", "rating", "games recorded"],
      run.summary.map((r) =>
        el(
          "tr",
          {},
          el("td", { text: r.variant }),
          el("td", { text: r.agent }),
          el("td", { class: "num", text: r.games }),
          el("td", { class: "num", text: interval(r) }),
          el("td", { class: "num", text: r.draws ?? "" }),
          el("td", { class: "num", text: fmt(r.points_per_hand, 2) }),
          el("td", { class: "num", text: fmt(r.rating, 2) }),
          el("td", {}, replayLink(r.variant, [r.agent], "replays", run.records_folder)),
        ),
      ),
    ),
  );
  box.append(el("h2", { text: "head to head: the row agent's win rate against the column agent" }));
  const cellLinks = run.records_folder === null ? "" : " · a cell links to the recorded games of the pair";
  box.append(el("p", { class: "muted" }, "0 ", el("span", { class: "legend" }), ` 1${cellLinks}`));
  for (const [variant, grid] of Object.entries(run.heat_maps)) {
    box.append(el("h3", { text: variant }), heatMap(variant, grid, run.records_folder));
  }
  if (run.games.length) {
    box.append(el("h2", { text: `recorded games (${run.games.length})` }));
    box.append(
      table(
        "games",
        ["variant", "lineup", "deal", "rotation", "seats", "returns", "replay"],
        run.games.map((g) =>
          el(
            "tr",
            {},
            el("td", { text: g.variant }),
            el("td", { text: g.lineup }),
            el("td", { class: "num", text: g.deal }),
            el("td", { class: "num", text: g.rotation }),
            el("td", { text: g.seats.join(", ") }),
            el("td", { text: g.returns.join(", ") }),
            el("td", {}, el("a", { href: `/replay?record=${encodeURIComponent(g.record)}`, class: "record", text: g.record })),
          ),
        ),
      ),
    );
  } else {
    box.append(el("p", { class: "muted", text: "no recorded games of this tournament under the server's --records (python -m experiments.tournament --record DIR)" }));
  }
}

function showEvaluation(box, run) {
  const e = run.evaluation;
  box.append(
    el("p", { text: `${e.agent} on ${e.variant}: panel mean ${fmt(e.panel_mean)}, lowest ${fmt(e.panel_min)} (against ${e.panel_min_opponent}), fair share ${fmt(e.fair_share)}; ${e.games} games, ${e.deals} deals per opponent` }),
    table(
      "evaluation",
      ["opponent", "games", "deals", "wins", "draws", "win rate [95% CI]", "points/hand", "opponent points/hand", "margin ±95%"],
      (e.rows || []).map((r) =>
        el(
          "tr",
          {},
          el("td", { text: r.opponent }),
          el("td", { class: "num", text: r.games }),
          el("td", { class: "num", text: r.deals }),
          el("td", { class: "num", text: fmt(r.wins, 1) }),
          el("td", { class: "num", text: r.draws }),
          el("td", { class: "num", style: `background: ${heatColour(r.win_rate)}`, text: interval(r) }),
          el("td", { class: "num", text: fmt(r.points_per_hand, 2) }),
          el("td", { class: "num", text: fmt(r.opponent_points_per_hand, 2) }),
          el("td", { class: "num", text: margin(r) }),
        ),
      ),
    ),
    // experiments.evaluate records no games: a link would list other jobs' games of the pair
    el("p", { class: "muted", text: "an evaluation records no games (python -m experiments.tournament --record DIR does)" }),
  );
}

async function showRun(name) {
  const run = await api("GET", `/api/results/run?name=${encodeURIComponent(name)}`);
  $("runs-section").hidden = true;
  const box = $("run");
  box.hidden = false;
  box.replaceChildren(el("p", {}, el("a", { href: "/results", text: "all results" })), el("h1", { text: `${run.kind}: ${name}` }));
  if (run.kind === "tournament") showTournament(box, run);
  else showEvaluation(box, run);
  for (const img of run.images) {
    box.append(el("h2", { text: img.split("/").pop() }), el("img", { class: "figure", src: `/api/results/image?name=${encodeURIComponent(img)}`, alt: img }));
  }
}

async function init() {
  if (params.get("run")) { await showRun(params.get("run")); return; }
  const data = await api("GET", "/api/results");
  const body = $("runs").querySelector("tbody");
  body.replaceChildren(
    ...data.runs.map((r) =>
      el("tr", {}, el("td", {}, el("a", { href: `/results?run=${encodeURIComponent(r.name)}`, class: "run", text: r.title })), el("td", { class: "muted", text: r.name })),
    ),
  );
  if (!data.runs.length) body.append(el("tr", {}, el("td", { colspan: 2, class: "muted", text: "no summary.json or evaluation.json under the server's --results" })));
}

init().catch((err) => showError(err.message));

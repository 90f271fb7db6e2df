// experiments.serve, the Replay page: the records under --records (or an upload), then
// one record step by step: slider, buttons, arrow keys, Home/End, the move list.
"use strict";

const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);
let source = null;   // "record=NAME" or "upload=ID" (query string of the replay API)
let meta = null;     // /api/replays/meta
let wanted = 0;      // the step asked for last (older answers are dropped)

async function listRecords() {
  const q = new URLSearchParams();
  if (params.get("variant")) q.set("variant", params.get("variant"));
  for (const a of params.getAll("agent")) q.append("agent", a);
  if (params.get("folder") !== null) q.set("folder", params.get("folder"));
  const filter = [params.get("variant"), ...params.getAll("agent")].filter(Boolean);
  const folder = params.get("folder");
  if (folder !== null) filter.push(folder ? `in ${folder}/` : "in the top folder");
  $("filter").textContent = filter.length ? `records of ${filter.join(", ")} (` : "";
  if (filter.length) $("filter").append(el("a", { href: "/replay", text: "all records" }), ")");
  const data = await api("GET", `/api/records?${q}`);
  const body = $("records").querySelector("tbody");
  body.replaceChildren(
    ...data.records.map((r) =>
      el(
        "tr",
        {},
        el("td", {}, el("a", { href: `/replay?record=${encodeURIComponent(r.name)}`, class: "record", text: r.name })),
        el("td", { text: r.variant }),
        el("td", { text: r.agents.join(" vs ") }),
        el("td", { text: new Date(r.mtime * 1000).toLocaleString() }),
      ),
    ),
  );
  if (!data.records.length) body.append(el("tr", {}, el("td", { colspan: 4, class: "muted", text: "no records here" })));
}

async function upload() {
  const file = $("upload-file").files[0];
  if (!file) { showError("choose a record file (.jsonl) first"); return; }
  showError("");
  try {
    // a type no other site's page may send without a CORS preflight (the server checks it)
    const body = new Blob([file], { type: "application/octet-stream" });
    const data = await api("POST", "/api/uploads", body);
    history.pushState(null, "", `/replay?upload=${data.upload}`);
    await openReplay(`upload=${encodeURIComponent(data.upload)}`, data, `uploaded: ${file.name}`);
  } catch (err) {
    showError(err.message);
  }
}

async function openReplay(query, known, title) {
  source = query;
  meta = known || (await api("GET", `/api/replays/meta?${query}`));
  $("list").hidden = true;
  $("viewer").hidden = false;
  $("title").textContent = title || meta.name;
  const agents = meta.players.map((p, i) => `${p} ${meta.agents[i] || ""}`);
  $("subtitle").textContent = `${meta.variant} ${JSON.stringify(meta.options)} · ${agents.join(", ")} · ${meta.steps} moves`;
  const seat = $("seat");
  seat.replaceChildren(el("option", { value: "all", text: "all hands open" }), ...meta.players.map((p) => el("option", { value: p, text: `${p}'s view` })));
  seat.value = params.get("seat") && meta.players.includes(params.get("seat")) ? params.get("seat") : "all";
  $("slider").max = meta.steps;
  $("movelist").replaceChildren(
    el("li", { value: 0, "data-step": 0, onclick: () => go(0), text: "the deal" }),
    ...meta.moves.map((m) => el("li", { value: m.step, "data-step": m.step, onclick: () => go(m.step), text: `${m.agent}: ${m.text}` })),
  );
  if (meta.end) {
    const returns = Object.entries(meta.end.returns).map(([a, r]) => `${a} ${r}`).join(", ");
    $("end").textContent = `record ends (${meta.end.status}): returns ${returns}`;
  }
  await go(0);
}

async function go(step) {
  step = Math.max(0, Math.min(meta.steps, step));
  wanted = step;
  $("slider").value = step;
  $("step-label").textContent = `step ${step} / ${meta.steps}`;
  for (const li of $("movelist").children) li.classList.toggle("current", Number(li.dataset.step) === step);
  const current = $("movelist").querySelector("li.current");
  if (current) current.scrollIntoView({ block: "nearest" });
  try {
    const frame = await api("GET", `/api/replays/frame?${source}&step=${step}&seat=${encodeURIComponent($("seat").value)}`);
    if (frame.step !== wanted) return;
    const many = Object.keys(frame.svgs).length > 1;
    $("frames").className = "frames table" + (many ? " many" : "");
    $("frames").innerHTML = "";
    for (const [agent, svg] of Object.entries(frame.svgs)) {
      const fig = el("figure", {}, el("figcaption", { text: `${agent}'s view` }));
      fig.insertAdjacentHTML("beforeend", svg);
      $("frames").append(fig);
    }
    $("move-now").textContent = frame.move ? `move ${step}: ${frame.move.agent} ${frame.move.text}` : "the deal";
    $("hand").textContent = frame.hand || "";
    $("step-label").textContent = `step ${step} / ${meta.steps}` + (frame.over ? " · game over" : "");
    $("step-label").dataset.step = step;
  } catch (err) {
    showError(err.message);
  }
}

function keys(event) {
  if ($("viewer").hidden || event.target.tagName === "INPUT" && event.target.type !== "range") return;
  const step = Number($("slider").value);
  const moves = { ArrowRight: step + 1, ArrowLeft: step - 1, Home: 0, End: meta.steps, PageDown: step + 10, PageUp: step - 10 };
  if (event.key in moves) { event.preventDefault(); go(moves[event.key]); }
}

async function init() {
  $("upload").addEventListener("click", upload);
  $("slider").addEventListener("input", () => go(Number($("slider").value)));
  $("first").addEventListener("click", () => go(0));
  $("prev").addEventListener("click", () => go(Number($("slider").value) - 1));
  $("next").addEventListener("click", () => go(Number($("slider").value) + 1));
  $("last").addEventListener("click", () => go(meta.steps));
  $("seat").addEventListener("change", () => go(Number($("slider").value)));
  document.addEventListener("keydown", keys);
  if (params.get("record")) await openReplay(`record=${encodeURIComponent(params.get("record"))}`);
  else if (params.get("upload")) await openReplay(`upload=${encodeURIComponent(params.get("upload"))}`);
  else await listRecords();
}

init().catch((err) => showError(err.message));

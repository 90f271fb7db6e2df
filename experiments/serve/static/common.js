// experiments.serve: what the three pages share (the API call, small DOM helpers)
"use strict";

// etag: the If-None-Match of a poll; its 304 (the resource unchanged) returns null
async function api(method, url, body, token, etag) {
  const headers = {};
  let payload;
  if (body !== undefined) {
    if (body instanceof Blob || body instanceof ArrayBuffer) {
      payload = body;
    } else {
      headers["Content-Type"] = "application/json";
      payload = JSON.stringify(body);
    }
  }
  if (token) headers["X-Game-Token"] = token;
  if (etag) headers["If-None-Match"] = etag;
  // no-store: the page, not the browser's cache, compares the versions (a 304 reaches it)
  const response = await fetch(url, { method, headers, body: payload, cache: etag ? "no-store" : "default" });
  if (etag && response.status === 304) return null;
  let data;
  try { data = await response.json(); } catch (e) { data = { error: response.statusText }; }
  if (!response.ok) {
    const err = new Error(data.error || `${response.status} ${response.statusText}`);
    err.status = response.status;
    throw err;
  }
  return data;
}

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else if (k === "text") node.textContent = v;
    else node.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children) if (c !== null && c !== undefined) node.append(c);
  return node;
}

function showError(message) {
  const box = document.getElementById("error");
  if (box) box.textContent = message || "";
}

function fmt(x, digits = 3) {
  return typeof x === "number" ? x.toFixed(digits) : (x === null || x === undefined ? "-" : String(x));
}

// red (0) - yellow (0.5) - green (1), as the tournament's own heat map (RdYlGn)
function heatColour(v) {
  const stops = [[215, 48, 39], [254, 224, 139], [26, 152, 80]];
  const t = Math.max(0, Math.min(1, v)) * 2;
  const [a, b] = t <= 1 ? [stops[0], stops[1]] : [stops[1], stops[2]];
  const f = t <= 1 ? t : t - 1;
  const c = a.map((x, i) => Math.round(x + (b[i] - x) * f));
  return `rgb(${c[0]}, ${c[1]}, ${c[2]})`;
}

function sleep(ms) { return new Promise((resolve) => setTimeout(resolve, ms)); }

// yadk web: the page's controller. Talks google-adk's api_server protocol (/list-apps,
// /apps/{app}/users/{user}/sessions, /run_sse) plus yadk's /dev routes and /dev/events.
import { AgentPanel } from "./agent.js";
import { api, runSse, watchReloads } from "./api.js";
import { Chat } from "./chat.js";
import { h, nextFrame } from "./dom.js";
import { Events } from "./events.js";
import { ReloadView } from "./reload.js";
import { RequestPanel } from "./request.js";
import { StatePanel } from "./state.js";

const $ = (id) => document.getElementById(id);
const enc = encodeURIComponent;

const ui = {
  app: $("app"), user: $("user"), sessions: $("session-list"), message: $("message"), send: $("send"),
  chat: new Chat($("messages")),
  events: new Events($("panel-events")),
  state: new StatePanel($("panel-state"), (delta) => applyState(delta)),
  request: new RequestPanel($("panel-request"), (id) => api(`${requestsPath()}/${enc(id)}`)),
  agent: new AgentPanel($("panel-agent")),
  reload: new ReloadView($("reload"), $("diagnostics"), $("diagnostic-list")),
};

const current = { app: "", session: null, busy: false };

function sessionsPath() {
  return `/apps/${enc(current.app)}/users/${enc(ui.user.value.trim() || "user")}/sessions`;
}

function sessionPath(id = current.session.id) {
  return `${sessionsPath()}/${enc(id)}`;
}

function requestsPath(session = current.session) {
  return `/dev/apps/${enc(current.app)}/users/${enc(session.userId)}/sessions/${enc(session.id)}/requests`;
}

// --- tabs (arrow keys move between them, as the ARIA tabs pattern) ---------------------------
function setupTabs() {
  const tabs = [...document.querySelectorAll("[role=tab]")];
  const select = (tab) => {
    for (const other of tabs) {
      const on = other === tab;
      other.setAttribute("aria-selected", String(on));
      other.tabIndex = on ? 0 : -1;
      $(other.getAttribute("aria-controls")).hidden = !on;
    }
    tab.focus();
  };
  tabs.forEach((tab, i) => {
    tab.addEventListener("click", () => select(tab));
    tab.addEventListener("keydown", (e) => {
      const moves = { ArrowRight: i + 1, ArrowLeft: i - 1, Home: 0, End: tabs.length - 1 };
      if (e.key in moves) {
        e.preventDefault();
        select(tabs[(moves[e.key] + tabs.length) % tabs.length]);
      }
    });
  });
}

// --- sessions --------------------------------------------------------------------------------
async function listSessions(early = null) {
  const sessions = (early && (await early)) || (await api(sessionsPath()));
  sessions.sort((a, b) => (b.lastUpdateTime || 0) - (a.lastUpdateTime || 0));
  ui.sessions.replaceChildren(...sessions.map((s) => h("li", {},
    h("button", { type: "button", "aria-current": current.session && s.id === current.session.id ? "true" : "false", title: s.id, onclick: () => openSession(s.id, true).catch((e) => ui.chat.error(e.message)) }, s.id))));
  return sessions;
}

async function newSession() {
  const session = await api(sessionsPath(), { method: "POST", body: {} });
  return openSession(session.id);
}

async function deleteSession() {
  if (!current.session) return;
  await api(sessionPath(), { method: "DELETE" });
  current.session = null;
  const left = await listSessions();
  if (left.length) await openSession(left[0].id, left);
  else await newSession();
}

async function exportSession() {
  if (!current.session) return;
  const session = await api(sessionPath());
  const blob = new Blob([JSON.stringify(session, null, 2) + "\n"], { type: "application/json" });
  const link = h("a", { href: URL.createObjectURL(blob), download: `${current.app}-${session.id}.json` });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(link.href), 1000);
}

// Opens a session: the conversation first (then the page is usable), the panels after.
async function openSession(id, listed = null) {
  const session = await api(sessionPath(id));
  current.session = session;
  await ui.chat.history(session.events || [], nextFrame);
  markCurrent(listed);
  return { panels: refreshPanels(session) };
}

function markCurrent(listed) {
  if (!listed) {
    listSessions().catch((e) => ui.chat.error(e.message));
    return;
  }
  for (const button of ui.sessions.querySelectorAll("button")) {
    button.setAttribute("aria-current", String(button.title === current.session.id));
  }
}

// --- panels ----------------------------------------------------------------------------------
function lastTurnChanges(events) {
  const last = events.length ? events[events.length - 1].invocationId : null;
  const changed = new Set();
  for (const event of events) {
    if (event.invocationId !== last) continue;
    for (const key of Object.keys((event.actions && event.actions.stateDelta) || {})) changed.add(key);
  }
  return changed;
}

async function refreshPanels(session) {
  const events = session.events || [];
  const rendered = ui.events.show(events);
  let invocations = [];
  try {
    invocations = (await api(requestsPath(session))).invocations;
  } catch (error) {
    ui.request.root.replaceChildren(h("p", { class: "empty" }, `Requests unavailable: ${error.message}`));
  }
  const lastInvocation = events.length ? events[events.length - 1].invocationId : null;
  const last = invocations.find((inv) => inv.invocationId === lastInvocation);
  ui.state.show(session.state || {}, last ? last.tempState : {}, lastTurnChanges(events));
  await Promise.all([rendered, ui.request.show(invocations)]);
}

async function refreshSession() {
  const session = await api(sessionPath());
  current.session = session;
  await refreshPanels(session);
}

async function applyState(delta) {
  await api(sessionPath(), { method: "PATCH", body: { stateDelta: delta } });
  await refreshSession();
}

async function refreshAgent() {
  try {
    ui.agent.show(await api(`/dev/apps/${enc(current.app)}/agent`));
  } catch (error) {
    ui.agent.unavailable(error.message);
  }
  try {
    const found = await api(`/dev/apps/${enc(current.app)}/diagnostics`);
    ui.reload.problems(found.diagnostics);
  } catch {
    // diagnostics are an extra; the page works without them
  }
}

// --- the chat ----------------------------------------------------------------------------------
async function send(text) {
  if (current.busy || !current.session || !text.trim()) return;
  current.busy = true;
  document.body.dataset.busy = "1";
  ui.send.disabled = true;
  ui.chat.user(text);
  const body = {
    appName: current.app,
    userId: current.session.userId,
    sessionId: current.session.id,
    newMessage: { role: "user", parts: [{ text }] },
    streaming: true,
  };
  try {
    await runSse(body, (data) => {
      if (data.error !== undefined && !data.author) ui.chat.error(typeof data.error === "string" ? data.error : JSON.stringify(data.error));
      else ui.chat.event(data);
    });
  } catch (error) {
    ui.chat.error(error.message);
  } finally {
    ui.chat.settle();
    current.busy = false;
    ui.send.disabled = false;
  }
  try {
    await refreshSession();
  } finally {
    document.body.dataset.busy = "0"; // the turn and the panels are done (tests wait for this)
  }
}

function setupComposer() {
  $("composer").addEventListener("submit", (e) => {
    e.preventDefault();
    const text = ui.message.value;
    ui.message.value = "";
    send(text);
  });
  ui.message.addEventListener("keydown", (e) => {
    if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      $("composer").requestSubmit();
    }
  });
}

// --- reloads -----------------------------------------------------------------------------------
function reloadText(result) {
  const files = result.files || [];
  const ms = result.ms ?? result.milliseconds ?? result.durationMs ?? result.duration_ms;
  const what = files.length ? files.map((f) => f.split("/").slice(-2).join("/")).join(", ") : "files";
  const took = ms !== undefined ? ` in ${Math.round(ms)} ms` : "";
  return `${result.app ? result.app + ": " : ""}${what}${took}`;
}

// /dev/events: first {"type": "hello", "apps": [{name, ok, error?, diagnostics?}]}, then one
// result per reload: {app, ok, files, ms, error?, diagnostics?}.
function onReload(result) {
  if (result.type === "hello") {
    const mine = (result.apps || []).find((app) => app.name === current.app);
    if (mine && !mine.ok) ui.reload.failed(`${mine.name} did not load: ${mine.error}`, mine.diagnostics || []);
    return;
  }
  const ok = result.ok === true;
  if (result.app && result.app !== current.app) return;
  if (ok) {
    ui.reload.ok(`reloaded ${reloadText(result)}`);
    refreshAgent();
  } else {
    ui.reload.failed(`reload failed ${reloadText(result)}: the last good agent keeps answering`, result.diagnostics || []);
  }
}

// --- start -------------------------------------------------------------------------------------
// Selects an app; resolves once its newest session is open (the rest keeps loading).
async function selectApp(app, early = null) {
  current.app = app;
  current.session = null;
  const params = new URLSearchParams(location.search);
  params.set("app", app);
  history.replaceState(null, "", `${location.pathname}?${params}`);
  const agent = refreshAgent();
  const sessions = await listSessions(early);
  const opened = sessions.length ? await openSession(sessions[0].id, sessions) : await newSession();
  return { loaded: Promise.all([agent, opened.panels]) };
}

async function start() {
  setupTabs();
  setupComposer();
  $("new-session").addEventListener("click", () => newSession().catch((e) => ui.chat.error(e.message)));
  $("delete-session").addEventListener("click", () => deleteSession().catch((e) => ui.chat.error(e.message)));
  $("export-session").addEventListener("click", () => exportSession().catch((e) => ui.chat.error(e.message)));
  ui.app.addEventListener("change", () => selectApp(ui.app.value).catch((e) => ui.chat.error(e.message)));
  ui.user.addEventListener("change", () => selectApp(current.app).catch((e) => ui.chat.error(e.message)));
  watchReloads(onReload, () => { document.body.dataset.watching = "1"; });
  // The app in the address (the page puts it there) is fetched at once, beside the app list.
  const wanted = new URLSearchParams(location.search).get("app");
  const early = wanted
    ? api(`/apps/${enc(wanted)}/users/${enc(ui.user.value.trim() || "user")}/sessions`).catch(() => null)
    : null;
  const apps = await api("/list-apps");
  ui.app.replaceChildren(...apps.map((name) => h("option", { value: name }, name)));
  const app = apps.includes(wanted) ? wanted : apps[0];
  if (!app) {
    ui.chat.error("No app is served: the folder holds no agent.");
    return;
  }
  ui.app.value = app;
  const selected = await selectApp(app, app === wanted ? early : null);
  ui.message.disabled = false;
  ui.send.disabled = false;
  ui.message.focus();
  performance.mark("yadk-usable");
  document.body.dataset.ready = "1";
  await selected.loaded;
  document.body.dataset.loaded = "1"; // every panel filled in (tests wait for this)
}

start().catch((error) => ui.chat.error(`The page could not start: ${error.message}`));

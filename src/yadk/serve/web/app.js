// yadk web: the page's controller. Talks google-adk's api_server protocol (/list-apps,
// /apps/{app}/users/{user}/sessions, /run_sse) plus yadk's /dev routes and /dev/events.
import { AgentPanel } from "./agent.js";
import { api, download, runSse, watchReloads } from "./api.js";
import { firstOpen } from "./boot.js";
import { Chat } from "./chat.js";
import { h, nextTask } from "./dom.js";
import { Events } from "./events.js";
import { PendingView, pendingCalls } from "./pending.js";
import { ReloadView } from "./reload.js";
import { RequestPanel } from "./request.js";
import { StatePanel } from "./state.js";
import { TracePanel } from "./trace.js";
import { UsagePanel } from "./usage.js";

const $ = (id) => document.getElementById(id);
const enc = encodeURIComponent;

const ui = {
  app: $("app"), user: $("user"), sessions: $("session-list"), message: $("message"), send: $("send"),
  chat: new Chat($("messages")),
  events: new Events($("panel-events"), (event) => openTrace(event)),
  state: new StatePanel($("panel-state"), (delta) => applyState(delta)),
  request: new RequestPanel($("panel-request"), (id) => api(`${requestsPath()}/${enc(id)}`)),
  usage: new UsagePanel($("panel-usage")),
  trace: new TracePanel($("panel-trace")),
  agent: new AgentPanel($("panel-agent")),
  reload: new ReloadView($("reload"), $("diagnostics"), $("diagnostic-list")),
  pending: new PendingView($("pending"), (call, response) => answer(call, response)),
};

// loaded: false while the app has no agent (it failed to load and no fix was saved yet).
const current = { app: "", session: null, busy: false, loaded: true };

function sessionsPath() {
  return `/apps/${enc(current.app)}/users/${enc(ui.user.value.trim() || "user")}/sessions`;
}

function sessionPath(id = current.session.id) {
  return `${sessionsPath()}/${enc(id)}`;
}

function devSessionPath(session = current.session) {
  return `/dev/apps/${enc(current.app)}/users/${enc(session.userId)}/sessions/${enc(session.id)}`;
}

function requestsPath(session = current.session) {
  return `${devSessionPath(session)}/requests`;
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
    if (tab.id === "tab-events") ui.events.reveal();
    if (tab.id === "tab-trace") loadTraces();
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
function showSessions(sessions) {
  sessions.sort((a, b) => (b.lastUpdateTime || 0) - (a.lastUpdateTime || 0));
  ui.sessions.replaceChildren(...sessions.map((s) => h("li", {},
    h("button", { type: "button", "aria-current": current.session && s.id === current.session.id ? "true" : "false", title: s.id, onclick: () => openSession(s.id).catch((e) => ui.chat.error(e.message)) }, s.id))));
  return sessions;
}

async function listSessions() {
  return showSessions(await api(sessionsPath()));
}

async function newSession() {
  const session = await api(sessionsPath(), { method: "POST", body: {} });
  const panels = showSession(session);
  await listSessions();
  return { panels };
}

async function deleteSession() {
  if (!current.session) return;
  await api(sessionPath(), { method: "DELETE" });
  current.session = null;
  const left = await listSessions();
  if (left.length) await openSession(left[0].id);
  else await newSession();
}

async function openSession(id) {
  const session = await api(sessionPath(id));
  const panels = showSession(session);
  markCurrent();
  return { panels };
}

// Shows a session: the conversation first (then the page is usable); returns the promise of
// the panels, which fill in after (it never rejects: a failure is shown in the chat).
function showSession(session) {
  current.session = session;
  ui.chat.history(session.events || []);
  showWaiting(session);
  return refreshPanels(session).catch((error) => ui.chat.error(error.message));
}

// The calls waiting for an answer; and Eval case only once there is a user turn to replay.
function showWaiting(session) {
  const events = session.events || [];
  ui.pending.show(pendingCalls(events));
  $("evalcase-session").disabled = !events.some((e) => e.author === "user" && e.content);
}

function markCurrent() {
  for (const button of ui.sessions.querySelectorAll("button")) {
    button.setAttribute("aria-current", String(button.title === current.session.id));
  }
}

// Export: the `yadk sessions export` document; Eval case: an EvalSet file for `yadk eval`.
async function downloadSession(kind) {
  if (!current.session) return;
  await download(`${devSessionPath()}/${kind}`);
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
  await nextTask(); // the conversation is painted first; the panels follow in tasks of their own
  if (session !== current.session) return; // another session was opened meanwhile
  const events = session.events || [];
  ui.events.show(events);
  let invocations = [];
  try {
    invocations = (await api(requestsPath(session))).invocations;
  } catch (error) {
    ui.request.root.replaceChildren(h("p", { class: "empty" }, `Requests unavailable: ${error.message}`));
  }
  const lastInvocation = events.length ? events[events.length - 1].invocationId : null;
  const last = invocations.find((inv) => inv.invocationId === lastInvocation);
  ui.state.show(session.state || {}, last ? last.tempState : {}, lastTurnChanges(events));
  await ui.request.show(invocations);
  try {
    const usage = await api(`${devSessionPath(session)}/usage`);
    if (session === current.session) ui.usage.show(usage);
  } catch (error) {
    ui.usage.unavailable(error.message);
  }
  if (!$("panel-trace").hidden) await loadTraces();
}

// The Trace tab asks for the session's spans only while it is shown: when it is selected, and
// after each turn while it stays open. One request per session object (each refresh makes one).
let tracesLoad = { session: null, done: null };
function loadTraces() {
  const session = current.session;
  if (!session) return Promise.resolve();
  if (tracesLoad.session === session) return tracesLoad.done;
  const done = api(`${devSessionPath(session)}/traces`).then(
    (traces) => { if (session === current.session) ui.trace.show(traces); },
    (error) => ui.trace.unavailable(error.message));
  tracesLoad = { session, done };
  return done;
}

// An event's "trace" button: the Trace tab, opened at the invocation that produced the event.
async function openTrace(event) {
  $("tab-trace").click();
  await loadTraces();
  ui.trace.open(event);
}

async function refreshSession() {
  const session = await api(sessionPath());
  current.session = session;
  showWaiting(session);
  await refreshPanels(session);
}

async function applyState(delta) {
  await api(sessionPath(), { method: "PATCH", body: { stateDelta: delta } });
  await refreshSession();
}

// The diagnostics first: an app that did not load has no agent tree to ask for.
async function refreshAgent() {
  const app = current.app;
  const found = await refreshDiagnostics();
  if (app !== current.app) return;
  if (found && !found.loaded) {
    ui.agent.unavailable(`${app} did not load: see the diagnostics above.`);
    return;
  }
  try {
    ui.agent.show(await api(`/dev/apps/${enc(app)}/agent`));
  } catch (error) {
    ui.agent.unavailable(error.message);
  }
}

// The diagnostics route names files relative to the served folder: preferred to the copies
// a reload event carries (absolute paths), which are shown only when it cannot be reached.
async function refreshDiagnostics(fallback = null, loaded = true) {
  try {
    const found = await api(`/dev/apps/${enc(current.app)}/diagnostics`);
    current.loaded = found.loaded;
    ui.reload.problems(found.diagnostics, found.loaded);
    return found;
  } catch {
    if (fallback) ui.reload.problems(fallback, loaded);
    return null;
  }
}

// --- the chat ----------------------------------------------------------------------------------
// One turn: newMessage sent through /run_sse, its events streamed into the chat, then the
// session and the panels refreshed.
async function runTurn(newMessage) {
  current.busy = true;
  document.body.dataset.busy = "1";
  ui.send.disabled = true;
  const body = {
    appName: current.app,
    userId: current.session.userId,
    sessionId: current.session.id,
    newMessage,
    streaming: true,
  };
  try {
    await runSse(body, (data) => {
      if (data.error !== undefined && !data.author) ui.chat.error(typeof data.error === "string" ? data.error : JSON.stringify(data.error));
      else {
        ui.chat.event(data);
        if (data.nodeInfo) ui.agent.running(data.nodeInfo.path);
      }
    });
  } catch (error) {
    ui.chat.error(error.message);
  } finally {
    ui.chat.settle();
    ui.agent.running(null);
    current.busy = false;
    ui.send.disabled = false;
  }
  try {
    await refreshSession();
  } finally {
    document.body.dataset.busy = "0"; // the turn and the panels are done (tests wait for this)
  }
}

async function send(text) {
  if (current.busy || !current.session || !text.trim()) return;
  ui.chat.user(text);
  if (!current.loaded) {
    ui.chat.error(`${current.app} is not available: it did not load (see the diagnostics above). Fix the file and save: the page picks it up.`);
    document.body.dataset.busy = "0";
    return;
  }
  await runTurn({ role: "user", parts: [{ text }] });
}

// Answers a long-running call: its function_response resumes the invocation that waits.
async function answer(call, response) {
  if (current.busy || !current.session) throw new Error("a turn is still running");
  const functionResponse = { id: call.id, name: call.name, response };
  ui.pending.show([]);
  ui.chat.answered(functionResponse);
  await runTurn({ role: "user", parts: [{ functionResponse }] });
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
    if (mine && !mine.ok) {
      ui.reload.failed(`${mine.name} did not load`); // the diagnostics below say why
      refreshDiagnostics(mine.diagnostics || [], false);
    }
    return;
  }
  const ok = result.ok === true;
  if (result.app && result.app !== current.app) return;
  if (ok) {
    ui.reload.ok(`reloaded ${reloadText(result)}`);
    refreshAgent();
  } else {
    ui.reload.failed(`reload failed ${reloadText(result)}`); // the diagnostics' heading says more
    refreshDiagnostics(result.diagnostics || []);
  }
}

// --- start -------------------------------------------------------------------------------------
// Opens an app (`wanted`, else the first served) for the user in one request (GET /dev/open:
// the apps, the app's sessions and the newest one with its events). Resolves once the
// conversation is shown, with the promise of everything else.
async function selectApp(wanted) {
  const user = ui.user.value.trim() || "user";
  const early = firstOpen.answer && firstOpen.app === (wanted || "") && firstOpen.user === user;
  const opened = await (early ? firstOpen.answer : api(`/dev/open?${new URLSearchParams({ app: wanted || "", user })}`));
  firstOpen.answer = null; // used once: later selections ask again
  if (ui.app.options.length !== opened.apps.length) {
    ui.app.replaceChildren(...opened.apps.map((name) => h("option", { value: name }, name)));
  }
  if (!opened.app) throw new Error("No app is served: the folder holds no agent.");
  current.app = opened.app;
  current.session = null;
  ui.app.value = opened.app;
  const params = new URLSearchParams(location.search);
  params.set("app", opened.app);
  history.replaceState(null, "", `${location.pathname}?${params}`);
  const agent = refreshAgent();
  let panels;
  if (opened.session) {
    panels = showSession(opened.session);
    showSessions(opened.sessions);
  } else {
    ({ panels } = await newSession());
  }
  return { loaded: Promise.all([agent, panels]) };
}

async function start() {
  setupTabs();
  setupComposer();
  $("new-session").addEventListener("click", () => newSession().catch((e) => ui.chat.error(e.message)));
  $("delete-session").addEventListener("click", () => deleteSession().catch((e) => ui.chat.error(e.message)));
  $("export-session").addEventListener("click", () => downloadSession("export").catch((e) => ui.chat.error(e.message)));
  $("evalcase-session").addEventListener("click", () => downloadSession("evalcase").catch((e) => ui.chat.error(e.message)));
  ui.app.addEventListener("change", () => selectApp(ui.app.value).catch((e) => ui.chat.error(e.message)));
  ui.user.addEventListener("change", () => selectApp(current.app).catch((e) => ui.chat.error(e.message)));
  const selected = await selectApp(new URLSearchParams(location.search).get("app"));
  ui.message.disabled = false;
  ui.send.disabled = false;
  // Focusing needs a layout: done in the next frame, which lays the page out anyway, rather
  // than forced at the end of the task that built the conversation.
  await new Promise((resolve) => requestAnimationFrame(resolve));
  ui.message.focus();
  performance.mark("yadk-usable");
  document.body.dataset.ready = "1";
  // The reload stream holds a connection for good: opened once the page is usable.
  watchReloads(onReload, () => { document.body.dataset.watching = "1"; });
  await selected.loaded;
  document.body.dataset.loaded = "1"; // every panel filled in (tests wait for this)
}

start().catch((error) => ui.chat.error(`The page could not start: ${error.message}`));

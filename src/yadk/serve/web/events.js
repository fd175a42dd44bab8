// The Events panel: the session's timeline, each event expandable to its JSON. Only the newest
// PAGE events are put in the page at first (a long session opens without a long task); a button
// above them adds the earlier ones, PAGE at a time.
import { h, jsonBlock, lazyDetails, scrollToEnd, short, time } from "./dom.js";

const PAGE = 100;

function badges(event) {
  const found = [];
  const parts = (event.content && event.content.parts) || [];
  const text = parts.filter((p) => p.text).map((p) => p.text).join("");
  for (const part of parts) {
    if (part.functionCall) found.push(h("span", { class: "badge call" }, `call ${part.functionCall.name}`));
    if (part.functionResponse) found.push(h("span", { class: "badge response" }, `response ${part.functionResponse.name}`));
  }
  if ((event.longRunningToolIds || []).length) found.push(h("span", { class: "badge pending" }, "long-running"));
  const actions = event.actions || {};
  const delta = Object.keys(actions.stateDelta || {});
  if (delta.length) found.push(h("span", { class: "badge state" }, `state Δ ${delta.join(", ")}`));
  const artifacts = Object.keys(actions.artifactDelta || {});
  if (artifacts.length) found.push(h("span", { class: "badge artifact" }, `artifact Δ ${artifacts.join(", ")}`));
  if (actions.transferToAgent) found.push(h("span", { class: "badge transfer" }, `transfer → ${actions.transferToAgent}`));
  if (actions.escalate) found.push(h("span", { class: "badge escalate" }, "escalate"));
  if (event.errorCode) found.push(h("span", { class: "badge error" }, event.errorCode));
  if (text) found.push(h("span", { class: "excerpt" }, short(text, 90)));
  return found;
}

function row(event, onTrace) {
  const trace = onTrace && event.invocationId
    ? h("button", { type: "button", class: "trace-link", title: "Open this event's invocation in the Trace tab", "aria-label": `trace of ${event.author || "event"} event`, onclick: () => onTrace(event) }, "trace")
    : null;
  return h("li", { "data-event-id": event.id || "" },
    lazyDetails([h("time", {}, time(event.timestamp)), h("span", { class: "author" }, event.author || "?"), ...badges(event)],
      () => jsonBlock(event)), trace);
}

function rows(events, onTrace) {
  const fragment = document.createDocumentFragment();
  for (const event of events) fragment.append(row(event, onTrace));
  return fragment;
}

export class Events {
  // onTrace(event): opens the trace of the event's invocation.
  constructor(root, onTrace = null) {
    this.root = root;
    this.onTrace = onTrace;
    this.events = [];
    this.first = 0; // index of the oldest event in the page
    this.pinned = true; // keep the newest event in view until the user scrolls up
    root.addEventListener("scroll", () => {
      if (!root.hidden) this.pinned = root.scrollTop + root.clientHeight >= root.scrollHeight - 4;
    });
  }

  show(events) {
    this.events = events;
    if (!events.length) {
      this.list = null;
      this.root.replaceChildren(h("p", { class: "empty" }, "No events yet."));
      return;
    }
    this.first = Math.max(0, events.length - PAGE);
    this.list = h("ol", { class: "timeline", "aria-label": `${events.length} events`, "data-total": String(events.length) });
    this.list.append(rows(events.slice(this.first), this.onTrace));
    this.more = h("button", { type: "button", class: "more", onclick: () => this.earlier() });
    this.root.replaceChildren(this.more, this.list);
    this.label();
    this.pinned = true;
    this.reveal();
  }

  // Adds the PAGE events before the oldest shown, keeping what was in view where it was.
  earlier() {
    if (!this.list || !this.first) return;
    const start = Math.max(0, this.first - PAGE);
    const height = this.root.scrollHeight;
    this.list.prepend(rows(this.events.slice(start, this.first), this.onTrace));
    this.first = start;
    this.root.scrollTop += this.root.scrollHeight - height;
    this.label();
  }

  label() {
    this.list.dataset.shown = String(this.events.length - this.first);
    this.more.hidden = this.first === 0;
    this.more.textContent = `Show ${Math.min(PAGE, this.first)} earlier events (${this.first} not shown)`;
  }

  // Called when the panel becomes visible: a hidden panel cannot be scrolled.
  reveal() {
    if (this.pinned && !this.root.hidden) scrollToEnd(this.root);
  }
}

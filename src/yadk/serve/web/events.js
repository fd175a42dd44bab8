// The Events panel: the session's timeline, each event expandable to its JSON.
import { h, jsonBlock, lazyDetails, nextFrame, short, time } from "./dom.js";

const CHUNK = 50; // rows per task: a 500-event session renders without a long task

function badges(event) {
  const found = [];
  const parts = (event.content && event.content.parts) || [];
  const text = parts.filter((p) => p.text).map((p) => p.text).join("");
  for (const part of parts) {
    if (part.functionCall) found.push(h("span", { class: "badge call" }, `call ${part.functionCall.name}`));
    if (part.functionResponse) found.push(h("span", { class: "badge response" }, `response ${part.functionResponse.name}`));
  }
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

function row(event) {
  return h("li", { "data-event-id": event.id || "" },
    lazyDetails([h("time", {}, time(event.timestamp)), h("span", { class: "author" }, event.author || "?"), ...badges(event)],
      () => jsonBlock(event)));
}

export class Events {
  constructor(root) {
    this.root = root;
    this.generation = 0;
  }

  async show(events) {
    const generation = ++this.generation;
    const list = h("ol", { class: "timeline", "aria-label": `${events.length} events` });
    this.root.replaceChildren(events.length ? list : h("p", { class: "empty" }, "No events yet."));
    for (let start = 0; start < events.length; start += CHUNK) {
      if (start) await nextFrame();
      if (generation !== this.generation) return; // a newer show() took over
      const chunk = document.createDocumentFragment();
      for (const event of events.slice(start, start + CHUNK)) chunk.append(row(event));
      list.append(chunk);
    }
    this.root.dispatchEvent(new CustomEvent("rendered", { detail: events.length }));
  }
}

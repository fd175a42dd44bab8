// The conversation: user and agent messages, tool calls and results (collapsible), errors.
import { h, json, lazyDetails, short } from "./dom.js";

function textOf(parts) {
  return parts.filter((p) => p.text && !p.thought).map((p) => p.text).join("");
}

// Collapsed until opened; the JSON is built on the first opening.
function callBlock(call) {
  return lazyDetails(`call ${call.name}(${short(call.args || {}, 60)})`,
    () => h("pre", {}, json(call.args || {})), { class: "tool-call" });
}

function resultBlock(response) {
  return lazyDetails(`result of ${response.name}: ${short(response.response ?? {}, 60)}`,
    () => h("pre", {}, json(response.response ?? {})), { class: "tool-result" });
}

export class Chat {
  constructor(root) {
    this.root = root;
    this.live = new Map(); // author -> the message being streamed
  }

  clear() {
    this.root.replaceChildren();
    this.live.clear();
  }

  // A session's history: built off-document in chunks, so a long session neither forces a
  // layout per message nor holds the main thread for long.
  async history(events, nextFrame) {
    this.clear();
    const target = this.root;
    const CHUNK = 50;
    for (let start = 0; start < events.length; start += CHUNK) {
      if (start) await nextFrame();
      const fragment = document.createDocumentFragment();
      this.root = fragment;
      try {
        for (const event of events.slice(start, start + CHUNK)) if (!event.partial) this.event(event, false);
      } finally {
        this.root = target;
      }
      target.append(fragment);
    }
    this.scroll();
  }

  scroll() {
    if (this.root instanceof Element) this.root.scrollTop = this.root.scrollHeight;
  }

  user(text) {
    this.root.append(h("div", { class: "msg user" }, h("span", { class: "who" }, "you"), h("span", { class: "text" }, text)));
    this.scroll();
  }

  error(message) {
    this.root.append(h("div", { class: "msg error", role: "alert" }, h("span", { class: "who" }, "error"), message));
    this.scroll();
  }

  // An event from history or from /run_sse (camelCase, as google-adk's api_server sends it).
  event(event, scroll = true) {
    const parts = (event.content && event.content.parts) || [];
    if (event.partial) {
      this.stream(event.author, textOf(parts));
      return;
    }
    const streamed = this.live.get(event.author);
    if (streamed) {
      streamed.remove();
      this.live.delete(event.author);
    }
    if (event.author === "user") {
      const text = textOf(parts);
      if (text) this.user(text);
      return;
    }
    const blocks = [];
    const text = textOf(parts);
    if (text) blocks.push(h("span", { class: "text" }, text));
    for (const part of parts) {
      if (part.functionCall) blocks.push(callBlock(part.functionCall));
      if (part.functionResponse) blocks.push(resultBlock(part.functionResponse));
    }
    const actions = event.actions || {};
    if (actions.transferToAgent) blocks.push(h("div", { class: "muted" }, `transferred to ${actions.transferToAgent}`));
    if (actions.escalate) blocks.push(h("div", { class: "muted" }, "escalated"));
    if (blocks.length) {
      this.root.append(h("div", { class: "msg agent", "data-author": event.author },
        h("span", { class: "who" }, event.author), blocks));
    }
    if (event.errorCode || event.errorMessage) {
      this.error(`${event.author}: ${event.errorCode || "ERROR"}: ${event.errorMessage || ""}`);
    }
    if (scroll) this.scroll();
  }

  stream(author, text) {
    let message = this.live.get(author);
    if (!message) {
      message = h("div", { class: "msg agent streaming", "data-author": author },
        h("span", { class: "who" }, author), h("span", { class: "text" }));
      this.live.set(author, message);
      this.root.append(message);
    }
    message.querySelector(".text").append(text);
    this.scroll();
  }

  // A turn ended without a final event for some streamed text (cancelled, failed).
  settle() {
    for (const message of this.live.values()) message.classList.remove("streaming");
    this.live.clear();
  }
}

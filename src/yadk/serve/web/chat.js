// The conversation: user and agent messages, tool calls and results (collapsible), errors.
import { h, json, lazyDetails, scrollToEnd, short } from "./dom.js";

const PAGE = 100;

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

  // A session's history: the newest PAGE events at first (a long session opens without a long
  // task), and a button above them that adds the earlier ones.
  history(events) {
    this.clear();
    this.events = events.filter((event) => !event.partial);
    this.first = Math.max(0, this.events.length - PAGE);
    this.more = h("button", { type: "button", class: "more", onclick: () => this.earlier() });
    this.root.append(this.more, this.built(this.events.slice(this.first)));
    this.label();
    this.scroll();
  }

  // The messages of ``events`` in a fragment, built off-document.
  built(events) {
    const target = this.root;
    const fragment = document.createDocumentFragment();
    this.root = fragment;
    try {
      for (const event of events) this.event(event, false);
    } finally {
      this.root = target;
    }
    return fragment;
  }

  earlier() {
    if (!this.first) return;
    const start = Math.max(0, this.first - PAGE);
    const height = this.root.scrollHeight;
    this.more.after(this.built(this.events.slice(start, this.first)));
    this.first = start;
    this.root.scrollTop += this.root.scrollHeight - height;
    this.label();
  }

  label() {
    this.more.hidden = this.first === 0;
    this.more.textContent = `Show earlier messages (${this.first} events not shown)`;
  }

  scroll() {
    if (this.root instanceof Element) scrollToEnd(this.root);
  }

  user(text) {
    this.root.append(h("div", { class: "msg user" }, h("span", { class: "who" }, "you"), h("span", { class: "text" }, text)));
    this.scroll();
  }

  // The user's answer to a long-running call (a function_response they sent).
  answered(response) {
    this.root.append(h("div", { class: "msg user answer" }, h("span", { class: "who" }, "you answered"),
      resultBlock(response)));
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
      for (const part of parts) if (part.functionResponse) this.answered(part.functionResponse);
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

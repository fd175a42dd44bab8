// The conversation: user and agent messages, tool calls and results (collapsible), errors.
import { h, json, short } from "./dom.js";

function textOf(parts) {
  return parts.filter((p) => p.text && !p.thought).map((p) => p.text).join("");
}

function callBlock(call) {
  return h("details", { class: "tool-call" },
    h("summary", {}, `call ${call.name}(${short(call.args || {}, 60)})`),
    h("pre", {}, json(call.args || {})));
}

function resultBlock(response) {
  return h("details", { class: "tool-result" },
    h("summary", {}, `result of ${response.name}: ${short(response.response ?? {}, 60)}`),
    h("pre", {}, json(response.response ?? {})));
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

  scroll() {
    this.root.scrollTop = this.root.scrollHeight;
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
  event(event) {
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
    this.scroll();
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

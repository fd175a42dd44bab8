// Long-running calls waiting for their result (human in the loop): each is shown above the
// message box with a form that sends its function_response, which resumes the invocation.
// The same rules as the terminal's: a JSON object is the response as is, other text becomes
// {"result": text}; a call is answered once a user event carries a response with its id.
// A tool call waiting for the user's confirmation (adk_request_confirmation) shows the call it
// holds back and its hint, and takes yes/no too: {"confirmed": true|false}.
import { h, json } from "./dom.js";

const CONFIRMATION = "adk_request_confirmation";
const YES = new Set(["yes", "y", "true", "approve", "approved", "ok"]);
const NO = new Set(["no", "n", "false", "reject", "rejected"]);

export function pendingCalls(events) {
  const answered = new Set();
  for (const event of events) {
    if (event.author !== "user") continue;
    for (const part of (event.content && event.content.parts) || []) {
      if (part.functionResponse && part.functionResponse.id) answered.add(part.functionResponse.id);
    }
  }
  const waiting = [];
  for (const event of events) {
    const ids = new Set(event.longRunningToolIds || []);
    if (!ids.size) continue;
    for (const part of (event.content && event.content.parts) || []) {
      const call = part.functionCall;
      if (call && ids.has(call.id) && !answered.has(call.id)) waiting.push(call);
    }
  }
  return waiting;
}

export function responseValue(text, call) {
  const word = text.trim().toLowerCase();
  if (call && call.name === CONFIRMATION && (YES.has(word) || NO.has(word))) {
    return { confirmed: YES.has(word) };
  }
  try {
    const value = JSON.parse(text);
    if (value && typeof value === "object" && !Array.isArray(value)) return value;
  } catch {
    // not JSON: sent as text
  }
  return { result: text };
}

export class PendingView {
  // onAnswer(call, response) sends the answer; it resolves when the turn is over.
  constructor(root, onAnswer) {
    this.root = root;
    this.onAnswer = onAnswer;
    this.busy = false;
  }

  show(calls) {
    this.root.replaceChildren(...calls.map((call, i) => this.form(call, i)));
    this.root.hidden = calls.length === 0;
  }

  form(call, i) {
    const id = `pending-response-${i}`;
    const asks = call.name === CONFIRMATION;
    const args = (call.args && call.args.originalFunctionCall) || {};
    const shown = asks ? args.name || "?" : call.name;
    const shownArgs = asks ? args.args || {} : call.args || {};
    const hint = asks ? (call.args.toolConfirmation || {}).hint || "" : "";
    const box = h("textarea", { id, name: "response", rows: 2, spellcheck: "false",
      placeholder: asks ? 'yes, no, or {"confirmed": true, "payload": ...}' : '{"status": "approved"}' });
    const send = h("button", { type: "submit" }, "Send response");
    const status = h("span", { role: "status", class: "muted" });
    const form = h("form", { class: "pending-call", "aria-label": asks ? `Confirm ${shown}` : `Answer ${shown}`, "data-call-id": call.id || "" },
      h("p", {}, h("strong", {}, shown), h("code", {}, `(${json(shownArgs).replace(/\s*\n\s*/g, " ")})`),
        asks ? " is waiting for your confirmation " : " is waiting for its result ", h("span", { class: "muted" }, `(call ${call.id})`)),
      ...(hint ? [h("p", { class: "muted" }, hint)] : []),
      h("label", { for: id }, asks ? `Confirm ${shown}? (yes, no, or a JSON object)` : `Response to ${shown} (a JSON object, or text)`),
      h("div", { class: "row" }, box, send, status));
    form.addEventListener("submit", async (e) => {
      e.preventDefault();
      if (this.busy) return;
      this.busy = true;
      send.disabled = true;
      status.textContent = "sending…";
      try {
        await this.onAnswer(call, responseValue(box.value.trim() || "{}", call));
        status.textContent = "";
      } catch (error) {
        status.textContent = `failed: ${error.message}`;
      } finally {
        this.busy = false;
        send.disabled = false;
      }
    });
    return form;
  }
}

// Long-running calls waiting for their result (human in the loop): each is shown above the
// message box with a form that sends its function_response, which resumes the invocation.
// The same rules as the terminal's: a JSON object is the response as is, other text becomes
// {"result": text}; a call is answered once a user event carries a response with its id.
import { h, json } from "./dom.js";

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

export function responseValue(text) {
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
    const box = h("textarea", { id, name: "response", rows: 2, spellcheck: "false", placeholder: '{"status": "approved"}' });
    const send = h("button", { type: "submit" }, "Send response");
    const status = h("span", { role: "status", class: "muted" });
    const form = h("form", { class: "pending-call", "aria-label": `Answer ${call.name}`, "data-call-id": call.id || "" },
      h("p", {}, h("strong", {}, call.name), h("code", {}, `(${json(call.args || {}).replace(/\s*\n\s*/g, " ")})`),
        " is waiting for its result ", h("span", { class: "muted" }, `(call ${call.id})`)),
      h("label", { for: id }, `Response to ${call.name} (a JSON object, or text)`),
      h("div", { class: "row" }, box, send, status));
    form.addEventListener("submit", async (e) => {
      e.preventDefault();
      if (this.busy) return;
      this.busy = true;
      send.disabled = true;
      status.textContent = "sending…";
      try {
        await this.onAnswer(call, responseValue(box.value.trim() || "{}"));
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

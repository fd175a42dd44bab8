// The State panel: state by scope, what the last turn changed highlighted, and a form that sends
// a state delta through the API (PATCH .../sessions/{id} {"stateDelta": {...}}).
import { h, json } from "./dom.js";

const SCOPES = [
  ["app:", "App (app:)"],
  ["user:", "User (user:)"],
  ["", "Session"],
  ["temp:", "Temp (temp:, last invocation)"],
];

function scopeOf(key) {
  for (const [prefix] of SCOPES) if (prefix && key.startsWith(prefix)) return prefix;
  return "";
}

function table(entries, changed) {
  return h("table", { class: "state" },
    h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "key"), h("th", { scope: "col" }, "value"))),
    h("tbody", {}, entries.map(([key, value]) =>
      h("tr", { class: changed.has(key) ? "changed" : "", "data-key": key, title: changed.has(key) ? "changed by the last turn" : undefined },
        h("th", { scope: "row" }, key), h("td", { class: "value" }, json(value))))));
}

export class StatePanel {
  constructor(root, onApply) {
    this.root = root;
    this.onApply = onApply;
  }

  // state: the session's state (app: and user: keys included, as the API returns it);
  // temp: temp: keys seen in the last invocation; changed: keys the last turn wrote.
  show(state, temp, changed) {
    const all = { ...state, ...temp };
    const sections = SCOPES.map(([prefix, title]) => {
      const entries = Object.entries(all).filter(([key]) => scopeOf(key) === prefix).sort(([a], [b]) => a.localeCompare(b));
      return h("section", { "aria-label": title, "data-scope": prefix || "session" },
        h("h3", {}, title),
        entries.length ? table(entries, changed) : h("p", { class: "empty" }, "(empty)"));
    });
    this.root.replaceChildren(h("p", { class: "legend" }, "Highlighted: changed by the last turn."), ...sections, this.form());
  }

  form() {
    const key = h("input", { id: "state-key", name: "key", required: true, autocomplete: "off", spellcheck: "false" });
    const value = h("textarea", { id: "state-value", name: "value", rows: 2, spellcheck: "false" });
    const status = h("span", { role: "status", class: "muted" });
    const form = h("form", { class: "state-form", "aria-label": "Change state" },
      h("label", { for: "state-key" }, "Key"), key,
      h("label", { for: "state-value" }, "Value (JSON)"), value,
      h("span"), h("div", { class: "row" }, h("button", { type: "submit" }, "Apply state delta"), status));
    form.addEventListener("submit", async (e) => {
      e.preventDefault();
      let parsed;
      try {
        parsed = value.value.trim() === "" ? null : JSON.parse(value.value);
      } catch {
        parsed = value.value; // plain text is a string value
      }
      try {
        await this.onApply({ [key.value.trim()]: parsed });
        status.textContent = "applied";
      } catch (error) {
        status.textContent = `failed: ${error.message}`;
      }
    });
    return h("section", { "aria-label": "Edit state" }, h("h3", {}, "Change state (for testing)"), form);
  }
}

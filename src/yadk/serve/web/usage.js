// The Usage panel: the session's tokens, and its cost where a budget priced the calls, turn by
// turn, counted as `/usage` and `yadk sessions show` count them
// (GET /dev/apps/{app}/users/{user}/sessions/{id}/usage). Estimates are marked.
import { h } from "./dom.js";

const count = (n) => n.toLocaleString("en-US");
const cost = (c) => (c === null || c === undefined ? "" : String(Number(c.toFixed(6))));

function row(label, usage, title) {
  return h("tr", { title },
    h("th", { scope: "row" }, label),
    h("td", {}, usage.calls === undefined ? "" : count(usage.calls)),
    h("td", {}, count(usage.input_tokens)),
    h("td", {}, count(usage.output_tokens)),
    h("td", {}, count(usage.total_tokens)),
    h("td", {}, cost(usage.cost)),
    h("td", {}, usage.estimated ? "estimated" : "reported"));
}

export class UsagePanel {
  constructor(root) {
    this.root = root;
  }

  // answer: the /usage route's JSON (totals, "invocations", and the lines /usage prints).
  show(answer) {
    if (!answer.invocations.length) {
      this.root.replaceChildren(h("p", { class: "empty" }, answer.lines[0]));
      return;
    }
    const head = ["", "model calls", "in", "out", "tokens", "cost", "counted"];
    this.root.replaceChildren(
      h("p", { class: "usage-total" }, answer.lines[0]),
      h("table", { class: "state usage", "aria-label": "Token usage by turn" },
        h("thead", {}, h("tr", {}, head.map((text) => h("th", { scope: "col" }, text)))),
        h("tbody", {},
          answer.invocations.map((inv, i) => row(`turn ${i + 1}`, inv, inv.invocation_id)),
          row("session", { ...answer, calls: answer.invocations.reduce((n, inv) => n + inv.calls, 0) }, "all turns of this session"))));
  }

  unavailable(message) {
    this.root.replaceChildren(h("p", { class: "empty" }, `Usage unavailable: ${message}`));
  }
}

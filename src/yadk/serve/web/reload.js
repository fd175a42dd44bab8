// Reload notices and diagnostics: the results of GET /dev/events and of
// GET /dev/apps/{app}/diagnostics.
import { h } from "./dom.js";

export class ReloadView {
  constructor(notice, panel, list) {
    this.notice = notice;
    this.panel = panel;
    this.list = list;
  }

  ok(text) {
    this.notice.className = "notice ok";
    this.notice.textContent = text;
    this.clearProblems();
  }

  // The diagnostics follow from problems() (the page fetches them, located relative to the
  // served folder).
  failed(text) {
    this.notice.className = "notice failed";
    this.notice.textContent = text;
  }

  // loaded: whether an agent serves (the last good one) or the app never loaded.
  problems(diagnostics, loaded = true) {
    const errors = diagnostics.filter((d) => d.severity === "error");
    if (!errors.length) {
      this.clearProblems();
      return;
    }
    this.list.replaceChildren(...diagnostics.map((d) => h("li", { "data-rule": d.rule },
      h("code", { class: "location" }, d.location || `${d.path}:${d.line}:${d.column}`), ": ",
      h("span", { class: "severity" }, d.severity), " ", h("code", {}, d.rule), ": ", d.message,
      d.hint ? h("div", { class: "hint" }, `hint: ${d.hint}`) : null)));
    this.panel.querySelector("h2").textContent = loaded
      ? "Reload failed: the last good agent keeps answering"
      : "The agent did not load: fix the files below and save, the page picks it up";
    this.panel.hidden = false;
  }

  clearProblems() {
    this.panel.hidden = true;
    this.list.replaceChildren();
  }
}

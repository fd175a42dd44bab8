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

  failed(text, diagnostics) {
    this.notice.className = "notice failed";
    this.notice.textContent = text;
    this.problems(diagnostics);
  }

  problems(diagnostics) {
    const errors = diagnostics.filter((d) => d.severity === "error");
    if (!errors.length) {
      this.clearProblems();
      return;
    }
    this.list.replaceChildren(...diagnostics.map((d) => h("li", { "data-rule": d.rule },
      h("code", { class: "location" }, d.location || `${d.path}:${d.line}:${d.column}`), ": ",
      h("span", { class: "severity" }, d.severity), " ", h("code", {}, d.rule), ": ", d.message,
      d.hint ? h("div", { class: "hint" }, `hint: ${d.hint}`) : null)));
    this.panel.hidden = false;
  }

  clearProblems() {
    this.panel.hidden = true;
    this.list.replaceChildren();
  }
}

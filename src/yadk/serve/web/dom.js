// Small DOM helpers: every text goes through textContent, never innerHTML.

export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "class") el.className = value;
    else if (key === "text") el.textContent = value;
    else if (key.startsWith("on")) el.addEventListener(key.slice(2), value);
    else el.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : String(child));
  }
  return el;
}

export function json(value) {
  return JSON.stringify(value, null, 2);
}

export function jsonBlock(value) {
  return h("pre", { class: "json" }, json(value));
}

// A <details> whose body is built only when first opened: long timelines stay cheap.
export function lazyDetails(summary, build, attrs = {}) {
  const details = h("details", attrs, h("summary", {}, summary));
  details.addEventListener("toggle", () => {
    if (details.open && !details.dataset.built) {
      details.dataset.built = "1";
      details.append(build());
    }
  });
  return details;
}

const pad = (n, width = 2) => String(n).padStart(width, "0");

// HH:MM:SS.mmm local time, formatted by hand: toLocaleTimeString builds a locale formatter per
// call, too slow for a timeline of hundreds of rows.
export function time(seconds) {
  if (!seconds) return "";
  const d = new Date(seconds * 1000);
  return `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}.${pad(d.getMilliseconds(), 3)}`;
}

export function short(value, max = 80) {
  const text = typeof value === "string" ? value : JSON.stringify(value);
  return text.length > max ? text.slice(0, max - 1) + "…" : text;
}

export function where(file, line) {
  if (!file) return "";
  return line ? `${file}:${line}` : file;
}

// Ends the current task: the browser may paint before the rest of the work runs.
export function nextTask() {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

// Scrolls `element` to its end in the next frame, where the layout it needs is done anyway
// (reading scrollHeight now would force a layout in the middle of the work).
export function scrollToEnd(element) {
  requestAnimationFrame(() => { element.scrollTop = element.scrollHeight; });
}

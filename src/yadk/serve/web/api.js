// The HTTP client: google-adk's api_server routes plus yadk's /dev routes.
// With a token (non-loopback servers), the page is opened as /#token=...; it is kept for the tab.

const TOKEN_KEY = "yadk-token";

function token() {
  const match = /(?:^#|&)token=([^&]+)/.exec(location.hash);
  if (match) {
    sessionStorage.setItem(TOKEN_KEY, decodeURIComponent(match[1]));
    history.replaceState(null, "", location.pathname + location.search);
  }
  return sessionStorage.getItem(TOKEN_KEY);
}

const bearer = token();

export class ApiError extends Error {
  constructor(status, detail) {
    super(typeof detail === "string" ? detail : JSON.stringify(detail));
    this.status = status;
    this.detail = detail;
  }
}

function headers(extra = {}) {
  const all = { ...extra };
  if (bearer) all.Authorization = `Bearer ${bearer}`;
  return all;
}

async function failure(response) {
  let detail = `${response.status} ${response.statusText}`;
  try {
    const body = await response.json();
    if (body && body.detail !== undefined) detail = body.detail;
  } catch {
    // not JSON: keep the status line
  }
  return new ApiError(response.status, detail);
}

export async function api(path, { method = "GET", body } = {}) {
  const init = { method, headers: headers(body === undefined ? {} : { "Content-Type": "application/json" }) };
  if (body !== undefined) init.body = JSON.stringify(body);
  const response = await fetch(path, init);
  if (!response.ok) throw await failure(response);
  if (response.status === 204) return null;
  const text = await response.text();
  return text ? JSON.parse(text) : null;
}

// Reads a text/event-stream response and calls onData with each `data:` payload (parsed JSON).
async function readStream(response, onData) {
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    let end;
    while ((end = buffer.search(/\r?\n\r?\n/)) >= 0) {
      const frame = buffer.slice(0, end);
      buffer = buffer.slice(end).replace(/^\r?\n\r?\n/, "");
      const data = frame
        .split(/\r?\n/)
        .filter((line) => line.startsWith("data:"))
        .map((line) => line.slice(5).replace(/^ /, ""))
        .join("\n");
      if (data) onData(JSON.parse(data));
    }
  }
}

// POST /run_sse: one callback per event (partial ones included when streaming).
export async function runSse(body, onEvent, signal) {
  const response = await fetch("/run_sse", {
    method: "POST",
    headers: headers({ "Content-Type": "application/json", Accept: "text/event-stream" }),
    body: JSON.stringify(body),
    signal,
  });
  if (!response.ok) throw await failure(response);
  await readStream(response, onEvent);
}

// GET /dev/events, reconnecting after a pause when the server restarts.
export function watchReloads(onResult, onConnected) {
  let stopped = false;
  async function connect() {
    while (!stopped) {
      try {
        const response = await fetch("/dev/events", { headers: headers({ Accept: "text/event-stream" }) });
        if (response.ok) {
          onConnected();
          await readStream(response, onResult);
        }
      } catch {
        // the server went away; try again
      }
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  }
  connect();
  return () => { stopped = true; };
}

// GET a file the server sends as an attachment and hand it to the browser as a download (a
// plain link could not carry the token).
export async function download(path) {
  const response = await fetch(path, { headers: headers() });
  if (!response.ok) throw await failure(response);
  const named = /filename="([^"]+)"/.exec(response.headers.get("Content-Disposition") || "");
  const link = document.createElement("a");
  link.href = URL.createObjectURL(await response.blob());
  link.download = named ? named[1] : "download.json";
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(link.href), 1000);
  return link.download;
}

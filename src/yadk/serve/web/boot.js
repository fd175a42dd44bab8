// The page's first request, started as soon as this small module runs: the page's own scripts
// are deferred modules run in order, and this one comes first, so GET /dev/open is under way
// while the other modules still load. app.js takes the answer from here.
import { api } from "./api.js";

const wanted = new URLSearchParams(location.search).get("app") || "";
const user = document.getElementById("user").value.trim() || "user";

export const firstOpen = { app: wanted, user, answer: api(`/dev/open?${new URLSearchParams({ app: wanted, user })}`) };
firstOpen.answer.catch(() => {}); // a failure is reported where the answer is awaited

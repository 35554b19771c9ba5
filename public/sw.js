/*
 * The MA2H Hub's service worker (docs/notifications.md "Browser push", docs/inbox.md "On your phone").
 * Three jobs:
 * - The app shell, for an installed inbox: the offline page, the icons, the manifest and the
 *   build's hashed static files (`/_next/static/`) are cached; a page load that finds no network
 *   shows the offline page. Nothing else is ever cached or intercepted — no page, no `/api` or `/v1`
 *   answer, so no item, answer or person's data is kept on the device.
 * - A push is shown as a system notification. A push carries only the item's id, title and priority
 *   (lib/notifications/web-push/payload.ts) and, for a `confirm` ask or a two-option `select`, its
 *   action buttons, each with a single-use token.
 * - A click opens the item (`/inbox/<id>`); a click on an action button posts its token to
 *   `/api/push/answer` and confirms the answer with a second notification ("Approved — deploy #142"),
 *   or opens the item when the Hub did not take it (signed out, refused, already answered).
 */
const SHELL_CACHE = "ma2h-shell-v1";
const SHELL = ["/offline.html", "/manifest.webmanifest", "/icons/icon-192.png", "/icons/icon-512.png"];
const OFFLINE = "/offline.html";
const ITEM_ID = /^[A-Za-z0-9_-]{1,128}$/;
const TOKEN = /^[A-Za-z0-9_-]{43}$/;

self.addEventListener("install", (event) => {
  event.waitUntil(
    caches
      .open(SHELL_CACHE)
      .then((cache) => cache.addAll(SHELL))
      .catch(() => undefined) // a shell that did not cache must not keep push from working
      .then(() => self.skipWaiting()),
  );
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    (async () => {
      for (const name of await caches.keys())
        if (name.startsWith("ma2h-") && name !== SHELL_CACHE) await caches.delete(name);
      await self.clients.claim();
    })(),
  );
});

/** Whether a GET of this same-origin path is part of the shell (and so may be cached). */
function isShell(path) {
  return path.startsWith("/_next/static/") || SHELL.includes(path);
}

self.addEventListener("fetch", (event) => {
  const req = event.request;
  if (req.method !== "GET") return;
  const url = new URL(req.url);
  if (url.origin !== self.location.origin) return;
  if (req.mode === "navigate") {
    // Pages come from the network, never from the cache; only a failed load shows the offline page.
    event.respondWith(fetch(req).catch(async () => (await caches.match(OFFLINE)) ?? Response.error()));
    return;
  }
  if (!isShell(url.pathname) || url.search !== "") return;
  event.respondWith(
    (async () => {
      const cache = await caches.open(SHELL_CACHE);
      const hit = await cache.match(req);
      if (hit) return hit;
      const res = await fetch(req);
      if (res.ok && res.type === "basic") await cache.put(req, res.clone());
      return res;
    })(),
  );
});

function itemOf(data) {
  let item;
  try {
    item = data ? data.json() : null;
  } catch {
    item = null;
  }
  if (!item || typeof item.id !== "string" || !ITEM_ID.test(item.id)) return null;
  const actions = Array.isArray(item.actions)
    ? item.actions
        .filter((a) => a && typeof a.label === "string" && typeof a.token === "string" && TOKEN.test(a.token))
        .slice(0, 2)
    : [];
  return {
    id: item.id,
    title: typeof item.title === "string" && item.title ? item.title : "A new item in your MA2H inbox",
    priority: typeof item.priority === "string" ? item.priority : "normal",
    actions,
  };
}

/**
 * The notification of one push's item: `[title, options]`. Its action buttons are named `answer-0`
 * and `answer-1`; their tokens stay in the notification's data (never in a URL).
 */
function notificationFor(item) {
  if (!item) return ["MA2H inbox", { body: "Something needs you in your MA2H inbox", data: { url: "/inbox" } }];
  const tokens = {};
  const actions = item.actions.map((a, i) => {
    tokens[`answer-${i}`] = a.token;
    return { action: `answer-${i}`, title: a.label };
  });
  return [
    item.title,
    {
      body: `${item.priority} priority · open it in your MA2H inbox`,
      tag: item.id, // a reminder replaces the earlier notification of the same item
      data: { url: `/inbox/${encodeURIComponent(item.id)}`, id: item.id, title: item.title, tokens },
      requireInteraction: item.priority === "urgent",
      ...(actions.length > 0 ? { actions } : {}),
    },
  ];
}

self.addEventListener("push", (event) => {
  // userVisibleOnly: every push shows something, even one we cannot read.
  const [title, options] = notificationFor(itemOf(event.data));
  event.waitUntil(self.registration.showNotification(title, options));
});

async function openPage(path) {
  const url = new URL(path, self.location.origin);
  if (url.origin !== self.location.origin) return; // only ever our own pages
  const windows = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
  const open = windows.find((w) => new URL(w.url).origin === url.origin);
  if (open) {
    const moved = await open.navigate(url.href).catch(() => null);
    return (moved ?? open).focus();
  }
  return self.clients.openWindow(url.href);
}

/** Answers with one action's token; opens the item when the Hub did not take the answer. */
async function answer(token, data) {
  let result = null;
  try {
    const res = await fetch("/api/push/answer", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ token }),
      credentials: "same-origin",
      referrerPolicy: "same-origin", // the Hub checks the Origin of a write
      cache: "no-store",
    });
    result = await res.json().catch(() => null);
  } catch {
    result = null;
  }
  if (result && typeof result.notice === "string") {
    return self.registration.showNotification(result.notice, {
      body: "Your answer is recorded in your MA2H inbox",
      tag: data.id, // replaces the item's notification
      data: { url: data.url, id: data.id, title: data.title, answered: result.state },
    });
  }
  return openPage(data.url);
}

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const data = event.notification.data || {};
  const path = typeof data.url === "string" ? data.url : "/inbox";
  const token = event.action && data.tokens ? data.tokens[event.action] : undefined;
  // A platform without action buttons only ever clicks the notification itself: the item opens.
  event.waitUntil(
    typeof token === "string" && TOKEN.test(token) ? answer(token, { ...data, url: path }) : openPage(path),
  );
});

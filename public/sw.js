/*
 * The MA2H Hub's service worker (#17, docs/notifications.md "Browser push"). It does one thing: show
 * a push as a system notification and open the item when it is clicked. A push carries only the
 * item's id, title and priority (lib/notifications/web-push/payload.ts); the item's page is `/inbox/<id>`.
 * Nothing is cached and no fetch is intercepted.
 */
const ITEM_ID = /^[A-Za-z0-9_-]{1,128}$/;

self.addEventListener("install", () => self.skipWaiting());
self.addEventListener("activate", (event) => event.waitUntil(self.clients.claim()));

function itemOf(data) {
  let item;
  try {
    item = data ? data.json() : null;
  } catch {
    item = null;
  }
  if (!item || typeof item.id !== "string" || !ITEM_ID.test(item.id)) return null;
  return {
    id: item.id,
    title: typeof item.title === "string" && item.title ? item.title : "A new item in your MA2H inbox",
    priority: typeof item.priority === "string" ? item.priority : "normal",
  };
}

self.addEventListener("push", (event) => {
  const item = itemOf(event.data);
  // userVisibleOnly: every push shows something, even one we cannot read.
  const title = item ? item.title : "MA2H inbox";
  const options = item
    ? {
        body: `${item.priority} priority · open it in your MA2H inbox`,
        tag: item.id, // a reminder replaces the earlier notification of the same item
        data: { url: `/inbox/${encodeURIComponent(item.id)}` },
        requireInteraction: item.priority === "urgent",
      }
    : { body: "Something needs you in your MA2H inbox", data: { url: "/inbox" } };
  event.waitUntil(self.registration.showNotification(title, options));
});

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const path =
    event.notification.data && typeof event.notification.data.url === "string" ? event.notification.data.url : "/inbox";
  const url = new URL(path, self.location.origin);
  if (url.origin !== self.location.origin) return; // only ever our own pages
  event.waitUntil(
    (async () => {
      const windows = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
      const open = windows.find((w) => new URL(w.url).origin === url.origin);
      if (open) {
        const moved = await open.navigate(url.href).catch(() => null);
        return (moved ?? open).focus();
      }
      return self.clients.openWindow(url.href);
    })(),
  );
});

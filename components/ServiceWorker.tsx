"use client";
/**
 * Registers the Hub's service worker (public/sw.js) on the signed-in pages: it keeps the app shell
 * for the installed inbox (docs/inbox.md "On your phone") and shows browser-push notifications. A
 * browser without service workers is left as it is; the pages work the same without one.
 */
import { useEffect } from "react";

export function ServiceWorker() {
  useEffect(() => {
    if (!("serviceWorker" in navigator)) return;
    navigator.serviceWorker.register("/sw.js", { scope: "/" }).catch(() => undefined);
  }, []);
  return null;
}

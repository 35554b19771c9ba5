"use client";
import { useRouter } from "next/navigation";
import { useEffect } from "react";

/** A first event refreshes after SETTLE_MS; a burst (a bulk action, a busy agent) at most every GAP_MS. */
const SETTLE_MS = 100;
const GAP_MS = 1000;

/**
 * Subscribes to the inbox's server-sent events (app/inbox/events) and re-renders the page's server
 * components when something relevant changes — pushed, never polled. With `only`, just that
 * message's events count (an item page). EventSource reconnects by itself after a drop; each
 * (re)subscription ends with one catch-up refresh.
 */
export function LiveRefresh({ only }: { only?: string }) {
  const router = useRouter();
  useEffect(() => {
    const source = new EventSource("/inbox/events");
    let timer: ReturnType<typeof setTimeout> | null = null;
    let last = 0;
    const refresh = () => {
      if (timer) return;
      timer = setTimeout(
        () => {
          timer = null;
          last = Date.now();
          router.refresh();
        },
        Math.max(SETTLE_MS, last + GAP_MS - Date.now()),
      );
    };
    source.addEventListener("inbox", (e) => {
      if (only === undefined) return refresh();
      try {
        if ((JSON.parse((e as MessageEvent<string>).data) as { id?: string }).id === only) refresh();
      } catch {
        refresh();
      }
    });
    source.addEventListener("resync", refresh);
    // Subscribed (first connect and every reconnect): catch up on what changed since the page was
    // rendered, which no event will report — e.g. an ack landing while the stream was connecting.
    source.addEventListener("ready", refresh);
    return () => {
      source.close();
      if (timer) clearTimeout(timer);
    };
  }, [router, only]);
  return null;
}

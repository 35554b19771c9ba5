"use client";
import { useRouter } from "next/navigation";
import { useEffect } from "react";

const SETTLE_MS = 150;

/**
 * Subscribes to the inbox's server-sent events (app/inbox/events) and re-renders the page's server
 * components when something relevant changes — pushed, never polled. With `only`, just that
 * message's events count (an item page). EventSource reconnects by itself after a drop.
 */
export function LiveRefresh({ only }: { only?: string }) {
  const router = useRouter();
  useEffect(() => {
    const source = new EventSource("/inbox/events");
    let timer: ReturnType<typeof setTimeout> | null = null;
    const refresh = () => {
      // A burst of events (a bulk action) costs one re-render.
      timer ??= setTimeout(() => {
        timer = null;
        router.refresh();
      }, SETTLE_MS);
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
    return () => {
      source.close();
      if (timer) clearTimeout(timer);
    };
  }, [router, only]);
  return null;
}

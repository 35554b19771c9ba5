"use client";
import { useRouter } from "next/navigation";
import { useEffect } from "react";

/**
 * Re-renders the page's server components every `everyMs` while the tab is visible, and at once when
 * it becomes visible again. For what no NOTIFY reports yet — an agent's §16 sessions (registered,
 * seen, closed, lapsed) on its page; everything the inbox's events do report is pushed by
 * LiveRefresh instead. Client state (a half-typed form, an open dialog) survives a refresh.
 */
export function PeriodicRefresh({ everyMs }: { everyMs: number }) {
  const router = useRouter();
  useEffect(() => {
    const tick = () => {
      if (document.visibilityState === "visible") router.refresh();
    };
    const timer = setInterval(tick, everyMs);
    document.addEventListener("visibilitychange", tick);
    return () => {
      clearInterval(timer);
      document.removeEventListener("visibilitychange", tick);
    };
  }, [router, everyMs]);
  return null;
}

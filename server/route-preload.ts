/**
 * Loads every route's code now that the server answers: what Next does from its constructor unless
 * `experimental.preloadEntriesOnStart` is off (next.config.ts), moved after listen so that it does
 * not delay the start. Next has no public call for it: this reaches its production server through
 * the custom-server wrapper (`server.getServer()`) and calls `unstable_preloadEntries`.
 * test/framework-couplings.test.ts fails when a Next.js upgrade moves either; at run time, routes
 * then load on their first request, as in development, and the log says so.
 */
import type next from "next";
import { log } from "../lib/log";

type Inner = { unstable_preloadEntries?: () => Promise<void> };

/** Next's route preload of `app`, or null where this Next does not have it. */
export async function routePreloader(app: ReturnType<typeof next>): Promise<(() => Promise<void>) | null> {
  const wrapper = (app as unknown as { server?: { getServer?: () => Promise<Inner> } }).server;
  const inner = await wrapper?.getServer?.();
  const preload = inner?.unstable_preloadEntries;
  return typeof preload === "function" ? () => preload.call(inner) : null;
}

export function preloadRoutes(app: ReturnType<typeof next>): void {
  void routePreloader(app)
    .then((preload) => {
      if (preload === null) log.warn("this Next.js has no route preload; routes load on first use");
      if (preload === null) return;
      const started = performance.now();
      return preload().then(() => log.info("routes preloaded", { ms: Math.round(performance.now() - started) }));
    })
    .catch((err: Error) => log.warn("route preload failed; routes load on first use", { error_name: err.name }));
}

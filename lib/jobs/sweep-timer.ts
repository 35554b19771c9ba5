/**
 * The worker's one sweep timer. Every sweep runs at start (to catch up on whatever fell due while no
 * worker ran) and then once per its own period, measured from its previous start; the timer sleeps
 * until the earliest sweep is due. A failing sweep is logged and tried again next period. Sweeps may
 * overlap (a slow one never delays another), as each is idempotent against PostgreSQL.
 */
import { log } from "../log";
import type { Sweep } from "./sweeps";

export interface SweepTimer {
  /** Stops the timer and resolves once every sweep in flight has finished. */
  stop(): Promise<void>;
}

export function startSweepTimer(list: readonly Sweep[]): SweepTimer {
  const nextAt = list.map(() => 0);
  const running = new Set<Promise<void>>();
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;

  const tick = () => {
    const now = Date.now();
    list.forEach((sweep, i) => {
      if (nextAt[i]! > now) return;
      nextAt[i] = now + sweep.periodMs;
      const p = sweep
        .run()
        .catch((err: Error) => log.warn("sweep failed", { sweep: sweep.name, error_name: err.name }));
      running.add(p);
      void p.finally(() => running.delete(p));
    });
    if (!stopped) timer = setTimeout(tick, Math.max(0, Math.min(...nextAt) - Date.now()));
  };
  tick();

  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await Promise.allSettled([...running]);
    },
  };
}

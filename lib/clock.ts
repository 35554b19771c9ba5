/**
 * The time seam (§9.5: the Hub clock is authoritative). Domain code reads `clock.now()`; tests pin
 * it with `setClock`. No bare `Date.now()` in domain modules. The pinned clock is process-wide: a
 * clock set through one copy of this module (the protocol lane's bundle) is the time in the other
 * (Next's).
 */
import { processWide } from "./process-wide";

export interface Clock {
  now(): Date;
}

const systemClock: Clock = { now: () => new Date() };
const pinned = () => processWide("ma2h.clock", () => ({ current: systemClock }));

export const clock: Clock = { now: () => pinned().current.now() };

export function setClock(next: Clock | null): void {
  pinned().current = next ?? systemClock;
}

/** A clock that stays where it is put. */
export function fixedClock(at: Date): Clock & { set(at: Date): void; advance(ms: number): void } {
  let t = at.getTime();
  return {
    now: () => new Date(t),
    set: (d: Date) => {
      t = d.getTime();
    },
    advance: (ms: number) => {
      t += ms;
    },
  };
}

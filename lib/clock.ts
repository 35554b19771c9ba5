/**
 * The time seam (§9.5: the Hub clock is authoritative). Domain code reads `clock.now()`; tests pin
 * it with `setClock`. No bare `Date.now()` in domain modules.
 */
export interface Clock {
  now(): Date;
}

const systemClock: Clock = { now: () => new Date() };
let current: Clock = systemClock;

export const clock: Clock = { now: () => current.now() };

export function setClock(next: Clock | null): void {
  current = next ?? systemClock;
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

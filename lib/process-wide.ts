/**
 * Process-wide singletons. Next bundles the app routes separately from the server entry, so a
 * module-level variable can exist twice in one process; a value kept on `globalThis` under a
 * `Symbol.for` name exists once. Used for the LISTEN connection, its fan-outs and the queue producers.
 * A module reads its slot through an accessor (`const slot = () => processWide(…)`), never a value
 * captured when it loads: a slot forgotten (forgetProcessWide, or the test runner's reset between
 * files, test/support/process-state.ts) is then made anew on the next use, by every copy alike.
 */
type Slots = Record<symbol, unknown>;

/** The process's one value under `name`, made by `make` on first use. */
export function processWide<T>(name: string, make: () => T): T {
  const slots = globalThis as unknown as Slots;
  const key = Symbol.for(name);
  if (!(key in slots)) slots[key] = make();
  return slots[key] as T;
}

/** The process's value under `name` if one was made, without making it (a metrics read must not start a LISTEN). */
export function processWideIfMade<T>(name: string): T | undefined {
  return (globalThis as unknown as Slots)[Symbol.for(name)] as T | undefined;
}

/** Forgets `value` under `name` (on close), so the next `processWide` makes a new one. */
export function forgetProcessWide(name: string, value: unknown): void {
  const slots = globalThis as unknown as Slots;
  const key = Symbol.for(name);
  if (slots[key] === value) delete slots[key];
}

/** Whether the process holds a value under `name` (what needs closing), without making one. */
export function hasProcessWide(name: string): boolean {
  return Symbol.for(name) in (globalThis as unknown as Slots);
}

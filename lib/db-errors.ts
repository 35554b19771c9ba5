/**
 * Database constraint failures the verbs answer in §8.5 terms: a unique violation means a concurrent
 * or repeated create lost, which the caller reports as `422 invalid_field` (the name is taken).
 */
import { HubError } from "@ma2h/protocol/errors";

/** True for Prisma's unique-constraint violation (P2002). */
export function isUniqueViolation(err: unknown): boolean {
  return typeof err === "object" && err !== null && (err as { code?: unknown }).code === "P2002";
}

/** Runs `fn`, turning a unique violation into `422 invalid_field` with `message`. */
export async function uniquely<T>(message: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (isUniqueViolation(err)) throw new HubError("invalid_field", message);
    throw err;
  }
}

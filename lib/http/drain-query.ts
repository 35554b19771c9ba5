/**
 * Query parameters of the §8.7 drain: `?wait=` as in §8.2 pull, `?max=` a positive integer. The
 * `?session=` it may present is read by lib/sessions/lease.ts `sessionParam`.
 */
import { HubError } from "@ma2h/protocol/errors";
import { parsePollQuery } from "./poll-query";

export function parseDrainQuery(params: URLSearchParams): { waitSeconds?: number; max?: number } {
  const { waitSeconds } = parsePollQuery(new URLSearchParams(params.has("wait") ? { wait: params.get("wait")! } : {}));
  const raw = params.get("max");
  if (raw === null) return { waitSeconds };
  const max = Number(raw);
  if (raw.trim() === "" || !Number.isInteger(max) || max < 1) {
    throw new HubError("validation_error", "max must be a positive integer");
  }
  return { waitSeconds, max }; // over max_batch is clamped by the drain, never rejected
}

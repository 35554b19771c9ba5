/** Query parameters of the §8.7 drain: `?wait=` as in §8.2 pull, `?max=` a positive integer. */
import { HubError } from "../protocol/errors";

/**
 * §8.7.1: a presented session must be the caller's own live one, and an unknown one is `404`. This
 * Hub registers no sessions yet (`inbound.session_param` is not advertised), so every one is
 * unknown — never silently ignored, which would hand a session-scoped bridge principal-wide mail.
 */
export function refuseSessionParam(params: URLSearchParams): void {
  if (params.has("session")) throw new HubError("not_found", "no such session");
}
import { parsePollQuery } from "./poll-query";

export function parseDrainQuery(params: URLSearchParams): { waitSeconds?: number; max?: number } {
  refuseSessionParam(params);
  const { waitSeconds } = parsePollQuery(new URLSearchParams(params.has("wait") ? { wait: params.get("wait")! } : {}));
  const raw = params.get("max");
  if (raw === null) return { waitSeconds };
  const max = Number(raw);
  if (raw.trim() === "" || !Number.isInteger(max) || max < 1) {
    throw new HubError("validation_error", "max must be a positive integer");
  }
  return { waitSeconds, max }; // over max_batch is clamped by the drain, never rejected
}

/** Query parameters of §8.2 pull. Bad values are a 400; a too-long `wait` is clamped, not rejected. */
import { HubError } from "@ma2h/protocol/errors";
import { dateTimeToMillis } from "@ma2h/protocol/formats";

export function parsePollQuery(params: URLSearchParams): { waitSeconds?: number; since?: Date } {
  const out: { waitSeconds?: number; since?: Date } = {};
  const wait = params.get("wait");
  if (wait !== null) {
    const n = Number(wait);
    if (wait.trim() === "" || !Number.isFinite(n) || n < 0) {
      throw new HubError("validation_error", "wait must be a non-negative number of seconds");
    }
    out.waitSeconds = n;
  }
  const since = params.get("since");
  if (since !== null) {
    const t = dateTimeToMillis(since);
    if (t === null) throw new HubError("validation_error", "since must be an RFC 3339 timestamp");
    out.since = new Date(Math.floor(t));
  }
  return out;
}

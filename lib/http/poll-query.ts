/** Query parameters of §8.2 pull. Bad values are a 400; a too-long `wait` is clamped, not rejected. */
import { HubError } from "../protocol/errors";

const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

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
    const t = Date.parse(since);
    if (!RFC3339.test(since) || Number.isNaN(t)) throw new HubError("validation_error", "since must be an RFC 3339 timestamp");
    out.since = new Date(t);
  }
  return out;
}

/**
 * What a fuzz case must get back: a response (no hang, no dropped connection), never a status
 * of 500 or more, and under `/v1` and `/.well-known` every 4xx a §8.5 error envelope —
 * `{"error":{"code","message"}}` with a code of the §8.5 table whose status is the one answered.
 * Pure: the CLI, the CI test and the oracle's own unit test share it.
 */
import { ERROR_STATUS } from "@ma2h/protocol/errors";
import type { RawResponse, SendOutcome } from "./send";

/** A request-target that names the protocol surface (query and fragment aside). */
export function isProtocolTarget(target: string): boolean {
  return /^\/(v1|\.well-known)(\/|\?|#|$)/.test(target);
}

/** Why the response is not a §8.5 envelope of its status, or null when it is. */
export function envelopeProblem(response: RawResponse): string | null {
  if (!/^application\/json/i.test(response.headers["content-type"] ?? "")) {
    return `content-type ${JSON.stringify(response.headers["content-type"] ?? null)} is not JSON`;
  }
  let body: unknown;
  try {
    body = JSON.parse(response.body.toString("utf8"));
  } catch {
    return "the body is not JSON";
  }
  const error = (body as { error?: unknown } | null)?.error as { code?: unknown; message?: unknown } | undefined;
  if (!error || typeof error !== "object") return "no `error` object";
  if (typeof error.code !== "string" || typeof error.message !== "string") return "`error` lacks a string code/message";
  const status = (ERROR_STATUS as Record<string, number>)[error.code];
  if (status === undefined) return `code ${error.code} is not in the §8.5 table`;
  if (status !== response.status) return `code ${error.code} is ${status}, answered ${response.status}`;
  return null;
}

/**
 * The verdict on one case: null when it passes, else the reason. A `hangUp` case ends its side of
 * the connection before the request is whole, so no answer is acceptable there (a hang is not); a
 * response to `HEAD` carries no body to hold an envelope.
 */
export function judge(
  target: string,
  outcome: SendOutcome,
  how: { method?: string; hangUp?: boolean } = {},
): string | null {
  if (!outcome.ok) {
    if (how.hangUp && outcome.error !== "timeout") return null;
    return `no response (${outcome.error})`;
  }
  const { response } = outcome;
  if (response.status >= 500) return `status ${response.status}`;
  if (response.status >= 400 && isProtocolTarget(target) && how.method !== "HEAD") {
    const problem = envelopeProblem(response);
    if (problem)
      return `${response.status} under ${target.split("?")[0]?.slice(0, 60)} is not a §8.5 envelope: ${problem}`;
  }
  return null;
}

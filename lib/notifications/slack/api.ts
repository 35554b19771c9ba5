/**
 * The Slack Web API, through the real `@slack/web-api` client: the base URL from
 * `SLACK_API_URL` (tests run a local Slack-compatible server), every call bounded by
 * `MA2H_SLACK_TIMEOUT_MS`, and NO retries inside the client — a failed post is retried by our own
 * durable machinery (claims.ts for direct messages, posts.ts for channel posts), with backoff.
 * Errors become a `SendResult` with a short class (`slack_<error>`); never a token or any content.
 *
 * `@slack/web-api` loads with the first client, not with every process that could post to Slack;
 * an error to classify (`failureOf`) comes from a client, so the module is loaded by then.
 */
import type { WebClient } from "@slack/web-api";
import { env } from "../../env";
import { processWide } from "../../process-wide";
import type { SendResult } from "../send-result";

type SlackModule = typeof import("@slack/web-api");

const loaded = () => processWide("ma2h.slack-web-api", () => ({ module: null as SlackModule | null }));

export async function slackClient(token: string): Promise<WebClient> {
  const slot = loaded();
  slot.module ??= await import("@slack/web-api");
  const { LogLevel, WebClient } = slot.module;
  const e = env();
  return new WebClient(token, {
    slackApiUrl: e.SLACK_API_URL,
    timeout: e.MA2H_SLACK_TIMEOUT_MS,
    retryConfig: { retries: 0 },
    rejectRateLimitedCalls: true,
    logLevel: LogLevel.ERROR,
    // The method names are ours; never let one redirect a request (and its token) elsewhere.
    allowAbsoluteUrls: false,
  });
}

/** Slack errors that a later attempt may get past: rate limits, Slack's own faults. */
const TRANSIENT_PLATFORM = new Set([
  "ratelimited",
  "rate_limited",
  "internal_error",
  "fatal_error",
  "service_unavailable",
  "request_timeout",
]);

/** A short, safe class: Slack's error code (letters, digits, `_`), never free text. */
function errorClass(code: string): string {
  return `slack_${code.replace(/[^a-z0-9_]/gi, "").slice(0, 60) || "error"}`;
}

/** What a failed call comes to: transient (network, timeout, 429, 5xx) or permanent (Slack said no). */
export function failureOf(err: unknown): Extract<SendResult, { ok: false }> {
  const e = err as { code?: string; data?: { error?: unknown }; statusCode?: number };
  const ErrorCode = loaded().module?.ErrorCode;
  if (!ErrorCode) return { ok: false, transient: true, errorClass: "slack_network", responseCode: null };
  switch (e?.code) {
    case ErrorCode.PlatformError: {
      const code = typeof e.data?.error === "string" ? e.data.error : "error";
      return { ok: false, transient: TRANSIENT_PLATFORM.has(code), errorClass: errorClass(code), responseCode: 200 };
    }
    case ErrorCode.RateLimitedError:
      return { ok: false, transient: true, errorClass: "slack_rate_limited", responseCode: 429 };
    case ErrorCode.HTTPError: {
      const status = typeof e.statusCode === "number" ? e.statusCode : null;
      return {
        ok: false,
        transient: status === null || status >= 500 || status === 408,
        errorClass: "slack_http",
        responseCode: status,
      };
    }
    default:
      // A request that never got an answer (refused, reset, timed out): try again later.
      return { ok: false, transient: true, errorClass: "slack_network", responseCode: null };
  }
}

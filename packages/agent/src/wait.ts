/**
 * §8.2 long-poll until a message is terminal: `GET ?wait=60` (less near the deadline) with `since`,
 * reconnecting after network errors, spent 5xx and long 429s with jittered backoff, until the
 * terminal body arrives, `timeoutMs` passes (WaitTimeoutError with the last body) or the signal
 * aborts (its reason is thrown).
 *
 * The Response comes back as an AskAnswer (`byHuman`, answers.ts); with `requireHuman` an answer or
 * decline by anything but a person is NotAnsweredByHumanError instead.
 *
 * `since`: the Hub answers 304 when the status did not change after `since` (its own clock, §9.5).
 * We take it from the Hub's `Date` header of a reply that still read `open`, minus one second (the
 * header is whole seconds and is stamped after the row was read), so it never lies after a change we
 * have not seen. A 304 that comes back before the hold ran out means the message is terminal and
 * unchanged since `since` — the Hub does not hold for a terminal message — so the next GET drops
 * `since` and reads the body.
 */
import type { GetMessage } from "@ma2h/protocol/get-message";
import { type HubResponse, responseSchema } from "@ma2h/protocol/response";
import { type AskAnswer, answerOf, assertAnsweredByHuman } from "./answers";
import { Ma2hError, WaitTimeoutError } from "./errors";
import { abortReason, backoffDelay, isTransient, sleep, type Transport } from "./transport";

/** The Hub's long-poll ceiling (§8.2: server-max, cap 60). */
export const MAX_WAIT_SECONDS = 60;

export interface WaitOptions {
  signal?: AbortSignal;
  /** Give up after this long (default: never). */
  timeoutMs?: number;
  /**
   * Throw NotAnsweredByHumanError when the ask is `answered` or `declined` by an actor that is not
   * `human:` (a standing rule, an agent). An `expired` Response, a default applied or not, is
   * returned as usual. The handle of an ask made with `requireHuman` sets this for you.
   */
  requireHuman?: boolean;
}

export interface GetOptions {
  wait?: number;
  since?: string;
  signal?: AbortSignal;
}

export interface GetReply {
  body: GetMessage | null;
  /** The Hub's clock at the reply (its `Date` header), when sent. */
  date: number | null;
}

/** One §8.2 GET; `body` null on 304. */
export async function getMessage(transport: Transport, id: string, o: GetOptions = {}): Promise<GetReply> {
  const reply = await transport.request("GET", `/v1/messages/${encodeURIComponent(id)}`, {
    touchpoint: "pull",
    query: { wait: o.wait, since: o.since },
    signal: o.signal,
  });
  const dateHeader = reply.headers.get("date");
  const date = dateHeader === null ? null : Date.parse(dateHeader);
  return {
    body: reply.status === 304 ? null : (reply.body as GetMessage),
    date: date === null || Number.isNaN(date) ? null : date,
  };
}

/** The terminal body's §6 Response, validated with the shared schema. */
function responseOf(body: GetMessage): HubResponse {
  const parsed = responseSchema.safeParse((body as { response?: unknown }).response);
  if (!parsed.success) {
    throw new Ma2hError(`message ${body.id} is ${body.status} but carries no valid §6 response`, {
      status: 200,
      code: "invalid_response",
      body,
    });
  }
  return parsed.data;
}

/** A signal that aborts with `outer` or after `ms`. */
function withDeadline(outer: AbortSignal | undefined, ms: number): { signal: AbortSignal; done(): void } {
  const controller = new AbortController();
  const onAbort = () => controller.abort(outer?.reason);
  outer?.addEventListener("abort", onAbort, { once: true });
  const timer = Number.isFinite(ms) ? setTimeout(() => controller.abort(), Math.max(0, ms)) : null;
  return {
    signal: controller.signal,
    done() {
      if (timer) clearTimeout(timer);
      outer?.removeEventListener("abort", onAbort);
    },
  };
}

export async function waitForResponse(transport: Transport, id: string, o: WaitOptions = {}): Promise<AskAnswer> {
  const deadline = o.timeoutMs === undefined ? Number.POSITIVE_INFINITY : Date.now() + o.timeoutMs;
  const { baseDelayMs, maxDelayMs } = transport.retry;
  let last: GetMessage | null = null;
  let since: string | undefined;
  let failures = 0;
  const timeout = () =>
    new WaitTimeoutError(`message ${id} still ${last?.status ?? "unread"} when the wait gave up`, {
      status: 0,
      code: "wait_timeout",
      body: last,
    });

  for (;;) {
    if (o.signal?.aborted) throw abortReason(o.signal);
    const remaining = deadline - Date.now();
    if (remaining <= 0) throw timeout();
    const wait = Math.max(0, Math.min(MAX_WAIT_SECONDS, Math.floor(remaining / 1000)));
    // Abort the HTTP hold itself at the deadline, with a little slack for the Hub's own answer.
    const scope = withDeadline(o.signal, remaining);
    const started = Date.now();
    let reply: GetReply;
    try {
      reply = await getMessage(transport, id, { wait, since, signal: scope.signal });
    } catch (err) {
      if (o.signal?.aborted) throw abortReason(o.signal);
      if (scope.signal.aborted) throw timeout(); // our deadline cut the hold short
      if (!isTransient(err)) throw err;
      // Reconnect after the transport's own retries are spent: back off, but never past the deadline.
      const retryAfter = (err as Ma2hError).retryAfterSeconds;
      const pause = Math.max(
        retryAfter === null ? 0 : retryAfter * 1000,
        backoffDelay(failures++, baseDelayMs, maxDelayMs),
      );
      if (Date.now() + pause >= deadline) throw timeout();
      await sleep(pause, o.signal);
      continue;
    } finally {
      scope.done();
    }
    failures = 0;
    const held = Date.now() - started;
    if (reply.body === null) {
      // 304: unchanged. Early means terminal-and-unchanged (see the header): read the body next.
      if (held < wait * 1000 - 1000) since = undefined;
      continue;
    }
    last = reply.body;
    if (last.type === "notify") {
      throw new Ma2hError(`message ${id} is a notify: there is no response to wait for (§5.1)`, {
        status: 200,
        code: "no_response",
        body: last,
      });
    }
    if (last.status !== "open") {
      const response = responseOf(last);
      if (o.requireHuman === true) assertAnsweredByHuman(response);
      return answerOf(response);
    }
    if (reply.date !== null) since = new Date(reply.date - 1000).toISOString();
    // A hold the Hub cut short (its own cap is lower) must not become a busy loop.
    if (held < 1000) await sleep(Math.min(1000, Math.max(0, deadline - Date.now())), o.signal);
  }
}

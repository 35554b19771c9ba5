/** The handlers of `/v1/inbox`, `/v1/inbox/stream` and `/v1/inbox/ack` (the route table, packages/protocol/src/routes.ts). */
import { agentCaller } from "../callers";
import { json, route } from "../handler";
import { parseDrainQuery } from "../drain-query";
import { ackMailbox } from "../../mailbox/ack";
import { drainMailbox } from "../../mailbox/drain";
import { openMailboxStream } from "../../mailbox/stream";
import { HubError } from "@ma2h/protocol/errors";
import { leaseHoldEnd, presentSession, sessionParam } from "../../sessions/lease";

/**
 * §8.7 drain: the caller's own mailbox, FIFO, signed per delivery; `?max=`, `?wait=`. With
 * `?session=` (§8.7.1) the caller's own live session — renewed by this drain (§16.2) — also gets
 * the directives addressed to it; foreign or unknown is 404, ended is 410 (§16.3). Its `?wait=`
 * ends before the renewed lease does, by the stream's margin (§8.7.2), so the next drain renews it.
 */
export const drainRoute = route(async ({ req, url }) => {
  const principal = await agentCaller(req);
  const query = parseDrainQuery(url.searchParams);
  const session = sessionParam(url);
  const presented = session ? await presentSession(principal, session, { touchpoint: "presented", renew: true }) : null;
  return json(
    await drainMailbox(principal, {
      ...query,
      sessionId: presented?.id ?? null,
      holdUntil: presented ? leaseHoldEnd(presented) : undefined,
      signal: req.signal,
    }),
  );
});

/**
 * §8.7 consume and §14.3 receipt: `{ids, note?}` → `{acked}`. A presented `?session=` must be the
 * caller's own live session and is renewed (§16.2, R190); permission to ack stays the credential's.
 */
export const inboxAckRoute = route(async ({ req, url, body }) => {
  const principal = await agentCaller(req);
  const session = sessionParam(url);
  if (session) await presentSession(principal, session, { touchpoint: "presented", renew: true });
  const payload = await body();
  return json(await ackMailbox(principal, payload));
});

/**
 * §8.7.2 `GET /v1/inbox/stream?session=<sess_…>`: the session's entries as server-sent events
 * (`event: entry`, `id:` the ack key, `data:` the drain's item signed for this push), keep-alive
 * comments, and a close at the hold bound — reconnecting is the renewal (lib/mailbox/stream.ts).
 * Acks stay `POST /v1/inbox/ack`.
 */
export const streamRoute = route(async ({ req, url }) => {
  const principal = await agentCaller(req);
  const session = sessionParam(url);
  if (session === null)
    throw new HubError("validation_error", "session: required — the stream is session-scoped (§8.7.2)");
  const hold = await openMailboxStream(principal, session);
  const encoder = new TextEncoder();
  const stop = new AbortController();
  req.signal.addEventListener("abort", () => stop.abort(), { once: true });
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      let open = true;
      const send = (chunk: string): boolean => {
        if (!open || stop.signal.aborted) return false;
        try {
          controller.enqueue(encoder.encode(chunk));
          return true;
        } catch {
          open = false;
          return false;
        }
      };
      void hold
        .run(send, stop.signal)
        .catch(() => {})
        .finally(() => {
          hold.release();
          if (open) {
            open = false;
            try {
              controller.close();
            } catch {
              /* already closed by the client */
            }
          }
        });
    },
    cancel() {
      stop.abort();
      hold.release();
    },
  });
  return new Response(body, {
    status: 200,
    headers: {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-store",
      "x-accel-buffering": "no",
    },
  });
});

import { agentCaller } from "@/lib/http/callers";
import { noSuchEndpoint, route } from "@/lib/http/handler";
import { openMailboxStream } from "@/lib/mailbox/stream";
import { HubError } from "@/lib/protocol/errors";
import { sessionParam } from "@/lib/sessions/lease";

export const dynamic = "force-dynamic";

/**
 * §8.7.2 `GET /v1/inbox/stream?session=<sess_…>`: the session's entries as server-sent events
 * (`event: entry`, `id:` the ack key, `data:` the drain's item signed for this push), keep-alive
 * comments, and a close at the hold bound — reconnecting is the renewal (lib/mailbox/stream.ts).
 * Acks stay `POST /v1/inbox/ack`.
 */
export const GET = route(async ({ req, url }) => {
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

/** The other verbs: the §8.5 `404` envelope (lib/http/handler.ts). */
export { noSuchEndpoint as POST, noSuchEndpoint as PUT, noSuchEndpoint as PATCH, noSuchEndpoint as DELETE };

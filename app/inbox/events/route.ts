import { cookies } from "next/headers";
import { errorResponse } from "@/lib/http/handler";
import { inboxEvents, type InboxEvent } from "@/lib/inbox/events";
import { streamSeats } from "@/lib/inbox/stream-seats";
import { acquireHeld, type Release } from "@/lib/limits/parked";
import { humanForSessionToken, sessionTokenFrom } from "@/lib/principals/web-sessions";
import { HubError, isHubError } from "@ma2h/protocol/errors";

export const dynamic = "force-dynamic";

const KEEP_ALIVE_MS = 20_000;

/**
 * Server-sent events for the inbox pages: `event: inbox` with `{"id": "<message id>"}` whenever a
 * message in one of the person's accounts is submitted or turns terminal (ids only; the page
 * re-reads through the session), `event: ready` once subscribed (the page catches up on what changed
 * since it rendered), `event: resync` if the Hub's listener reconnected, and a comment
 * keep-alive every 20 s. The session and the person's seats are checked again at each keep-alive,
 * after a resync, and at once when the person's seats change (lib/inbox/stream-seats.ts): an ended
 * session or a removed (or added) seat ends the stream, and the browser reconnects to the current seats.
 */
export async function GET(req: Request): Promise<Response> {
  const jar = await cookies();
  const token = sessionTokenFrom((n) => jar.get(n)?.value);
  const human = await humanForSessionToken(token);
  if (!human) return errorResponse(new HubError("unauthenticated", "sign in first"));
  const seats = await streamSeats(token, human.userId);
  // One of the person's MA2H_MAX_STREAMS_PER_PERSON slots (429 over it), released by `stop`.
  let release: Release;
  try {
    release = await acquireHeld("person-stream", human.userId);
  } catch (err) {
    if (!isHubError(err)) throw err;
    return errorResponse(err);
  }
  const encoder = new TextEncoder();
  let stop = () => {};

  const stream = new ReadableStream<Uint8Array>({
    async start(controller) {
      let open = true;
      const write = (text: string) => {
        if (!open) return;
        try {
          controller.enqueue(encoder.encode(text));
        } catch {
          stop();
        }
      };
      // A seat change (or a possibly missed one) re-checks the seats; a stale stream closes.
      const recheck = (then = () => {}) =>
        void seats.stillValid().then(
          (ok) => (ok ? then() : stop()),
          () => then(),
        );
      stop = release; // until subscribed, stopping only gives the slot back
      const unsubscribe = await inboxEvents()
        .subscribe(
          seats.accounts,
          (e: InboxEvent) => {
            if (e.kind === "seats") return recheck();
            if (e.kind === "resync") recheck();
            write(
              e.kind === "change"
                ? `event: inbox\ndata: ${JSON.stringify({ id: e.messageId })}\n\n`
                : "event: resync\ndata: {}\n\n",
            );
          },
          human.userId,
        )
        .catch((err: unknown) => {
          release();
          throw err;
        });
      const timer = setInterval(() => recheck(() => write(": keep-alive\n\n")), KEEP_ALIVE_MS);
      stop = () => {
        if (!open) return;
        open = false;
        clearInterval(timer);
        unsubscribe();
        release();
        try {
          controller.close();
        } catch {
          // already closed by the client going away
        }
      };
      req.signal.addEventListener("abort", () => stop(), { once: true });
      if (req.signal.aborted) stop(); // gone while subscribing: the listener above never fires
      recheck(); // A seat change between reading the seats and subscribing was not heard
      // Subscribed: from here on nothing is missed. `ready` tells the page to catch up once on what
      // changed between its render and now (and after every reconnect).
      write("retry: 2000\nevent: ready\ndata: {}\n\n");
    },
    cancel() {
      stop();
    },
  });
  return new Response(stream, {
    headers: {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache, no-store, no-transform",
      "x-accel-buffering": "no",
    },
  });
}

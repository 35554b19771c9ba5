/**
 * Push receivers (§8.3): a Node `http` handler and a Fetch `Request → Response` handler (Next.js
 * route handlers, Hono, Bun, Deno) around one flow — read the raw body (capped), verifyPush (§9.2),
 * reserve the §6 at-most-once key `(in_reply_to, resolution_id)`, call `onResponse`, answer.
 *
 * The answers steer the Hub's at-least-once delivery (§8.3: it retries 5xx and network errors,
 * never 4xx):
 * - 200: acted on, or a duplicate (already reserved/done: acknowledged without acting again);
 * - 401: the push failed verification. Retrying cannot help — every retry is signed with the same
 *   key over the same body, so a wrong secret, callback URL or clock fails again, and a forgery is
 *   not the Hub's to retry — and the answer stays pull-available (§8.2), the source of truth;
 * - 500: `onResponse` threw: the reservation is released and the Hub retries, so the work is done
 *   once it succeeds; 503: the Hub's keys could not be fetched (our side, transient);
 * - 405 for anything but POST; 413 for a body over the cap (1 MiB unless `maxBodyBytes`).
 * Error bodies are the §8.5 envelope `{"error":{"code","message"}}` and never echo the input.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { HubResponse } from "@ma2h/protocol/response";
import { readCappedBody } from "@ma2h/protocol/capped-body";
import { HubKeysError } from "./keys";
import { type DedupStore, MemoryDedupStore, responseDedupKey } from "./stores";
import { VerificationError } from "./verification";
import { type VerifyPushOptions, verifyPush } from "./verify-push";

export interface PushReceiverOptions extends VerifyPushOptions {
  /** Default: one in-memory store per handler (use FileDedupStore to survive a restart). */
  dedupStore?: DedupStore;
  onResponse(response: HubResponse): Promise<void> | void;
  /** The largest body read (default 1 MiB); a bigger one is refused with 413. */
  maxBodyBytes?: number;
  /** Called with each refusal or failure (never with the body), e.g. for the agent's own log. */
  onError?(error: unknown): void;
}

const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

interface Answer {
  status: number;
  body: Record<string, unknown>;
  headers?: Record<string, string>;
}

class BodyTooLarge extends Error {}

/** One receiver flow, independent of the HTTP framework. */
function receiver(options: PushReceiverOptions) {
  const dedup = options.dedupStore ?? new MemoryDedupStore();
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const report = (e: unknown) => {
    try {
      options.onError?.(e);
    } catch {
      // a failing logger must not change the answer
    }
  };

  return {
    maxBodyBytes,
    notPost: (): Answer => ({
      status: 405,
      headers: { allow: "POST" },
      body: errorBody("validation_error", "only POST is accepted"),
    }),
    tooLarge: (): Answer => ({
      status: 413,
      body: errorBody("validation_error", `the body is over ${maxBodyBytes} bytes`),
    }),
    async handle(headers: Parameters<typeof verifyPush>[0], raw: Uint8Array): Promise<Answer> {
      let response: HubResponse;
      try {
        response = await verifyPush(headers, raw, options);
      } catch (e) {
        report(e);
        // Which check refused it goes to onError only: the sender learns nothing to aim with.
        if (e instanceof VerificationError)
          return { status: 401, body: errorBody("unauthenticated", "the push failed verification") };
        if (e instanceof HubKeysError)
          return { status: 503, body: errorBody("unavailable", "the Hub's signing keys are unavailable") };
        return { status: 500, body: errorBody("internal_error", "the receiver failed") };
      }
      const key = responseDedupKey(response);
      let reserved: boolean;
      try {
        reserved = await dedup.reserve(key);
      } catch (e) {
        report(e);
        return { status: 500, body: errorBody("internal_error", "the dedup store failed; retry") };
      }
      if (!reserved) return { status: 200, body: { ok: true, duplicate: true } };
      try {
        await options.onResponse(response);
      } catch (e) {
        report(e);
        await dedup.release(key).catch(report); // so the Hub's retry is acted on
        return { status: 500, body: errorBody("internal_error", "the handler failed; retry") };
      }
      return { status: 200, body: { ok: true } };
    },
  };
}

function errorBody(code: string, message: string): Record<string, unknown> {
  return { error: { code, message } };
}

/** A Node `http` / Express-style handler: `http.createServer(nodePushHandler({...}))`. */
export function nodePushHandler(o: PushReceiverOptions): (req: IncomingMessage, res: ServerResponse) => void {
  const flow = receiver(o);
  const send = (res: ServerResponse, a: Answer) => {
    if (res.headersSent) return;
    res.writeHead(a.status, { "content-type": "application/json", ...(a.headers ?? {}) });
    res.end(JSON.stringify(a.body));
  };
  return (req, res) => {
    if (req.method !== "POST") {
      req.resume();
      send(res, flow.notPost());
      return;
    }
    readNodeBody(req, flow.maxBodyBytes)
      .then((raw) => flow.handle(req.headers, raw))
      .then(
        (a) => send(res, a),
        (e: unknown) => {
          if (e instanceof BodyTooLarge) {
            res.setHeader("connection", "close"); // stop reading the rest
            send(res, flow.tooLarge());
          } else send(res, { status: 500, body: errorBody("internal_error", "the receiver failed") });
        },
      );
  };
}

function readNodeBody(req: IncomingMessage, max: number): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers["content-length"]);
    if (Number.isFinite(declared) && declared > max) {
      req.resume();
      reject(new BodyTooLarge());
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > max) {
        req.off("data", onData);
        req.resume(); // drain the rest unread
        reject(new BodyTooLarge());
        return;
      }
      chunks.push(chunk);
    };
    req.on("data", onData);
    req.on("end", () => resolve(new Uint8Array(Buffer.concat(chunks))));
    req.on("error", reject);
  });
}

/** A Fetch handler: `export const POST = fetchPushHandler({...})` in a Next.js route, Hono, Bun, Deno. */
export function fetchPushHandler(o: PushReceiverOptions): (request: Request) => Promise<Response> {
  const flow = receiver(o);
  const toResponse = (a: Answer) =>
    new Response(JSON.stringify(a.body), {
      status: a.status,
      headers: { "content-type": "application/json", ...(a.headers ?? {}) },
    });
  return async (request) => {
    if (request.method !== "POST") return toResponse(flow.notPost());
    let raw: Uint8Array;
    try {
      raw = await readFetchBody(request, flow.maxBodyBytes);
    } catch (e) {
      if (e instanceof BodyTooLarge) return toResponse(flow.tooLarge());
      return toResponse({ status: 400, body: errorBody("validation_error", "the body could not be read") });
    }
    return toResponse(await flow.handle(request.headers, raw));
  };
}

async function readFetchBody(request: Request, max: number): Promise<Uint8Array> {
  const bytes = await readCappedBody(request, max);
  if (bytes === null) throw new BodyTooLarge();
  return bytes;
}

/**
 * The A2A gateway's HTTP routes (docs/a2a.md), in the route manifest beside `/v1`
 * (./index.ts `A2A_MANIFEST`): `POST /a2a`, the JSON-RPC binding of A2A v1.0 as `@a2a-js/sdk`
 * implements it, and `GET /.well-known/agent-card.json`, the Hub's one Agent Card. Both run inside
 * `route()` (request id, access log, the failed-authentication throttle, §8.5 envelopes for what
 * fails before JSON-RPC) behind the same transport gate and request guards as `/v1`.
 */
import { A2A_VERSION_HEADER, AgentCard, formatSSEErrorEvent, formatSSEEvent, SSE_HEADERS } from "@a2a-js/sdk";
import { A2A_ERROR_CODE } from "@a2a-js/sdk/errors";
import { JsonRpcTransportHandler, ServerCallContext, validateVersion } from "@a2a-js/sdk/server";
import { hubAgentCard } from "../../a2a/card";
import { a2aErrorOf, HubRequestHandler } from "../../a2a/gateway";
import { PRINCIPAL_KEY, SIGNAL_KEY } from "../../a2a/tasks";
import { processWide } from "../../process-wide";
import { agentCaller } from "../callers";
import { json, route } from "../handler";

type RpcResponse = { jsonrpc: string; id: string | number | null; result?: unknown; error?: unknown };

function transport(): JsonRpcTransportHandler {
  return processWide("ma2h.a2a-transport", () => new JsonRpcTransportHandler(new HubRequestHandler()));
}

/** The Hub's one Agent Card (the SDK's JSON form); public, like the discovery documents. */
export const agentCardRoute = route(async () =>
  json(AgentCard.toJSON(hubAgentCard()), 200, { "cache-control": "max-age=300" }),
);

const rpcError = (id: RpcResponse["id"], err: unknown): RpcResponse => ({
  jsonrpc: "2.0",
  id,
  error: JsonRpcTransportHandler.mapToJSONRPCError(a2aErrorOf(err)),
});

/** Between events of a working task's stream: a comment line this often. */
const KEEP_ALIVE_MS = 20_000;

/** An SSE body from the stream of JSON-RPC responses; an error mid-stream is an `error` event. */
function sse(
  first: RpcResponse,
  rest: AsyncIterator<RpcResponse>,
  id: RpcResponse["id"],
  signal: AbortSignal,
): Response {
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    async start(controller) {
      const send = (chunk: string) => {
        try {
          controller.enqueue(encoder.encode(chunk));
        } catch {
          /* the client went away */
        }
      };
      send(formatSSEEvent(first));
      let timer: ReturnType<typeof setTimeout> | undefined;
      try {
        // Awaited below; a rejection after the client left (nothing awaits it then) is not unhandled.
        const nextEvent = () => {
          const p = rest.next();
          p.catch(() => {});
          return p;
        };
        let pending = nextEvent();
        for (;;) {
          if (signal.aborted) break;
          // A comment line every KEEP_ALIVE_MS keeps proxies from closing a quiet stream; clients skip it.
          const tick = new Promise<"tick">((ok) => {
            timer = setTimeout(() => ok("tick"), KEEP_ALIVE_MS);
          });
          const next = await Promise.race([pending, tick]);
          clearTimeout(timer);
          if (next === "tick") {
            send(": keep-alive\n\n");
            continue;
          }
          if (next.done) break;
          send(formatSSEEvent(next.value));
          pending = nextEvent();
        }
      } catch (err) {
        send(formatSSEErrorEvent(rpcError(id, err)));
      } finally {
        clearTimeout(timer);
        try {
          controller.close();
        } catch {
          /* already closed */
        }
      }
    },
    async cancel() {
      await rest.return?.(undefined);
    },
  });
  return new Response(body, { status: 200, headers: { ...SSE_HEADERS, "cache-control": "no-store" } });
}

/**
 * `POST /a2a`: an agent API key (401 without one, before anything is parsed), a JSON body of at
 * most `max_body_bytes`, the A2A version the card declares, then the SDK's JSON-RPC transport over
 * the Hub's handler (lib/a2a/gateway.ts). Streaming methods answer server-sent events.
 */
export const a2aRoute = route(async ({ req, body }) => {
  const principal = await agentCaller(req);
  const payload = await body();
  const id = (
    typeof payload.id === "string" || typeof payload.id === "number" ? payload.id : null
  ) as RpcResponse["id"];
  const context = new ServerCallContext({
    user: { isAuthenticated: true, userName: principal.agentRowId },
    requestedVersion: req.headers.get(A2A_VERSION_HEADER) ?? undefined,
    state: new Map<string, unknown>([
      [PRINCIPAL_KEY, principal],
      [SIGNAL_KEY, req.signal],
    ]),
  });
  try {
    validateVersion(context.requestedVersion, hubAgentCard(), "JSONRPC");
  } catch (err) {
    return json(rpcError(id, err));
  }
  const out = await transport().handle(payload, context);
  if (typeof (out as AsyncGenerator)[Symbol.asyncIterator] !== "function") {
    const single = out as RpcResponse;
    const code = (single.error as { code?: number } | undefined)?.code;
    return json(single, code === A2A_ERROR_CODE.INTERNAL_ERROR ? 500 : 200);
  }
  const stream = (out as AsyncGenerator<RpcResponse>)[Symbol.asyncIterator]();
  let first: IteratorResult<RpcResponse>;
  try {
    first = await stream.next();
  } catch (err) {
    return json(rpcError(id, err));
  }
  if (first.done) return json(rpcError(id, new Error("the stream ended before its first event")), 500);
  return sse(first.value, stream, id, req.signal);
});

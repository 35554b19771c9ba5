/**
 * A request whose body was not read to its end when the answer starts — a body over a route's cap
 * (§8.6: `422`, or a Server Action form's `400`), or any refusal made before the body was read — is
 * answered with `Connection: close`, and the connection is closed after the answer (RFC 9112 §9.6).
 * Left open, its unread bytes would sit in front of the client's next request on the same
 * keep-alive connection, which then hangs until the idle timeout resets it: every pooling client
 * (Node's fetch, Python's requests and httpx) would lose the request after a too-large one. Draining
 * the body instead would read as much as the client chooses to send.
 *
 * The close lingers (RFC 9112 §9.6): the answer, then our FIN, then what the client still sends is
 * discarded (a bounded amount) for at most LINGER_MS before the socket is destroyed. Destroyed at
 * once, the kernel answers the unread bytes with a reset, and a client still sending its body loses
 * the answer it was sent (observed on loopback).
 *
 * Installed for every request, in front of the protocol lane, the Server Action screen and Next
 * alike (server/web.ts): the head is the last moment the connection's fate can still be told, and
 * both an explicit `writeHead` and the implicit head of a first `write`/`end` go through it.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Socket } from "node:net";

const LINGER_MS = 1000;
const LINGER_BYTES = 256 * 1024;

/**
 * Instead of Node's close after a `Connection: close` answer (`destroySoon`, a reset when bytes are
 * unread): FIN, then what still comes is discarded up to LINGER_BYTES (then left unread), and the
 * socket is destroyed when the body ends, the client closes, or LINGER_MS have passed.
 */
function lingeringClose(req: IncomingMessage, socket: Socket): void {
  socket.end();
  const timer = setTimeout(() => socket.destroy(), LINGER_MS).unref();
  socket.once("close", () => clearTimeout(timer));
  // A route that stopped reading by destroying the request has already let go of the socket's bytes.
  if (req.destroyed) return;
  let discarded = 0;
  // The route is done with the body: whatever still reads it (a web stream around it) lets go.
  req.removeAllListeners("data");
  req.on("data", (chunk: Buffer) => {
    discarded += chunk.length;
    if (discarded > LINGER_BYTES) req.pause();
  });
  req.once("end", () => socket.destroy());
  req.once("error", () => socket.destroy());
  req.resume();
}

export function closeIfBodyUnread(req: IncomingMessage, res: ServerResponse): void {
  const writeHead = res.writeHead;
  res.writeHead = function (this: ServerResponse, ...args: Parameters<typeof writeHead>) {
    // `complete` is the parser's: the whole body has arrived (read by the route, or buffered for
    // Node to discard). Until then, unread bytes may still be on their way.
    if (!req.complete && !this.headersSent) {
      this.setHeader("connection", "close");
      // `res.socket`: a request the route destroyed (to stop reading) has let go of its own.
      const socket = this.socket as (Socket & { destroySoon?: () => void }) | null;
      // Node closes a `Connection: close` answer's socket with destroySoon() once it is written.
      if (socket) socket.destroySoon = () => lingeringClose(req, socket);
    }
    return writeHead.apply(this, args);
  } as typeof writeHead;
}

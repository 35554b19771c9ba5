/**
 * The fuzzer's HTTP client: one request per connection, written byte for byte over a plain socket,
 * so a case can carry what fetch() and node:http refuse to send (a malformed request line, a header
 * with control characters, a body shorter than its Content-Length, a hang-up mid-body). The response
 * is read until the server closes (every case asks `Connection: close`).
 */
import { connect } from "node:net";

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

export type SendOutcome = { ok: true; response: RawResponse } | { ok: false; error: string };

export interface SendOptions {
  host: string;
  port: number;
  /** Give up (an outcome of `timeout`) after this many ms without the whole response. */
  timeoutMs: number;
  /** End our side after the request bytes (a hang-up); the response is still read. */
  halfClose?: boolean;
}

/** Splits `HTTP/1.1 200 OK\r\nA: b\r\n\r\nbody`; de-chunks a chunked body. Null when it does not parse. */
export function parseResponse(bytes: Buffer): RawResponse | null {
  const end = bytes.indexOf("\r\n\r\n");
  if (end < 0) return null;
  const [statusLine, ...lines] = bytes.subarray(0, end).toString("latin1").split("\r\n");
  const m = /^HTTP\/1\.[01] (\d{3})/.exec(statusLine ?? "");
  if (!m) return null;
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const i = line.indexOf(":");
    if (i > 0) headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
  }
  let body = bytes.subarray(end + 4);
  if (/chunked/i.test(headers["transfer-encoding"] ?? "")) {
    const parts: Buffer[] = [];
    let at = 0;
    for (;;) {
      const lineEnd = body.indexOf("\r\n", at);
      if (lineEnd < 0) return null;
      const size = Number.parseInt(body.subarray(at, lineEnd).toString("latin1"), 16);
      if (!Number.isFinite(size)) return null;
      if (size === 0) break;
      parts.push(body.subarray(lineEnd + 2, lineEnd + 2 + size));
      at = lineEnd + 2 + size + 2;
    }
    body = Buffer.concat(parts);
  } else if (headers["content-length"] !== undefined) {
    body = body.subarray(0, Number(headers["content-length"]));
  }
  return { status: Number(m[1]), headers, body };
}

export function sendRaw(request: Buffer, options: SendOptions): Promise<SendOutcome> {
  return new Promise((settle) => {
    const chunks: Buffer[] = [];
    let done = false;
    const finish = (outcome: SendOutcome) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      settle(outcome);
    };
    const socket = connect({ host: options.host, port: options.port });
    const timer = setTimeout(() => finish({ ok: false, error: "timeout" }), options.timeoutMs);
    socket.on("connect", () => {
      socket.write(request);
      if (options.halfClose) socket.end();
    });
    socket.on("data", (d: Buffer) => chunks.push(d));
    // A reset after a complete response is still that response (the server may close hard).
    const settleWithWhatCame = (why: string) => {
      const response = parseResponse(Buffer.concat(chunks));
      finish(response ? { ok: true, response } : { ok: false, error: why });
    };
    socket.on("end", () => settleWithWhatCame("closed without a response"));
    socket.on("error", (err: NodeJS.ErrnoException) => settleWithWhatCame(err.code ?? err.message));
  });
}

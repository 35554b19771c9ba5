/**
 * A raw GET with a bearer credential over node:http, read to its end: the status, `Retry-After`,
 * the JSON body and when the answer arrived. The caller picks the transport — an agent with many
 * sockets at once (undici's pool would queue), or `agent: false` and a host of its own to be another
 * client address — which is why these tests do not use fetch.
 */
import http from "node:http";

export interface BearerAnswer {
  status: number;
  retryAfter: string | null;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  /** When the answer arrived (ms since the epoch). */
  at: number;
}

interface Options {
  agent?: http.Agent | false;
  /** Destroys the request after that many ms (a client that goes away); it then resolves null. */
  hangUp?: number;
}

export function bearerGet(target: string | http.RequestOptions, credential: string): Promise<BearerAnswer>;
export function bearerGet(
  target: string | http.RequestOptions,
  credential: string,
  options: Options & { hangUp?: undefined },
): Promise<BearerAnswer>;
export function bearerGet(
  target: string | http.RequestOptions,
  credential: string,
  options: Options,
): Promise<BearerAnswer | null>;
export function bearerGet(
  target: string | http.RequestOptions,
  credential: string,
  options: Options = {},
): Promise<BearerAnswer | null> {
  const { hangUp } = options;
  const request: http.RequestOptions = {
    ...(typeof target === "string" ? {} : target),
    ...(options.agent !== undefined ? { agent: options.agent } : {}),
    headers: { authorization: `Bearer ${credential}` },
  };
  return new Promise((resolve, reject) => {
    const onAnswer = (res: http.IncomingMessage) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (d: string) => (text += d));
      res.on("end", () =>
        resolve({
          status: res.statusCode ?? 0,
          retryAfter: (res.headers["retry-after"] as string | undefined) ?? null,
          body: text ? JSON.parse(text) : null,
          at: Date.now(),
        }),
      );
    };
    const req = typeof target === "string" ? http.get(target, request, onAnswer) : http.get(request, onAnswer);
    req.on("error", (err) => (hangUp !== undefined ? resolve(null) : reject(err)));
    if (hangUp !== undefined) setTimeout(() => req.destroy(), hangUp);
  });
}

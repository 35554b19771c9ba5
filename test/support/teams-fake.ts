/**
 * Local stand-ins of Microsoft's side of a Teams bot, on one loopback HTTP server:
 * - the OpenID metadata (`GET /openid`) naming its key set (`GET /keys`, one RSA key, kid "k1");
 * - the token endpoint (`POST /{tenant}/oauth2/v2.0/token`): client credentials for the bots it
 *   knows, answering a bearer token the connector then requires;
 * - the Bot Connector (`POST /v3/conversations` opens a personal chat `a:chat-<member id>`,
 *   `POST /v3/conversations/{id}/activities`, `PUT …/activities/{activityId}`):
 *   every call recorded, each posted activity kept with its current card (updates applied).
 * `signToken` plays the Bot Framework's side of an incoming activity: a JWT signed with the fake's
 * key (or with a stranger's, for a forged one), with the issuer, audience, expiry and `serviceurl`
 * a test chooses.
 */
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair, SignJWT } from "jose";

export interface Bot {
  appId: string;
  tenantId: string;
  secret: string;
}

export interface PostedActivity {
  id: string;
  conversationId: string;
  card: Record<string, unknown>;
  updates: number;
}

export interface ConnectorCall {
  method: string;
  path: string;
  body: Record<string, unknown>;
}

export interface TeamsFake {
  url: string;
  /** The service URL the Hub may call back (the fake's own origin, with a path as Teams has). */
  serviceUrl: string;
  metadataUrl: string;
  tokenUrl: string;
  calls: ConnectorCall[];
  activities: PostedActivity[];
  tokenRequests: number;
  signToken(claims: {
    audience: string;
    serviceUrl: string;
    issuer?: string;
    expiresInS?: number;
    stranger?: boolean;
  }): Promise<string>;
  close(): Promise<void>;
}

function read(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

/** The Adaptive Card an activity carries. */
export function cardOf(activity: Record<string, unknown>): Record<string, unknown> {
  const att = (activity.attachments as Array<{ content: Record<string, unknown> }> | undefined)?.[0];
  return att?.content ?? {};
}

/** Every TextBlock's text of a card, joined (Markdown escapes removed). */
export function cardText(card: Record<string, unknown>): string {
  return ((card.body as Array<{ text?: string }> | undefined) ?? [])
    .map((b) => b.text ?? "")
    .join("\n")
    .replace(/\\(.)/g, "$1");
}

/** The answer actions of a card: title and the data the click would carry. */
export function answerActions(card: Record<string, unknown>): Array<{ title: string; data: Record<string, unknown> }> {
  return ((card.actions as Array<Record<string, unknown>> | undefined) ?? [])
    .filter((a) => a.type === "Action.Execute")
    .map((a) => ({ title: String(a.title), data: a.data as Record<string, unknown> }));
}

export async function startTeamsFake(bots: Bot[]): Promise<TeamsFake> {
  const { publicKey, privateKey } = await generateKeyPair("RS256");
  const stranger = await generateKeyPair("RS256");
  const jwk = { ...(await exportJWK(publicKey)), kid: "k1", use: "sig", alg: "RS256" };
  const issued = new Set<string>();
  const calls: ConnectorCall[] = [];
  const activities: PostedActivity[] = [];
  let tokenRequests = 0;
  let n = 0;
  let base = "";
  const server: Server = createServer(async (req, res) => {
    const body = await read(req);
    const url = new URL(req.url ?? "/", "http://fake");
    const send = (status: number, json: unknown) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(json));
    };
    if (req.method === "GET" && url.pathname === "/openid")
      return send(200, { issuer: "https://api.botframework.com", jwks_uri: `${base}/keys` });
    if (req.method === "GET" && url.pathname === "/keys") return send(200, { keys: [jwk] });
    const tokenPath = /^\/([^/]+)\/oauth2\/v2\.0\/token$/.exec(url.pathname);
    if (req.method === "POST" && tokenPath) {
      tokenRequests++;
      const form = new URLSearchParams(body);
      const bot = bots.find(
        (b) =>
          b.appId === form.get("client_id") && b.secret === form.get("client_secret") && b.tenantId === tokenPath[1],
      );
      if (!bot || form.get("grant_type") !== "client_credentials") return send(401, { error: "invalid_client" });
      const token = `tok-${++n}-${bot.appId}`;
      issued.add(token);
      return send(200, { access_token: token, token_type: "Bearer", expires_in: 3600 });
    }
    if (req.method === "POST" && url.pathname === "/svc/v3/conversations") {
      const auth = /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1];
      if (!auth || !issued.has(auth)) return send(401, { error: { code: "Unauthorized" } });
      const members = (JSON.parse(body || "{}") as { members?: Array<{ id: string }> }).members ?? [];
      calls.push({ method: "POST", path: url.pathname, body: JSON.parse(body || "{}") });
      return send(201, { id: `a:chat-${members[0]?.id ?? "?"}` });
    }
    const conv = /^\/svc\/v3\/conversations\/([^/]+)\/activities(?:\/([^/]+))?$/.exec(url.pathname);
    if (conv?.[1]) {
      const auth = /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1];
      if (!auth || !issued.has(auth)) return send(401, { error: { code: "Unauthorized" } });
      const activity = JSON.parse(body || "{}") as Record<string, unknown>;
      const conversationId = decodeURIComponent(conv[1]);
      calls.push({ method: req.method ?? "", path: url.pathname, body: activity });
      if (req.method === "POST" && !conv[2]) {
        const id = `act-${++n}`;
        activities.push({ id, conversationId, card: cardOf(activity), updates: 0 });
        return send(201, { id });
      }
      if (req.method === "PUT" && conv[2]) {
        const posted = activities.find((a) => a.id === decodeURIComponent(conv[2] as string));
        if (!posted) return send(404, { error: { code: "NotFound" } });
        posted.card = cardOf(activity);
        posted.updates++;
        return send(200, { id: posted.id });
      }
    }
    send(404, { error: "not found" });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: base,
    serviceUrl: `${base}/svc/`,
    metadataUrl: `${base}/openid`,
    tokenUrl: `${base}/{tenant}/oauth2/v2.0/token`,
    calls,
    activities,
    get tokenRequests() {
      return tokenRequests;
    },
    async signToken(c) {
      const now = Math.floor(Date.now() / 1000);
      const exp = now + (c.expiresInS ?? 300);
      return new SignJWT({ serviceurl: c.serviceUrl })
        .setProtectedHeader({ alg: "RS256", kid: "k1" })
        .setIssuer(c.issuer ?? "https://api.botframework.com")
        .setAudience(c.audience)
        .setIssuedAt(Math.min(now, exp - 60))
        .setNotBefore(Math.min(now, exp - 60))
        .setExpirationTime(exp)
        .sign(c.stranger ? stranger.privateKey : privateKey);
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

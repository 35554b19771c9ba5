/**
 * A local Slack-compatible Web API for the real `@slack/web-api` client the Hub uses
 * (`SLACK_API_URL=<fake>/api/`): `auth.test`, `chat.postMessage`, `chat.update`,
 * `chat.postEphemeral`, with form or JSON bodies as the client sends them, the bearer token checked
 * against the workspaces it knows, and `{ok:false, error}` replies when a test asks for a failure.
 * Every call is recorded; each posted message is kept with its current blocks (updates applied).
 * `click` plays Slack's side of an interaction: a `block_actions` payload for a user and a button,
 * signed (v0) with the given secret and timestamp, POSTed to the Hub's interaction URL.
 */
import { createHmac } from "node:crypto";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface Workspace {
  token: string;
  teamId: string;
  teamName: string;
  botUserId: string;
}

export interface SlackCall {
  method: string;
  teamId: string;
  args: Record<string, unknown>;
}

export interface SlackPostRecord {
  channel: string;
  ts: string;
  teamId: string;
  text: string;
  blocks: Array<Record<string, unknown>>;
  updates: number;
}

export interface SlackFake {
  url: string;
  apiUrl: string;
  calls: SlackCall[];
  posts: SlackPostRecord[];
  /** The next call of `method` answers `{ok:false, error}` (or this HTTP status). */
  failNext(method: string, failure: { error: string } | { status: number }): void;
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

/** The client sends form bodies with objects JSON-encoded; JSON bodies are taken as they are. */
function parseArgs(contentType: string, body: string): Record<string, unknown> {
  if (contentType.startsWith("application/json")) return JSON.parse(body || "{}") as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [k, v] of new URLSearchParams(body)) {
    out[k] = k === "blocks" || k === "attachments" ? JSON.parse(v) : v;
  }
  return out;
}

export async function startSlackFake(workspaces: Workspace[]): Promise<SlackFake> {
  const calls: SlackCall[] = [];
  const posts: SlackPostRecord[] = [];
  const failures = new Map<string, Array<{ error: string } | { status: number }>>();
  let seq = 0;

  const server: Server = createServer(async (req, res) => {
    const body = await read(req);
    const method = (req.url ?? "").replace(/^\/api\//, "").split("?")[0] ?? "";
    const reply = (status: number, json: unknown) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(json));
    };
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1];
    const ws = workspaces.find((w) => w.token === token);
    if (!ws) return reply(200, { ok: false, error: "invalid_auth" });
    const args = parseArgs(String(req.headers["content-type"] ?? ""), body);
    calls.push({ method, teamId: ws.teamId, args });
    const failure = failures.get(method)?.shift();
    if (failure && "status" in failure) return reply(failure.status, { ok: false });
    if (failure) return reply(200, { ok: false, error: failure.error });
    switch (method) {
      case "auth.test":
        return reply(200, { ok: true, team: ws.teamName, team_id: ws.teamId, user_id: ws.botUserId, bot_id: "B1" });
      case "chat.postMessage": {
        const requested = String(args.channel ?? "");
        if (!/^[CGDU][A-Z0-9]+$/.test(requested)) return reply(200, { ok: false, error: "channel_not_found" });
        // Posting to a user id lands in the app's DM with that user, as Slack does.
        const channel = requested.startsWith("U") ? `D${requested.slice(1)}` : requested;
        const ts = `${Math.floor(Date.now() / 1000)}.${String(++seq).padStart(6, "0")}`;
        posts.push({
          channel,
          ts,
          teamId: ws.teamId,
          text: String(args.text ?? ""),
          blocks: (args.blocks as Array<Record<string, unknown>>) ?? [],
          updates: 0,
        });
        return reply(200, { ok: true, channel, ts });
      }
      case "chat.update": {
        const post = posts.find((p) => p.channel === args.channel && p.ts === args.ts && p.teamId === ws.teamId);
        if (!post) return reply(200, { ok: false, error: "message_not_found" });
        post.text = String(args.text ?? "");
        post.blocks = (args.blocks as Array<Record<string, unknown>>) ?? [];
        post.updates++;
        return reply(200, { ok: true, channel: post.channel, ts: post.ts });
      }
      case "chat.postEphemeral":
        return reply(200, { ok: true, message_ts: `${Date.now() / 1000}` });
      default:
        return reply(200, { ok: false, error: "unknown_method" });
    }
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    apiUrl: `${url}/api/`,
    calls,
    posts,
    failNext(method, failure) {
      failures.set(method, [...(failures.get(method) ?? []), failure]);
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/** The answer buttons of a post (action id prefix `ma2h_answer_`), by their text. */
export function answerButtons(post: { blocks: Array<Record<string, unknown>> }): Map<string, string> {
  const out = new Map<string, string>();
  for (const b of post.blocks)
    if (b.type === "actions")
      for (const e of b.elements as Array<{ action_id: string; text: { text: string }; value?: string }>)
        if (e.action_id.startsWith("ma2h_answer_") && e.value) out.set(e.text.text, e.value);
  return out;
}

/** All the text a post shows, for assertions. */
export function postText(post: { blocks: Array<Record<string, unknown>> }): string {
  return JSON.stringify(post.blocks);
}

export interface Click {
  teamId: string;
  userId: string;
  channelId: string;
  value: string;
  actionId?: string;
  /** The payload's `user.username` (the id lower-cased by default). */
  userName?: string;
  /** The payload's `team.domain` ("test" by default). */
  teamDomain?: string;
  /** Seconds since the epoch; now by default. */
  timestamp?: number;
}

export function signSlack(secret: string, timestamp: string, body: string): string {
  return `v0=${createHmac("sha256", secret).update(`v0:${timestamp}:${body}`).digest("hex")}`;
}

/** Slack's side of a button click: the signed form POST to the Hub's interaction URL. */
export async function click(interactionUrl: string, secret: string, c: Click): Promise<Response> {
  const payload = {
    type: "block_actions",
    team: { id: c.teamId, domain: c.teamDomain ?? "test" },
    user: { id: c.userId, username: c.userName ?? c.userId.toLowerCase(), team_id: c.teamId },
    api_app_id: "A1",
    container: { type: "message", channel_id: c.channelId, is_ephemeral: false },
    channel: { id: c.channelId, name: "x" },
    trigger_id: "1.2.3",
    actions: [
      {
        type: "button",
        action_id: c.actionId ?? "ma2h_answer_0",
        block_id: "ma2h_actions",
        value: c.value,
        action_ts: `${Date.now() / 1000}`,
      },
    ],
  };
  const body = new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
  const timestamp = String(c.timestamp ?? Math.floor(Date.now() / 1000));
  return fetch(interactionUrl, {
    method: "POST",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      "x-slack-request-timestamp": timestamp,
      "x-slack-signature": signSlack(secret, timestamp, body),
    },
    body,
  });
}

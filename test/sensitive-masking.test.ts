/**
 * Nothing sensitive reaches a browser that should not see it (§9.6): the item page's bytes —
 * the HTML and the RSC payload the client components are built from — hold no value of a masked
 * field (every field of a `sensitive: true` ask, an `x-ma2h-sensitive` field of any other), neither
 * in `default_on_expire` nor in the outcome; and a callback URL shows its path only to the account's
 * owners and admins, its query string to no one. A masked field left blank answers with the
 * suggestion the server kept.
 */
// covers: lib/inbox/view.ts, app/inbox/[id]/page.tsx, lib/inbox/deliveries.ts
import { describe, expect, it } from "vitest";
import { db } from "../lib/db";
import { answerAsHuman } from "../lib/inbox/answer";
import { createWebSession, SESSION_COOKIE_NAMES } from "../lib/principals/web-sessions";
import { client } from "./support/hub";
import { useHubFixture } from "./support/hub-fixture";
import { approveOrigin, envelope } from "./support/provision";

const BOT = "vault/bot";
const CALLBACK_ORIGIN = "http://127.0.0.1:9";
const SECRET_DEFAULT = "SENSITIVE-DEFAULT-Tk7q";
const SECRET_REGION = "eu-hidden-Rg2w";
const FIELD_SECRET = "FIELD-SECRET-Pw9x";
const VISIBLE_NOTE = "visible-note-Nt4k";
const CALLBACK_PATH = "/hooks/PATH-SECRET-Cb3z";
const CALLBACK_QUERY = "tok=QUERY-SECRET-Qy8m";

const hub = useHubFixture({
  accounts: {
    acme: {
      agents: [BOT],
      humans: [
        { handle: "olga", role: "owner" },
        { handle: "mia", role: "member" },
        { handle: "val", role: "viewer" },
      ],
    },
  },
  setup: async () => approveOrigin(BOT, "acme", CALLBACK_ORIGIN),
  env: { MA2H_DEV_CALLBACK_ALLOWLIST: CALLBACK_ORIGIN },
});
const acme = hub.account("acme");

async function submit(over: Record<string, unknown>): Promise<string> {
  const res = await client(hub.url, acme.keys[BOT]).post("/v1/messages", envelope("ask", BOT, over));
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  return res.body.id as string;
}

const inputAsk = (sensitive: boolean) => ({
  ma2h_version: "0.6",
  ...(sensitive ? { sensitive: true } : {}),
  request: sensitive
    ? {
        mode: "input",
        schema: {
          type: "object",
          properties: { token: { type: "string" }, region: { type: "string" } },
          required: ["token"],
        },
        default_on_expire: { token: SECRET_DEFAULT, region: SECRET_REGION },
      }
    : {
        mode: "input",
        schema: {
          type: "object",
          properties: { password: { type: "string", "x-ma2h-sensitive": true }, note: { type: "string" } },
        },
        default_on_expire: { password: FIELD_SECRET, note: VISIBLE_NOTE },
      },
});

/** Every byte the item page sends a signed-in person: the HTML document and the RSC payload. */
async function pageBytes(handle: string, id: string): Promise<string> {
  const user = await db().user.findUniqueOrThrow({ where: { email: `${handle}@acme.test` } });
  const token = `sess-${handle}-${Date.now()}-${Math.random().toString(36).slice(2)}`;
  await createWebSession(user.id, token, new Date(Date.now() + 3_600_000));
  const cookie = `${SESSION_COOKIE_NAMES[1]}=${token}`;
  const html = await fetch(`${hub.url}/inbox/${id}`, { headers: { cookie }, redirect: "manual" });
  expect(html.status).toBe(200);
  // Next answers an RSC request without its `_rsc` cache key with a redirect that adds it: follow it.
  const rsc = await fetch(`${hub.url}/inbox/${id}`, { headers: { cookie, rsc: "1" } });
  expect(rsc.status).toBe(200);
  expect(rsc.headers.get("content-type")).toContain("text/x-component");
  const list = await fetch(`${hub.url}/inbox`, { headers: { cookie, rsc: "1" } });
  expect(list.status).toBe(200);
  return `${await html.text()}\n${await rsc.text()}\n${await list.text()}`;
}

describe("masked values never reach the browser (§9.6)", () => {
  it("a sensitive:true ask's default_on_expire is absent from the page's HTML and RSC payload", async () => {
    const id = await submit(inputAsk(true));
    for (const handle of ["olga", "mia", "val"]) {
      const bytes = await pageBytes(handle, id);
      expect(bytes).toContain('data-testid="item-title"'); // the page itself rendered
      expect(bytes).not.toContain(SECRET_DEFAULT);
      expect(bytes).not.toContain(SECRET_REGION);
    }
  });

  it("an x-ma2h-sensitive field's default is absent, the other fields' defaults still prefill", async () => {
    const id = await submit(inputAsk(false));
    const bytes = await pageBytes("mia", id);
    expect(bytes).not.toContain(FIELD_SECRET);
    expect(bytes).toContain(VISIBLE_NOTE);
  });

  it("a masked field left blank answers with the suggestion the server kept; the outcome stays masked", async () => {
    const id = await submit(inputAsk(true));
    const mia = await db().user.findUniqueOrThrow({ where: { email: "mia@acme.test" } });
    // As the browser sends it: the fields it could prefill (none), the rest blank.
    const res = await answerAsHuman(mia.id, id, { kind: "answer", input: { token: "", region: "" } });
    expect(res).toEqual({ ok: true, status: "answered" });
    const pulled = await client(hub.url, acme.keys[BOT]).get(`/v1/messages/${id}`);
    expect(pulled.body.response.response.value).toEqual({ token: SECRET_DEFAULT, region: SECRET_REGION });
    // A typed value wins over the suggestion.
    const typed = await submit(inputAsk(true));
    await answerAsHuman(mia.id, typed, { kind: "answer", input: { token: "typed-by-mia" } });
    expect((await client(hub.url, acme.keys[BOT]).get(`/v1/messages/${typed}`)).body.response.response.value).toEqual({
      token: "typed-by-mia",
      region: SECRET_REGION,
    });
    const bytes = await pageBytes("olga", id);
    expect(bytes).toContain('data-testid="outcome"');
    expect(bytes).not.toContain(SECRET_DEFAULT);
    expect(bytes).not.toContain(SECRET_REGION);
  });
});

describe("callback URLs on the item page", () => {
  it("viewers and members see the origin only; owners the path; nobody the query string", async () => {
    const id = await submit({
      request: {
        mode: "select",
        options: [
          { value: "ship", label: "Ship" },
          { value: "hold", label: "Hold" },
        ],
        callback: {
          mode: "push",
          url: `${CALLBACK_ORIGIN}${CALLBACK_PATH}?${CALLBACK_QUERY}`,
          auth: { scheme: "hmac", secret_ref: "cb" },
        },
      },
    });
    const resolved = await client(hub.url, acme.tokens.olga).post(`/v1/messages/${id}/resolve`, {
      resolution: "answered",
      value: "ship",
    });
    expect(resolved.status).toBe(200);
    expect(await db().pushDelivery.count({ where: { messageId: id } })).toBe(1);

    for (const handle of ["val", "mia"]) {
      const bytes = await pageBytes(handle, id);
      expect(bytes).toContain('data-testid="deliveries"');
      expect(bytes).toContain(CALLBACK_ORIGIN);
      expect(bytes).not.toContain("PATH-SECRET-Cb3z");
      expect(bytes).not.toContain("QUERY-SECRET-Qy8m");
    }
    const owner = await pageBytes("olga", id);
    expect(owner).toContain(`${CALLBACK_ORIGIN}${CALLBACK_PATH}`);
    expect(owner).not.toContain("QUERY-SECRET-Qy8m");
  });
});

/**
 * The Hub a fuzz run drives: an account with two agents and an owner (API keys, a personal access
 * token and a browser session), a second account whose agent key must see none of the first one's
 * objects, and some messages and directives to aim ids at. Provisioning goes through the same domain
 * verbs the CLI uses (this process's lib/ pointed at the Hub's database); the objects are made over
 * HTTP like any client's.
 */
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { repoRoot } from "../../test/support/hub";
import { buildEnvelope, type Verb } from "../../test/support/envelope";
import { provisionAccount } from "../../test/support/provision";
import { createWebSession, userByEmail } from "../../lib/principals/web-sessions";
import type { FuzzContext } from "./cases";

/**
 * The fuzzed web process's environment. The Hub's own limits would turn most of a long run into
 * 429s: raised out of the way. Its V8 heap is capped at 256 MiB: uncapped, V8 on a machine with
 * free memory grows the heap by hundreds of MiB before it collects the garbage of big bodies, which
 * measures V8's laziness, not the Hub. Capped, a leak still shows — as RSS growth, or as an
 * out-of-memory exit that fails the run (docs/decisions/auth-and-security.md).
 */
export const FUZZ_HUB_ENV = {
  MA2H_RATE_LIMIT_PER_MINUTE: "1000000000",
  MA2H_INBOX_DEPTH: "1000000000",
  // Every case comes from one address and many present bad credentials: the throttle would answer
  // them all 429 before the code under test runs.
  MA2H_AUTH_FAILURES_PER_MINUTE: "1000000000",
  NODE_OPTIONS: "--max-old-space-size=256",
};

export const FUZZ_ACCOUNTS = {
  fuzz: { agents: ["fuzz/alpha", "fuzz/beta"], humans: [{ handle: "olive", role: "owner" as const }] },
  elsewhere: { agents: ["elsewhere/gamma"], humans: [] },
};

async function post(url: string, token: string, body: unknown): Promise<{ id: string }> {
  const res = await fetch(url, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`fuzz set-up: POST ${new URL(url).pathname} answered ${res.status}`);
  return (await res.json()) as { id: string };
}

/** Provisions the accounts (lib/ must already point at the Hub's database). */
export async function provisionFuzzAccounts(): Promise<{
  keys: Record<string, string>;
  foreignKey: string;
  humanToken: string;
  sessionToken: string;
}> {
  const fuzz = await provisionAccount("fuzz", FUZZ_ACCOUNTS.fuzz.agents, FUZZ_ACCOUNTS.fuzz.humans);
  const other = await provisionAccount("elsewhere", FUZZ_ACCOUNTS.elsewhere.agents);
  const owner = await userByEmail("olive@fuzz.test");
  if (!owner) throw new Error("fuzz set-up: the owner was not created");
  const sessionToken = randomBytes(24).toString("base64url");
  await createWebSession(owner.id, sessionToken, new Date(Date.now() + 86_400_000));
  return {
    keys: fuzz.keys,
    foreignKey: other.keys["elsewhere/gamma"] as string,
    humanToken: fuzz.tokens.olive as string,
    sessionToken,
  };
}

/**
 * The build's Server Actions, each with a page that serves it (one without a dynamic segment), from
 * Next's server-reference manifest: a fuzz case can then name a real action, as a page's script does.
 */
export function buildActions(): Array<{ id: string; path: string }> {
  const file = join(repoRoot, ".next/server/server-reference-manifest.json");
  const manifest = JSON.parse(readFileSync(file, "utf8")) as {
    node?: Record<string, { workers: Record<string, unknown> }>;
  };
  const out: Array<{ id: string; path: string }> = [];
  for (const [id, entry] of Object.entries(manifest.node ?? {})) {
    const page = Object.keys(entry.workers).find((w) => w.endsWith("/page") && !w.includes("["));
    if (page) out.push({ id, path: page.replace(/^app/, "").replace(/\/page$/, "") || "/" });
  }
  return out;
}

/** Submits messages of every verb and authors directives, and returns the context of the run. */
export async function fuzzContext(
  baseUrl: string,
  creds: Awaited<ReturnType<typeof provisionFuzzAccounts>>,
): Promise<FuzzContext> {
  const agentIds = FUZZ_ACCOUNTS.fuzz.agents;
  const tag = randomBytes(4).toString("hex");
  const messageIds: string[] = [];
  for (let n = 0; n < 24; n++) {
    const verb = (["ask", "task", "notify"] as Verb[])[n % 3] as Verb;
    const agent = agentIds[n % 2] as string;
    const envelope = buildEnvelope(verb, agent, n, { version: "0.6", idempotencyKey: (i) => `fuzz-seed-${tag}-${i}` });
    messageIds.push((await post(`${baseUrl}/v1/messages`, creds.keys[agent] as string, envelope)).id);
  }
  const directiveIds: string[] = [];
  for (let n = 0; n < 8; n++) {
    const to = `agent:${agentIds[n % 2]}`;
    directiveIds.push((await post(`${baseUrl}/v1/directives`, creds.humanToken, { to, title: `directive ${n}` })).id);
  }
  return {
    slug: "fuzz",
    agentIds,
    agentKeys: creds.keys,
    foreignKey: creds.foreignKey,
    humanToken: creds.humanToken,
    sessionToken: creds.sessionToken,
    messageIds,
    directiveIds,
    publicUrl: baseUrl,
    actions: buildActions(),
  };
}

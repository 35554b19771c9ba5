/**
 * Provisioning for HTTP tests: points this test process's lib/ at a test database and creates
 * accounts, humans, tokens and agents through the same domain verbs the CLI uses.
 */
import { closeDb } from "../../lib/db";
import { resetEnvCache } from "../../lib/env";
import { createAccount } from "../../lib/principals/accounts";
import { createAgent } from "../../lib/principals/agents";
import { addBinding } from "../../lib/principals/bindings";
import { createToken } from "../../lib/principals/tokens";
import { closeProducers } from "../../lib/queue/producer";
import { addUser } from "../../lib/principals/users";
import { TEST_AUTH_SECRET } from "./hub";

export async function useDatabase(url: string): Promise<void> {
  await closeDb();
  process.env.DATABASE_URL = url;
  process.env.AUTH_SECRET = TEST_AUTH_SECRET;
  process.env.LOG_LEVEL = "silent";
  resetEnvCache();
}

export async function releaseDatabase(): Promise<void> {
  // In-process submits wake jobs through queue producers on this database (the notification
  // fan-out of every ask/task): close them before the database is dropped under them.
  await closeProducers();
  await closeDb();
}

export interface Human {
  handle: string;
  role: "owner" | "admin" | "member" | "viewer";
}

export interface Provisioned {
  slug: string;
  /** agent.id → API key */
  keys: Record<string, string>;
  /** handle → personal access token */
  tokens: Record<string, string>;
}

export async function provisionAccount(slug: string, agents: string[], humans: Human[] = []): Promise<Provisioned> {
  await createAccount(slug);
  const keys: Record<string, string> = {};
  for (const id of agents) keys[id] = (await createAgent(id, slug)).api_key;
  const tokens: Record<string, string> = {};
  for (const h of humans) {
    const email = `${h.handle}@${slug}.test`;
    await addUser(email, slug, h.handle, h.role);
    tokens[h.handle] = (await createToken(email)).token;
  }
  return { slug, keys, tokens };
}

export async function approveOrigin(
  agentId: string,
  slug: string,
  origin: string,
  secretRef = "cb",
  secret = "s3cret-value",
): Promise<void> {
  await addBinding({ agentRef: { agentId, accountSlug: slug }, origin, secretRef, secret });
}

/** The tests' envelope factory lives in ./envelope (shared with e2e/ and scripts/). */
export { envelope } from "./envelope";

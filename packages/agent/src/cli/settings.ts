/**
 * The settings every command shares: the Hub connection (flags override MA2H_URL, MA2H_API_KEY,
 * MA2H_AGENT_ID), the local store directory (replay cache, dedup records, the submit journal), and
 * reading the files and keys named on the command line.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { Ma2hClient } from "../client";
import { FileSubmitJournal } from "../journal";
import { type FlagSpec, type Parsed, UsageError } from "./args";

export const CONNECTION_FLAGS: Record<string, FlagSpec> = {
  url: { kind: "string", value: "URL", help: "the Hub's base URL (default $MA2H_URL)" },
  "api-key": { kind: "string", value: "KEY", help: "the agent's API key (default $MA2H_API_KEY; prefer the env)" },
  "agent-id": { kind: "string", value: "ID", help: "the agent id the key is scoped to (default $MA2H_AGENT_ID)" },
};

export const STORE_FLAG: Record<string, FlagSpec> = {
  store: { kind: "string", value: "DIR", help: "local store directory (default $MA2H_STORE_DIR or ~/.ma2h)" },
};

/** A setting from its flag, else its environment variable; `undefined` when neither is set. */
export function setting(args: Parsed, flag: string, env: string): string | undefined {
  const value = args.strings[flag] ?? process.env[env];
  return value === undefined || value === "" ? undefined : value;
}

function required(args: Parsed, flag: string, env: string): string {
  const value = setting(args, flag, env);
  if (value === undefined) throw new UsageError(`no ${flag.replace("-", " ")}: pass --${flag} or set ${env}`);
  return value;
}

export function hubUrl(args: Parsed): string {
  const url = required(args, "url", "MA2H_URL");
  try {
    new URL(url);
  } catch {
    throw new UsageError(`--url / MA2H_URL is not a URL: "${url}"`);
  }
  return url.replace(/\/+$/u, "");
}

export function storeDir(args: Parsed): string {
  return resolve(setting(args, "store", "MA2H_STORE_DIR") ?? join(homedir(), ".ma2h"));
}

export interface Connection {
  client: Ma2hClient;
  journal: FileSubmitJournal;
}

/** The agent's submit journal under the store directory (what `ma2h ask` writes, `receive --journal` reads). */
export function agentJournal(args: Parsed): FileSubmitJournal {
  const agentId = required(args, "agent-id", "MA2H_AGENT_ID");
  // One journal per agent: the Hub scopes an idempotency key to agent.id (§8.1). Not per URL, so a
  // rerun that spells the Hub's address differently (or reaches it through a proxy) still recovers.
  const scope = createHash("sha256").update(agentId).digest("hex").slice(0, 16);
  return new FileSubmitJournal(join(storeDir(args), "journal", scope));
}

/** The client, with a file journal scoped to this agent under the store directory. */
export function connect(args: Parsed): Connection {
  const url = hubUrl(args);
  const agentId = required(args, "agent-id", "MA2H_AGENT_ID");
  const apiKey = required(args, "api-key", "MA2H_API_KEY");
  const journal = agentJournal(args);
  return { client: new Ma2hClient({ url, apiKey, agentId, runtime: "cli", journal }), journal };
}

/** A file's text, or stdin's for "-". A missing file is a usage error. */
export function readText(path: string, flag: string): string {
  try {
    return readFileSync(path === "-" ? 0 : path, "utf8");
  } catch (err) {
    throw new UsageError(`--${flag}: cannot read ${path === "-" ? "stdin" : path}: ${(err as Error).message}`);
  }
}

/** A file's bytes, or stdin's for "-" (signatures cover the exact bytes). */
export function readBytes(path: string, flag: string): Uint8Array {
  try {
    return readFileSync(path === "-" ? 0 : path);
  } catch (err) {
    throw new UsageError(`--${flag}: cannot read ${path === "-" ? "stdin" : path}: ${(err as Error).message}`);
  }
}

/** The state-seal key from the environment variable `--state-key-env` names (default MA2H_STATE_KEY). */
export function stateKey(args: Parsed): string {
  const name = args.strings["state-key-env"] ?? "MA2H_STATE_KEY";
  const key = process.env[name];
  if (!key) throw new UsageError(`no state key: set ${name} (the §9.3 seal key, kept in the agent's runtime)`);
  return key;
}

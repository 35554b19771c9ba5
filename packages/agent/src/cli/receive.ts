/**
 * `ma2h receive` and `ma2h verify` — run #2 of the §2.1 pattern, for a re-invoke endpoint that hands
 * the pushed request to a shell: verify the §9.2 signature (HMAC with the secret from the
 * environment, else ed25519 with the Hub's published keys) inside the ±120 s window, refuse a seen
 * `jti`, open the sealed `state` (§9.3, untrusted until it opens), then reserve (in_reply_to,
 * resolution_id) so the answer is acted on at most once (§6) — the replay cache and the reservations
 * are files under the store directory, so they hold across process exits. `verify` only verifies.
 */
import { join } from "node:path";
import { openState } from "../state";
import { FileDedupStore, FileReplayStore, MemoryReplayStore, responseDedupKey } from "../stores";
import { type VerifyPushOptions, verifyPush } from "../verify-push";
import { type CommandSpec, type FlagSpec, type Parsed, UsageError } from "./args";
import { EXIT, type ExitCode } from "./exit-codes";
import { CliFailure } from "./output";
import { agentJournal, hubUrl, readBytes, STORE_FLAG, setting, stateKey, storeDir } from "./settings";

const RECEIVE_FLAGS: Record<string, FlagSpec> = {
  body: { kind: "string", value: "FILE|-", help: "the pushed request body, byte for byte (- for stdin)" },
  signature: { kind: "string", value: "HEADER", help: "the value of its MA2H-Signature header" },
  "callback-url": { kind: "string", value: "URL", help: "the callback URL the push was sent to, as in the ask" },
  "secret-env": {
    kind: "list",
    value: "NAME",
    help: "env var holding the HMAC secret; repeat during rotation (default MA2H_CALLBACK_SECRET; none set: ed25519)",
  },
  "state-key-env": { kind: "string", value: "NAME", help: "env var holding the state key (default MA2H_STATE_KEY)" },
  url: { kind: "string", value: "URL", help: "the Hub whose published ed25519 keys verify (default $MA2H_URL)" },
  "key-id": {
    kind: "list",
    value: "KID",
    help: "ed25519: accept only this key id, your account's (GET /v1/agents/me); repeat during rotation (default $MA2H_KEY_ID, comma-separated)",
  },
  journal: {
    kind: "boolean",
    help: "refuse an answer to a message this agent's journal in the store never submitted (needs --agent-id / $MA2H_AGENT_ID)",
  },
  "agent-id": { kind: "string", value: "ID", help: "whose journal --journal reads (default $MA2H_AGENT_ID)" },
  ...STORE_FLAG,
};

export const receiveSpec: CommandSpec = {
  name: "receive",
  summary:
    "Verify a pushed Response, open its sealed state and act at most once: prints {response, state} as JSON. " +
    "Exit 6 when the push was seen before (same jti, or the same answer already received).",
  positionals: [],
  flags: RECEIVE_FLAGS,
};

export const verifySpec: CommandSpec = {
  name: "verify",
  summary: "Only verify a pushed Response (signature and window; no state, no replay or dedup records). Prints it.",
  positionals: [],
  flags: RECEIVE_FLAGS,
};

function need(args: Parsed, flag: string): string {
  const v = args.strings[flag];
  if (v === undefined || v === "") throw new UsageError(`--${flag} is required`);
  return v;
}

/** The pinned key ids: --key-id (repeatable), else MA2H_KEY_ID (comma-separated); undefined when neither. */
function keyIds(args: Parsed): string[] | undefined {
  const given = args.lists["key-id"] ?? (process.env.MA2H_KEY_ID ?? "").split(",");
  const ids = given.map((k) => k.trim()).filter((k) => k !== "");
  return ids.length ? ids : undefined;
}

/** The verification inputs: the HMAC secrets from the environment, else the Hub's ed25519 keys. */
function trust(args: Parsed): Pick<VerifyPushOptions, "hmacSecret" | "hubUrl" | "keyId"> {
  const named = args.lists["secret-env"];
  const secrets: string[] = [];
  for (const name of named ?? ["MA2H_CALLBACK_SECRET"]) {
    const value = process.env[name];
    if (value) secrets.push(value);
    else if (named) throw new UsageError(`--secret-env ${name}: the variable is not set`);
  }
  const pinned = keyIds(args);
  if (secrets.length) {
    if (args.lists["key-id"]) throw new UsageError("--key-id pins an ed25519 key: it does not apply to an hmac secret");
    return { hmacSecret: secrets };
  }
  if (setting(args, "url", "MA2H_URL") === undefined)
    throw new UsageError("nothing to verify with: set MA2H_CALLBACK_SECRET (hmac) or --url / MA2H_URL (ed25519)");
  return pinned ? { hubUrl: hubUrl(args), keyId: pinned } : { hubUrl: hubUrl(args) };
}

async function verified(args: Parsed, replayStore: VerifyPushOptions["replayStore"]) {
  const callbackUrl = need(args, "callback-url");
  const signature = need(args, "signature");
  const body = readBytes(need(args, "body"), "body");
  const journal = args.booleans.journal ? agentJournal(args) : undefined;
  return verifyPush({ "ma2h-signature": signature }, body, {
    callbackUrl,
    replayStore,
    ...trust(args),
    ...(journal ? { journal } : {}),
  });
}

export async function verify(args: Parsed): Promise<ExitCode> {
  // No replay record: verifying first must not make the later `receive` of the same push a replay.
  const response = await verified(args, new MemoryReplayStore());
  process.stdout.write(`${JSON.stringify(response)}\n`);
  return EXIT.ok;
}

export async function receive(args: Parsed): Promise<ExitCode> {
  const dir = storeDir(args);
  const response = await verified(args, new FileReplayStore(join(dir, "replay")));
  // §9.3: the state is untrusted until it opens with our own key; a state that does not open is refused.
  const state = response.state === undefined ? null : openState(response.state, stateKey(args));
  const dedup = new FileDedupStore(join(dir, "dedup"));
  const key = responseDedupKey(response);
  if (!(await dedup.reserve(key)))
    throw new CliFailure(
      EXIT.replayed,
      "replayed",
      `${response.in_reply_to} resolution ${response.resolution_id} was already received; not acting again`,
    );
  try {
    await new Promise<void>((ok, fail) =>
      process.stdout.write(`${JSON.stringify({ response, state })}\n`, (err) => (err ? fail(err) : ok())),
    );
  } catch (err) {
    // Nothing was handed on: undo the reservation so a redelivery is acted on.
    await dedup.release(key);
    throw err;
  }
  return EXIT.ok;
}

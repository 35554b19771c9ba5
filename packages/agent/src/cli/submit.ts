/**
 * What `notify` and `ask` share: the common envelope flags, and submitting once per idempotency key.
 * With --idempotency-key the client journals the exact submit bytes (§8.1: the dedup hash covers
 * `created_at`, so a rebuilt body would be a 409); running the same command again after a crash
 * replays those bytes and recovers the original id instead of asking twice.
 */
import type { SubmitAck } from "@ma2h/protocol/submit-ack";
import { ADDRESS_PATTERN } from "@ma2h/protocol/wire";
import type { CommonInput, Priority } from "../envelopes";
import { type FlagSpec, type Parsed, UsageError } from "./args";
import { note } from "./output";
import { type Connection, readText } from "./settings";

const PRIORITIES: readonly Priority[] = ["low", "normal", "high", "urgent"];

export const ENVELOPE_FLAGS: Record<string, FlagSpec> = {
  "body-file": { kind: "string", value: "FILE", help: "the body (Markdown) from FILE, or stdin for -" },
  priority: { kind: "string", value: "P", help: "low | normal | high | urgent" },
  tag: { kind: "list", value: "T", help: "a tag" },
  "idempotency-key": {
    kind: "string",
    value: "K",
    help: "submit at most once per K: a rerun replays the first submit's exact bytes (journal in the store)",
  },
  json: { kind: "boolean", help: "print JSON (the ack, or the whole Response) instead of the bare value" },
  to: {
    kind: "string",
    value: "ADDR",
    help: "send to another agent of the account, agent:<id> or agent:<id>#sess_… (§4), not to the people",
  },
};

export function commonInput(args: Parsed): CommonInput {
  const title = args.positionals[0] as string;
  if (title.trim() === "") throw new UsageError("the title is empty");
  const out: CommonInput = { title };
  const bodyFile = args.strings["body-file"];
  if (bodyFile !== undefined) out.body = readText(bodyFile, "body-file");
  const priority = args.strings.priority;
  if (priority !== undefined) {
    const known = PRIORITIES.find((p) => p === priority);
    if (known === undefined) throw new UsageError(`--priority must be one of ${PRIORITIES.join(", ")}`);
    out.priority = known;
  }
  if (args.lists.tag) out.tags = args.lists.tag;
  const to = args.strings.to;
  if (to !== undefined) {
    if (!ADDRESS_PATTERN.test(to)) throw new UsageError(`--to must be agent:<id> or agent:<id>#sess_… (got "${to}")`);
    out.to = to;
  }
  const key = args.strings["idempotency-key"];
  if (key !== undefined) {
    if (key === "") throw new UsageError("--idempotency-key is empty");
    out.idempotencyKey = key;
  }
  return out;
}

/**
 * Submits through `fresh()` — unless this idempotency key already has journaled bytes, which are
 * replayed as they are (the flags of this run are then not used: the first submit is the message).
 */
export async function submitOnce(
  { client, journal }: Connection,
  key: string | undefined,
  fresh: () => Promise<SubmitAck>,
): Promise<SubmitAck> {
  if (key !== undefined && (await journal.load(key)) !== null) {
    const { ack } = await client.messages.replay(key);
    note(`idempotency key ${JSON.stringify(key)} was used before: replayed its submit, ${ack.id}`);
    return ack;
  }
  return fresh();
}

/**
 * §8.1: an addressed submit's ack carries the destination's reachability at send time; say it, so
 * the person running the command knows whether the message will be picked up promptly.
 */
export function noteDestination(to: string | undefined, ack: SubmitAck): void {
  if (to === undefined || ack.destination === undefined) return;
  const { state, last_seen } = ack.destination;
  note(`${ack.id} to ${to}: destination ${state}${last_seen ? ` (last seen ${last_seen})` : ""}`);
}

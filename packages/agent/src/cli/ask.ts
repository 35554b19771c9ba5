/**
 * `ma2h ask confirm | select | input <title>` — ask a person and, unless --detach, wait for the
 * terminal Response. --timeout sets the ask's `expires_at`, so the Hub's own expiry (with --default
 * as `default_on_expire`, §7) ends it; the command then waits a grace period longer for that
 * Response before giving up (exit 7). --detach is the §2.1 pattern: seal --state, name a --callback
 * that re-invokes the agent, print the id, exit; a later `ma2h receive` acts on the pushed answer.
 * --require-human marks the ask `x-ma2h-human-only` (no standing rule answers it) and exits 9 when a
 * non-person answers or declines it anyway (outcome.ts).
 */
import { readFileSync } from "node:fs";
import type { SubmitAck } from "@ma2h/protocol/submit-ack";
import type { CallbackInput, CommonInput, ConfirmInput, SelectInput } from "../envelopes";
import type { AskShape } from "../off-menu";
import { sealState } from "../state";
import { type CommandSpec, type FlagSpec, type Parsed, UsageError } from "./args";
import { parseDuration } from "./duration";
import { EXIT, type ExitCode } from "./exit-codes";
import { note, printJson, printLine } from "./output";
import { CONNECTION_FLAGS, connect, STORE_FLAG, stateKey } from "./settings";
import { commonInput, ENVELOPE_FLAGS, noteDestination, submitOnce } from "./submit";
import { waitAndReport } from "./waiting";

/** How long past `expires_at` the command keeps waiting for the Hub's expiry Response. */
export const EXPIRY_GRACE_MS = 60_000;

const ASK_FLAGS: Record<string, FlagSpec> = {
  ...ENVELOPE_FLAGS,
  timeout: {
    kind: "string",
    value: "D",
    help: "the ask expires after D (90s, 30m, 2h, 1d): sets expires_at; the Hub ends it then",
  },
  detach: { kind: "boolean", help: "print the id and exit without waiting (§2.1; pair with --callback)" },
  "require-human": {
    kind: "boolean",
    help: "only a person may answer: no standing rule; exits 9 naming the actor when a non-person answers anyway",
  },
  callback: {
    kind: "string",
    value: "URL",
    help: "push the Response to URL, an endpoint that re-invokes the agent (§8.3)",
  },
  "secret-ref": {
    kind: "string",
    value: "REF",
    help: "sign the push with the HMAC secret registered under REF (else ed25519)",
  },
  state: { kind: "string", value: "FILE", help: "JSON state, sealed (§9.3) and round-tripped to the Response" },
  "state-key-env": {
    kind: "string",
    value: "NAME",
    help: "the env var holding the state key (default MA2H_STATE_KEY)",
  },
  ...CONNECTION_FLAGS,
  ...STORE_FLAG,
};

const DEFAULT_FLAG: FlagSpec = {
  kind: "string",
  value: "V",
  help: "the answer applied when the ask expires (needs --timeout)",
};

export const askSpecs: Record<string, CommandSpec> = {
  confirm: {
    name: "ask confirm",
    summary: "Ask a yes/no question. Prints approve or deny; exits 0 only when approved.",
    positionals: [{ name: "title", required: true }],
    flags: {
      ...ASK_FLAGS,
      "allow-edit": {
        kind: "boolean",
        help: "also accept a free-form answer (§5.2); it exits 8 (an answer in the person's own words, no approve)",
      },
      default: { ...DEFAULT_FLAG, value: "approve|deny" },
    },
  },
  select: {
    name: "ask select",
    summary: "Ask the person to pick one option. Prints the chosen value.",
    positionals: [{ name: "title", required: true }],
    flags: {
      ...ASK_FLAGS,
      option: { kind: "list", value: "VALUE=LABEL", help: "an option (at least two; the label defaults to the value)" },
      "allow-edit": {
        kind: "boolean",
        help: "also accept a free-form answer outside the options (§5.2); it exits 8, with a note on stderr",
      },
      default: { ...DEFAULT_FLAG, value: "VALUE" },
    },
  },
  input: {
    name: "ask input",
    summary: "Ask the person to fill in fields. Prints the answer object as JSON.",
    positionals: [{ name: "title", required: true }],
    flags: {
      ...ASK_FLAGS,
      field: {
        kind: "list",
        value: "NAME:TYPE[:required]",
        help: "a field of the answer; TYPE is string, number, integer or boolean",
      },
    },
  },
};

const FIELD_TYPES = ["string", "number", "integer", "boolean"];

function options(args: Parsed): Array<{ value: string; label: string }> {
  const raw = args.lists.option ?? [];
  if (raw.length < 2) throw new UsageError("ask select needs at least two --option VALUE=LABEL");
  const out = raw.map((o) => {
    const eq = o.indexOf("=");
    const value = eq === -1 ? o : o.slice(0, eq);
    const label = eq === -1 ? o : o.slice(eq + 1);
    if (value === "" || label === "") throw new UsageError(`--option "${o}": VALUE=LABEL, neither empty`);
    return { value, label };
  });
  const values = out.map((o) => o.value);
  // §5.2: a duplicate value would make the answer ambiguous; the Hub refuses it, we say so first.
  const dup = values.find((v, i) => values.indexOf(v) !== i);
  if (dup !== undefined) throw new UsageError(`--option value "${dup}" given twice`);
  return out;
}

function schema(args: Parsed): Record<string, unknown> {
  const raw = args.lists.field ?? [];
  if (raw.length === 0) throw new UsageError("ask input needs at least one --field NAME:TYPE[:required]");
  const properties: Record<string, { type: string }> = {};
  const required: string[] = [];
  for (const f of raw) {
    const [name, type, flag, ...rest] = f.split(":");
    if (!name || !type || !FIELD_TYPES.includes(type) || rest.length > 0 || (flag !== undefined && flag !== "required"))
      throw new UsageError(`--field "${f}": NAME:TYPE[:required] with TYPE ${FIELD_TYPES.join(" | ")}`);
    if (name in properties) throw new UsageError(`--field ${name} given twice`);
    properties[name] = { type };
    if (flag === "required") required.push(name);
  }
  return { type: "object", properties, ...(required.length ? { required } : {}) };
}

function sealedState(args: Parsed): Record<string, unknown> | undefined {
  const file = args.strings.state;
  if (file === undefined) {
    if (args.strings["state-key-env"] !== undefined) throw new UsageError("--state-key-env needs --state");
    return undefined;
  }
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(file === "-" ? 0 : file, "utf8"));
  } catch (err) {
    throw new UsageError(`--state ${file}: not a readable JSON file (${(err as Error).message})`);
  }
  return sealState(value, stateKey(args));
}

function callback(args: Parsed): CallbackInput | undefined {
  const url = args.strings.callback;
  const ref = args.strings["secret-ref"];
  if (url === undefined) {
    if (ref !== undefined) throw new UsageError("--secret-ref needs --callback");
    return undefined;
  }
  try {
    new URL(url);
  } catch {
    throw new UsageError(`--callback is not a URL: "${url}"`);
  }
  return { url, ...(ref !== undefined ? { auth: { scheme: "hmac" as const, secretRef: ref } } : {}) };
}

export async function ask(mode: "confirm" | "select" | "input", args: Parsed): Promise<ExitCode> {
  const common: CommonInput & { callback?: CallbackInput; requireHuman?: boolean } = commonInput(args);
  const timeout = args.strings.timeout;
  const timeoutMs = timeout !== undefined ? parseDuration(timeout, "timeout") : undefined;
  // Stamped when the envelope is built, after the capability round trip (a slow Hub must not make
  // a short --timeout already past when the submit leaves, §7).
  if (timeoutMs !== undefined) common.expiresInMs = timeoutMs;
  const def = args.strings.default;
  if (def !== undefined && timeoutMs === undefined)
    throw new UsageError("--default applies when the ask expires: give --timeout too");
  const cb = callback(args);
  if (cb) common.callback = cb;
  const state = sealedState(args);
  if (state) common.state = state;
  const detach = args.booleans.detach === true;
  const requireHuman = args.booleans["require-human"] === true;
  if (requireHuman && common.to !== undefined)
    throw new UsageError("--require-human asks a person: not with --to (an agent answers that)");
  if (requireHuman) common.requireHuman = true;

  const connection = connect(args);
  const { client } = connection;
  let submit: () => Promise<SubmitAck>;
  let shape: AskShape = { mode };
  if (mode === "confirm") {
    const input: ConfirmInput = { ...common, ...(args.booleans["allow-edit"] ? { allowEdit: true } : {}) };
    if (def === "approve" || def === "deny") input.defaultOnExpire = def;
    else if (def !== undefined) throw new UsageError("--default for ask confirm is approve or deny");
    submit = async () => (await client.messages.ask.confirm(input)).ack;
  } else if (mode === "select") {
    const opts = options(args);
    if (def !== undefined && !opts.some((o) => o.value === def))
      throw new UsageError(`--default "${def}" is not one of the --option values`);
    const input: SelectInput = {
      ...common,
      options: opts,
      ...(args.booleans["allow-edit"] ? { allowEdit: true } : {}),
      ...(def !== undefined ? { defaultOnExpire: def } : {}),
    };
    submit = async () => (await client.messages.ask.select(input)).ack;
    shape = { mode, optionValues: opts.map((o) => o.value) };
  } else {
    const input = { ...common, schema: schema(args) };
    submit = async () => (await client.messages.ask.input(input)).ack;
  }

  const ack = await submitOnce(connection, common.idempotencyKey, submit);
  noteDestination(common.to, ack);
  if (detach) {
    if (args.booleans.json) printJson(ack);
    else printLine(ack.id);
    return EXIT.ok;
  }
  note(`asked ${ack.id}; waiting for the answer${ack.review_url ? ` (${ack.review_url})` : ""}`);
  return waitAndReport(client, ack.id, {
    shape,
    json: args.booleans.json === true,
    requireHuman,
    ...(timeoutMs !== undefined ? { timeoutMs: timeoutMs + EXPIRY_GRACE_MS } : {}),
  });
}

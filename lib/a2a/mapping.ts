/**
 * The A2A gateway's mapping (docs/a2a.md "Mapping"), both ways and pure:
 * - an incoming A2A `Message` → the MA2H envelope submitted for it (`envelopeForMessage`): an `ask`
 *   (`confirm` / `select` / `input`) or a `notify`, chosen by the message's `ma2h` control object;
 * - the §8.2 GET body of the message → the A2A `Task` (`taskOf`): `open` is working, each §7 terminal
 *   its A2A state, the answer and its attested actor a data part, the §6 Response an artifact.
 * A task's id is the MA2H message id; its `contextId` is the message's `agent.run_id`.
 */
import { type Artifact, type Message, type Part, Role, type Task, TaskState } from "@a2a-js/sdk";

/** Where the control object may sit: a data part `{"ma2h": {...}}`, or the message's `metadata.ma2h`. */
export const CONTROL_KEY = "ma2h";

/** The artifact that carries the signed §6 Response. */
export const RESPONSE_ARTIFACT_ID = "ma2h-response";

/** Why an incoming message cannot be mapped; the caller answers it as invalid params. */
export class MappingError extends Error {}

type Obj = Record<string, unknown>;

const isObject = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

/** The control object's members copied onto the envelope, and those copied into `request`. */
const ENVELOPE_FIELDS = ["priority", "tags", "expires_at", "sensitive"] as const;
const REQUEST_FIELDS = ["options", "schema", "permissions", "default_on_expire", "allowed_resolvers"] as const;

function controlOf(message: Message): { control: Obj; rest: Part[] } {
  const rest: Part[] = [];
  let control: Obj | undefined;
  for (const part of message.parts) {
    const c = part.content;
    if (control === undefined && c?.$case === "data" && isObject(c.value) && isObject(c.value[CONTROL_KEY])) {
      const keys = Object.keys(c.value);
      if (keys.length === 1) {
        control = c.value[CONTROL_KEY] as Obj;
        continue;
      }
    }
    rest.push(part);
  }
  const fromMetadata = message.metadata?.[CONTROL_KEY];
  if (control === undefined && isObject(fromMetadata)) control = fromMetadata;
  return { control: control ?? {}, rest };
}

/** An A2A part as an MA2H §4.2 context part; raw bytes are refused (the Hub stores no files). */
function contextPart(part: Part): Obj | null {
  const c = part.content;
  if (c === undefined) return null;
  switch (c.$case) {
    case "text":
      return null; // text becomes the title and body
    case "data":
      return { kind: "data", data: isObject(c.value) ? c.value : { value: c.value ?? null } };
    case "url": {
      const file: Obj = { uri: c.value };
      if (part.filename) file.name = part.filename;
      if (part.mediaType) file.mime_type = part.mediaType;
      return { kind: "file", file };
    }
    case "raw":
      throw new MappingError("raw file bytes are not accepted: send a url part (the Hub stores no files)");
  }
}

/** First line of the text, at most 200 characters (§4 `title`). */
function titleOf(text: string): string {
  const line = text.split(/\r?\n/).find((l) => l.trim() !== "") ?? "";
  const trimmed = line.trim();
  return trimmed.length <= 200 ? trimmed : `${trimmed.slice(0, 199)}…`;
}

/** The idempotency key of the MA2H submit for an A2A message: its message id. */
export function idempotencyKeyOf(message: Message): string {
  return `a2a:${message.messageId}`;
}

/**
 * The MA2H envelope for an incoming A2A message, sent by agent `agentId` at `now`. The message id
 * is the idempotency key (a retried send is the same task); the context id is `agent.run_id`.
 */
export function envelopeForMessage(agentId: string, message: Message, contextId: string, now: Date): Obj {
  const { control, rest } = controlOf(message);
  const text = rest
    .map((p) => (p.content?.$case === "text" ? p.content.value : null))
    .filter((t): t is string => t !== null && t.trim() !== "")
    .join("\n\n");
  const context = rest.map(contextPart).filter((p): p is Obj => p !== null);
  const type = control.type === undefined ? "ask" : control.type;
  if (type !== "ask" && type !== "notify") throw new MappingError(`ma2h.type must be "ask" or "notify"`);
  const title = typeof control.title === "string" ? control.title : titleOf(text);
  if (title === "") throw new MappingError("the message needs a text part (its first line is the title) or ma2h.title");

  const envelope: Obj = {
    ma2h_version: "0.6",
    type,
    created_at: now.toISOString(),
    agent: { id: agentId, run_id: contextId, runtime: "other" },
    title,
    idempotency_key: idempotencyKeyOf(message),
  };
  if (text !== "" && text.trim() !== title) envelope.body = text;
  if (context.length > 0) envelope.context = context;
  for (const f of ENVELOPE_FIELDS) if (control[f] !== undefined) envelope[f] = control[f];
  if (type === "ask") {
    const mode = control.mode === undefined ? "confirm" : control.mode;
    if (mode !== "confirm" && mode !== "select" && mode !== "input")
      throw new MappingError(`ma2h.mode must be "confirm", "select" or "input"`);
    const request: Obj = { mode };
    for (const f of REQUEST_FIELDS) if (control[f] !== undefined) request[f] = control[f];
    envelope.request = request;
  }
  return envelope;
}

const TERMINAL_STATE: Record<string, TaskState> = {
  answered: TaskState.TASK_STATE_COMPLETED,
  completed: TaskState.TASK_STATE_COMPLETED,
  declined: TaskState.TASK_STATE_REJECTED,
  dismissed: TaskState.TASK_STATE_REJECTED,
  cancelled: TaskState.TASK_STATE_CANCELED,
  delivered: TaskState.TASK_STATE_COMPLETED, // a notify: delivered on acceptance (§5.1)
};

/** The A2A state of a §8.2 GET body. */
export function stateOf(body: Obj): TaskState {
  const status = String(body.status);
  if (status === "open") return TaskState.TASK_STATE_WORKING;
  if (status === "expired") {
    const response = isObject(body.response) ? body.response : {};
    return response.defaulted === true ? TaskState.TASK_STATE_COMPLETED : TaskState.TASK_STATE_FAILED;
  }
  return TERMINAL_STATE[status] ?? TaskState.TASK_STATE_FAILED;
}

export function isFinal(state: TaskState): boolean {
  return state !== TaskState.TASK_STATE_WORKING && state !== TaskState.TASK_STATE_SUBMITTED;
}

const dataPart = (value: Obj): Part => ({
  content: { $case: "data", value },
  metadata: undefined,
  filename: "",
  mediaType: "application/json",
});

/** The outcome as one data part: resolution, value, actor, defaulted and the detail the person gave. */
function outcomePart(response: Obj): Part {
  const detail = isObject(response.response) ? response.response : {};
  const out: Obj = { resolution: response.resolution, defaulted: response.defaulted === true };
  for (const k of ["value", "actor", "resolved_at", "comment", "edited", "checklist"])
    if (detail[k] !== undefined) out[k] = detail[k];
  return dataPart(out);
}

/** A signature of the §6 Response (the `MA2H-Signature` value) and the URL it was bound to. */
export interface SignedResponse {
  signature: string;
  signedFor: string;
}

/**
 * The A2A task of a §8.2 GET body. `sign` signs the §6 Response for the artifact (the caller
 * decides with which key and URL); absent, the artifact carries the Response unsigned.
 */
export function taskOf(body: Obj, sign?: (response: Obj) => SignedResponse): Task {
  const id = String(body.id);
  const agent = isObject(body.agent) ? body.agent : {};
  const contextId = typeof agent.run_id === "string" ? agent.run_id : id;
  const state = stateOf(body);
  const response = isObject(body.response) ? body.response : undefined;
  const detail = response && isObject(response.response) ? response.response : {};
  const artifacts: Artifact[] = [];
  let statusMessage: Message | undefined;
  if (response) {
    statusMessage = {
      messageId: `${id}:${String(response.resolution_id)}`,
      contextId,
      taskId: id,
      role: Role.ROLE_AGENT,
      parts: [outcomePart(response)],
      metadata: undefined,
      extensions: [],
      referenceTaskIds: [],
    };
    const signed = sign?.(response);
    const artifactBody: Obj = { response };
    if (signed) {
      artifactBody.ma2h_signature = signed.signature;
      artifactBody.signed_for = signed.signedFor;
    }
    artifacts.push({
      artifactId: RESPONSE_ARTIFACT_ID,
      name: "MA2H Response",
      description: "The §6 Response, signed as a §9.2 push to signed_for (verify against the Hub's JWKS).",
      parts: [dataPart(artifactBody)],
      metadata: undefined,
      extensions: [],
    });
  }
  const timestamp = typeof detail.resolved_at === "string" ? detail.resolved_at : undefined;
  return {
    id,
    contextId,
    status: { state, message: statusMessage, timestamp },
    artifacts,
    history: [],
    metadata: { "ma2h.type": body.type, "ma2h.status": body.status },
  };
}

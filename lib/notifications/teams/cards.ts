/**
 * The Adaptive Card of one item (docs/notifications.md "Microsoft Teams: what a card shows"), pure;
 * the same content Slack's post shows (slack/blocks.ts, from the same `PostItem`/`PostState` of
 * slack/item-view.ts): title, type, priority and agent, who the approval policy asks, a short body
 * excerpt, the quorum's approvals line while open ("1 of 2 approvals — …"), and once settled the
 * outcome, who decided and via which channel. An open `confirm`/`select` ask offers one
 * `Action.Execute` per option (Universal Actions: the click reaches the Hub as an
 * `adaptiveCard/action` invoke, invoke.ts) carrying `{ ma2h: "answer", m: <message id>, v: <value> }`;
 * a small `input` ask (at most five string, number, integer or boolean fields) gets a form whose
 * Submit carries `{ ma2h: "input", m }` with the fields (`ma2h_in_<name>`) merged in by Teams.
 * Text blocks are plain text (Adaptive Cards render a subset of Markdown: agent text is shown with
 * its Markdown characters escaped). `sensitive: true` (§9.6): the title and "Open in inbox" only.
 */
import { effectiveOptions } from "@ma2h/protocol/ask-contract";
import type { PostItem, PostState } from "../slack/blocks";

const BODY_EXCERPT_CHARS = 300;
const TITLE_CHARS = 150;
/** Teams shows at most a handful of actions in a row; more options go to the inbox. */
const MAX_OPTION_BUTTONS = 6;
export const ANSWER_VERB = "ma2h_answer";

function clip(s: string, n: number): string {
  const flat = s.replace(/\s+/g, " ").trim();
  return flat.length > n ? `${flat.slice(0, n - 1)}…` : flat;
}

/** Adaptive Cards' TextBlock renders Markdown: escape its characters so agent text stays text. */
export function escapeCardText(s: string): string {
  return s.replace(/([\\`*_{}[\]()#+\-.!<>|~])/g, "\\$1");
}

const block = (t: string, extra: Record<string, unknown> = {}) => ({
  type: "TextBlock",
  text: t,
  wrap: true,
  ...extra,
});

export interface AnswerData {
  messageId: string;
  value: string;
}

/** The data an answer action carries back, when it is ours. */
export function parseAnswerData(data: unknown): AnswerData | null {
  if (!data || typeof data !== "object") return null;
  const d = data as Record<string, unknown>;
  if (d.ma2h !== "answer" || typeof d.m !== "string" || typeof d.v !== "string") return null;
  if (d.m.length > 100 || d.v.length > 2000) return null;
  return { messageId: d.m, value: d.v };
}

/** A small input ask's form: at most this many fields, each a string, number, integer or boolean. */
const MAX_INPUT_FIELDS = 5;
export const INPUT_PREFIX = "ma2h_in_";
type FieldType = "string" | "number" | "integer" | "boolean";

/** The fields of a small input ask's schema, or null when it is not small enough for a card. */
export function smallInputFields(item: PostItem): Array<{ name: string; type: FieldType; title: string }> | null {
  if (item.sensitive || item.type !== "ask" || item.request?.mode !== "input") return null;
  const props = (item.request.schema as { properties?: Record<string, unknown> } | undefined)?.properties;
  if (!props || typeof props !== "object") return null;
  const entries = Object.entries(props);
  if (entries.length === 0 || entries.length > MAX_INPUT_FIELDS) return null;
  const fields: Array<{ name: string; type: FieldType; title: string }> = [];
  for (const [name, spec] of entries) {
    const type = (spec as { type?: unknown } | null)?.type;
    if (typeof type !== "string" || !["string", "number", "integer", "boolean"].includes(type)) return null;
    if (!/^[A-Za-z0-9_]{1,64}$/.test(name)) return null;
    const title = (spec as { title?: unknown }).title;
    fields.push({ name, type: type as FieldType, title: typeof title === "string" ? clip(title, 80) : name });
  }
  return fields;
}

function inputForm(item: PostItem): { inputs: Record<string, unknown>[]; action: Record<string, unknown> } | null {
  const fields = smallInputFields(item);
  if (!fields) return null;
  const inputs = fields.map((f) => {
    const id = `${INPUT_PREFIX}${f.name}`;
    if (f.type === "boolean") return { type: "Input.Toggle", id, title: f.title, valueOn: "true", valueOff: "false" };
    if (f.type === "string") return { type: "Input.Text", id, label: f.title, maxLength: 2000 };
    return { type: "Input.Number", id, label: f.title };
  });
  return {
    inputs,
    action: { type: "Action.Execute", title: "Submit", verb: ANSWER_VERB, data: { ma2h: "input", m: item.id } },
  };
}

/**
 * A small input ask's submitted form as the answer object: the schema's own field types restored
 * (Teams sends every input as a string); a field left empty is omitted — the ask's schema decides.
 */
export function inputAnswer(item: PostItem, data: unknown): Record<string, unknown> | null {
  const fields = smallInputFields(item);
  if (!fields || !data || typeof data !== "object") return null;
  const d = data as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const f of fields) {
    const raw = d[`${INPUT_PREFIX}${f.name}`];
    if (raw === undefined || raw === null || raw === "") continue;
    const text = String(raw);
    if (f.type === "string") out[f.name] = text;
    else if (f.type === "boolean") out[f.name] = text === "true";
    else out[f.name] = Number(text);
  }
  return out;
}

/** The message id an input form's submit carries, when it is ours. */
export function parseInputData(data: unknown): string | null {
  if (!data || typeof data !== "object") return null;
  const d = data as Record<string, unknown>;
  return d.ma2h === "input" && typeof d.m === "string" && d.m.length <= 100 ? d.m : null;
}

function optionActions(item: PostItem): Record<string, unknown>[] {
  if (item.sensitive || item.type !== "ask" || !item.request) return [];
  if (item.request.mode !== "confirm" && item.request.mode !== "select") return [];
  const options = effectiveOptions(item.request);
  if (options.length > MAX_OPTION_BUTTONS) return [];
  return options.map((o) => ({
    type: "Action.Execute",
    title: clip(o.label, 60) || "(option)",
    verb: ANSWER_VERB,
    data: { ma2h: "answer", m: item.id, v: o.value },
  }));
}

export function itemCard(item: PostItem, opts: { inboxUrl: string; state: PostState }): Record<string, unknown> {
  const body: Record<string, unknown>[] = [
    block(escapeCardText(clip(item.title, TITLE_CHARS)), { weight: "Bolder", size: "Medium", id: "ma2h_title" }),
  ];
  if (!item.sensitive) {
    body.push(
      block(escapeCardText(`${item.type} · priority ${item.priority} · from ${clip(item.agentId, 100)}`), {
        isSubtle: true,
        spacing: "None",
      }),
    );
    if (item.asked) {
      const rules = `rule${item.asked.rules.length > 1 ? "s" : ""} ${item.asked.rules.join(", ")}`;
      const people = item.asked.people.slice(0, 10).join(", ");
      body.push(
        block(
          escapeCardText(
            `Asked by the approval policy (${rules}): ${people}${item.asked.needs ? `. ${item.asked.needs}` : ""}`,
          ),
          {
            isSubtle: true,
            id: "ma2h_asked",
          },
        ),
      );
    }
    const excerpt = item.body ? clip(item.body, BODY_EXCERPT_CHARS) : "";
    if (excerpt) body.push(block(escapeCardText(excerpt), { id: "ma2h_body" }));
  }
  const open = opts.state.status === "open";
  const approvals = open ? (opts.state as { approvals?: string }).approvals : undefined;
  if (approvals) body.push(block(escapeCardText(approvals), { id: "ma2h_approvals", color: "Accent" }));
  if (!open) {
    const s = opts.state as Exclude<PostState, { status: "open" }>;
    const what = s.outcome && !item.sensitive ? `${s.status}: ${s.outcome}` : s.status;
    body.push(
      block(escapeCardText(`${what} — by ${s.decidedBy}${s.channel ? ` via ${s.channel}` : ""}`), {
        id: "ma2h_outcome",
        weight: "Bolder",
      }),
    );
  }
  const form = open ? inputForm(item) : null;
  if (form) body.push(...form.inputs);
  return {
    type: "AdaptiveCard",
    $schema: "http://adaptivecards.io/schemas/adaptive-card.json",
    version: "1.4",
    body,
    actions: [
      ...(open ? optionActions(item) : []),
      ...(form ? [form.action] : []),
      { type: "Action.OpenUrl", title: "Open in inbox", url: opts.inboxUrl },
    ],
  };
}

/** The card as a Bot Connector message activity. */
export function cardActivity(card: Record<string, unknown>, summary: string): Record<string, unknown> {
  return {
    type: "message",
    summary,
    attachments: [{ contentType: "application/vnd.microsoft.card.adaptive", content: card }],
  };
}

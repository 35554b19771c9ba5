/**
 * The Block Kit message of one item (docs/notifications.md "Slack: what a post shows"), pure.
 * Every agent-supplied string is shown as escaped, verbatim mrkdwn — `&`, `<`, `>` escaped, so no
 * agent text becomes a link, a mention or a command; `verbatim` so Slack links nothing by itself.
 * - open: title, priority, agent, a short body excerpt, the option buttons of a `confirm`/`select`
 *   ask (only when the reader may resolve; each button's value carries the message id and the
 *   option value, and an option whose value would not fit Slack's 2000 characters gets no button),
 *   and "Open in inbox";
 * - an ask the account's approval policy routed: a line naming its rules and the people asked — a
 *   channel post is read by everyone in the channel, and only those people may click (the click is
 *   checked again, interactions.ts; docs/decisions/approval-policies.md);
 * - `sensitive: true` (§9.6): the title and "Open in inbox" only — no body, options or buttons;
 * - an open ask a quorum rule routed: its approvals so far ("1 of 2 approvals — alice: approve",
 *   lib/approvals/tally.ts), updated as votes arrive (posts.ts);
 * - an input ask or a task: "Open in inbox";
 * - settled: the outcome, who decided and via which channel, and "Open in inbox"; no buttons.
 */
import { effectiveOptions } from "@ma2h/protocol/ask-contract";
import type { AskRequest } from "@ma2h/protocol/message";
import type { Kind } from "../kinds";

export const ANSWER_ACTION_PREFIX = "ma2h_answer_";
export const OPEN_ACTION = "ma2h_open";
/** The line a direct message of each notification kind starts with. */
export const KIND_NOTES: Record<Kind, string | null> = {
  new: null,
  reminder: "Reminder: this is still open.",
  escalation: "Escalation: this is still open and nobody has answered it.",
  assigned: "This was handed to you.",
  rule_stopped: "Your standing rule stopped itself at its hourly cap; this one waits for a person.",
};

/** Slack's limit on a button's `value`. */
export const BUTTON_VALUE_MAX = 2000;
const BODY_EXCERPT_CHARS = 300;
const BUTTON_TEXT_CHARS = 75;
/** Slack allows 25 elements in an actions block; one is "Open in inbox". */
const MAX_OPTION_BUTTONS = 24;

export interface PostItem {
  id: string;
  title: string;
  priority: string;
  agentId: string;
  type: string;
  sensitive: boolean;
  body?: string;
  /** An ask's request (its mode and options). */
  request?: AskRequest;
  /** Who the account's approval policy asks (the routing recorded at submit); absent: the default policy. */
  asked?: { rules: string[]; people: string[]; needs?: string };
}

/** How many of the people asked a post names before "and N more". */
const NAMED_PEOPLE = 10;

function askedLine(asked: NonNullable<PostItem["asked"]>): string {
  const shown = asked.people.slice(0, NAMED_PEOPLE).join(", ");
  const more = asked.people.length > NAMED_PEOPLE ? ` and ${asked.people.length - NAMED_PEOPLE} more` : "";
  const rules = `rule${asked.rules.length > 1 ? "s" : ""} ${asked.rules.join(", ")}`;
  return escapeMrkdwn(
    `Asked by the approval policy (${rules}): ${shown}${more}${asked.needs ? `. ${asked.needs}` : ""}`,
  );
}

/** An open item's state; `approvals`: the quorum's line (absent: no quorum). */
export type OpenState = { status: "open"; approvals?: string };

export type PostState =
  | OpenState
  | { status: string; outcome: string | null; decidedBy: string; channel: string | null };

export interface SlackMessage {
  text: string;
  blocks: Record<string, unknown>[];
}

/** Slack's three escapes for any text it parses (its "formatting" rules). */
export function escapeMrkdwn(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

function clip(s: string, n: number): string {
  const flat = s.replace(/\s+/g, " ").trim();
  return flat.length > n ? `${flat.slice(0, n - 1)}…` : flat;
}

const text = (s: string) => ({ type: "mrkdwn", text: s, verbatim: true });

/** The value a button carries back: the item and the option, as JSON (parsed by interactions.ts). */
export function buttonValue(messageId: string, value: string): string {
  return JSON.stringify({ m: messageId, v: value });
}

export function parseButtonValue(raw: string): { messageId: string; value: string } | null {
  try {
    const v = JSON.parse(raw) as unknown;
    if (
      v &&
      typeof v === "object" &&
      typeof (v as { m: unknown }).m === "string" &&
      typeof (v as { v: unknown }).v === "string"
    )
      return { messageId: (v as { m: string }).m, value: (v as { v: string }).v };
  } catch {
    // not ours
  }
  return null;
}

/** The option buttons an open item offers this reader (none for sensitive, input, task, or no right). */
function optionButtons(item: PostItem, mayResolve: boolean): Record<string, unknown>[] {
  if (!mayResolve || item.sensitive || item.type !== "ask" || !item.request) return [];
  if (item.request.mode !== "confirm" && item.request.mode !== "select") return [];
  const options = effectiveOptions(item.request);
  if (options.length > MAX_OPTION_BUTTONS) return [];
  return options.flatMap((o, i) => {
    const value = buttonValue(item.id, o.value);
    if (value.length > BUTTON_VALUE_MAX) return [];
    return [
      {
        type: "button",
        action_id: `${ANSWER_ACTION_PREFIX}${i}`,
        text: { type: "plain_text", text: clip(o.label, BUTTON_TEXT_CHARS) || "(option)", emoji: false },
        value,
      },
    ];
  });
}

function settledLine(item: PostItem, state: Exclude<PostState, { status: "open" }>): string {
  const what = state.outcome && !item.sensitive ? `${state.status}: ${state.outcome}` : state.status;
  const how = state.channel ? ` via ${state.channel}` : "";
  return `*${escapeMrkdwn(what)}* — by ${escapeMrkdwn(state.decidedBy)}${escapeMrkdwn(how)}`;
}

export function itemMessage(
  item: PostItem,
  opts: { inboxUrl: string; mayResolve: boolean; state: PostState; note?: string | null },
): SlackMessage {
  const title = escapeMrkdwn(clip(item.title, 150));
  const blocks: Record<string, unknown>[] = [];
  if (opts.note) blocks.push({ type: "context", block_id: "ma2h_note", elements: [text(escapeMrkdwn(opts.note))] });
  blocks.push({ type: "section", block_id: "ma2h_title", text: text(`*${title}*`) });
  if (!item.sensitive) {
    blocks.push({
      type: "context",
      block_id: "ma2h_meta",
      elements: [
        text(
          `${escapeMrkdwn(item.type)} · priority ${escapeMrkdwn(item.priority)} · from ${escapeMrkdwn(clip(item.agentId, 100))}`,
        ),
      ],
    });
    if (item.asked) blocks.push({ type: "context", block_id: "ma2h_asked", elements: [text(askedLine(item.asked))] });
    const excerpt = item.body ? clip(item.body, BODY_EXCERPT_CHARS) : "";
    if (excerpt) blocks.push({ type: "section", block_id: "ma2h_body", text: text(escapeMrkdwn(excerpt)) });
  }
  const open = opts.state.status === "open";
  const approvals = open ? (opts.state as { approvals?: string }).approvals : undefined;
  if (approvals)
    blocks.push({ type: "context", block_id: "ma2h_approvals", elements: [text(escapeMrkdwn(approvals))] });
  if (!open) {
    blocks.push({
      type: "context",
      block_id: "ma2h_outcome",
      elements: [text(settledLine(item, opts.state as Exclude<PostState, { status: "open" }>))],
    });
  }
  const buttons = open ? optionButtons(item, opts.mayResolve) : [];
  blocks.push({
    type: "actions",
    block_id: "ma2h_actions",
    elements: [
      ...buttons,
      {
        type: "button",
        action_id: OPEN_ACTION,
        text: { type: "plain_text", text: "Open in inbox" },
        url: opts.inboxUrl,
      },
    ],
  });
  const prefix = open ? `[${item.priority}] ` : `[${opts.state.status}] `;
  return { text: escapeMrkdwn(`${prefix}${clip(item.title, 150)}`), blocks };
}

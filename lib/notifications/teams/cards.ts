/**
 * The Adaptive Card of one item (docs/notifications.md "Microsoft Teams: what a card shows"), pure;
 * the same content Slack's post shows (slack/blocks.ts, from the same `PostItem`/`PostState` of
 * slack/item-view.ts): title, type, priority and agent, who the approval policy asks, a short body
 * excerpt, the quorum's approvals line while open ("1 of 2 approvals — …"), and once settled the
 * outcome, who decided and via which channel. An open `confirm`/`select` ask offers one
 * `Action.Execute` per option (Universal Actions: the click reaches the Hub as an
 * `adaptiveCard/action` invoke, invoke.ts) carrying `{ ma2h: "answer", m: <message id>, v: <value> }`.
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
  return {
    type: "AdaptiveCard",
    $schema: "http://adaptivecards.io/schemas/adaptive-card.json",
    version: "1.4",
    body,
    actions: [
      ...(open ? optionActions(item) : []),
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

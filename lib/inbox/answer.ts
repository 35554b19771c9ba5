/**
 * Resolving from the inbox: turns what a person did on an item page (or a bulk action on the list)
 * into a §8.8 resolve body and calls `resolveMessage` — the same verb, authorization and §7 CAS as
 * the API. Only the ids, the chosen option, raw form values, ticks and a comment come from the
 * browser; the actor comes from the session (§9.1) and the checklist texts from the envelope.
 * A lost race answers with the outcome that won, read after the 409.
 */
import { HubError, isHubError } from "@ma2h/protocol/errors";
import { isPendingApproval, type PendingApproval } from "../approvals/pending";
import { resolveMessage } from "../messages/resolve";
import { completeRefusal, declineRefusal } from "./affordances";
import { MAX_TYPED_CHARS } from "./form-values";
import { coerceInput, type RawInput } from "./input-form";
import { itemForAnswer, itemForHuman } from "./item";
import type { ItemView, ResolutionView } from "./view";

export type HumanAction =
  | { kind: "answer"; value?: string; input?: RawInput; comment?: string }
  | { kind: "decline"; comment?: string }
  | { kind: "complete" | "dismiss"; comment?: string; checklist?: boolean[] };

const ACTION_KINDS = new Set(["answer", "decline", "complete", "dismiss"]);

/**
 * A `HumanAction` from whatever a Server Action call carried: the inbox's own pages send one, but
 * a crafted request can send anything, and a wrong shape is a refusal (`400`), never a 500.
 */
export function humanActionFrom(raw: unknown): HumanAction {
  const bad = () => new HubError("validation_error", "not an inbox action");
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) throw bad();
  const a = raw as Record<string, unknown>;
  if (typeof a.kind !== "string" || !ACTION_KINDS.has(a.kind)) throw bad();
  const optionalString = (v: unknown) => v === undefined || typeof v === "string";
  if (!optionalString(a.value) || !optionalString(a.comment)) throw bad();
  if (a.input !== undefined) {
    if (a.input === null || typeof a.input !== "object" || Array.isArray(a.input)) throw bad();
    for (const v of Object.values(a.input)) {
      const text = typeof v === "string" || typeof v === "boolean";
      const list = Array.isArray(v) && v.every((x) => typeof x === "string");
      if (v !== undefined && !text && !list) throw bad();
    }
  }
  if (a.checklist !== undefined && !(Array.isArray(a.checklist) && a.checklist.every((t) => typeof t === "boolean")))
    throw bad();
  return a as HumanAction;
}

export type ActionResult =
  /** `status: "open"` with `approvals`: a vote recorded on a quorum ask that is not complete yet. */
  | { ok: true; status: string; approvals?: PendingApproval["approvals"] }
  | { ok: false; code: string; message: string; conflict?: ResolutionView & { status: string } };

function refuse(message: string): never {
  throw new HubError("invalid_field", message);
}

/**
 * The resolve body for an action on this item; throws on a bad action. A select/confirm `value` may
 * be off-menu (the free-form answer): the verb accepts it only where `allow_edit` is honoured (§5.2)
 * and stamps `edited` itself (§6), so nothing here decides either.
 */
export function resolveBodyFor(
  item: ItemView,
  action: HumanAction,
  hiddenDefaults: Record<string, unknown> = {},
): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  if (action.kind === "answer") {
    const ask = item.ask ?? refuse("only an ask can be answered");
    body.resolution = "answered";
    if (ask.mode === "input") {
      const coerced = coerceInput(ask.fields, withHiddenDefaults(action.input ?? {}, hiddenDefaults));
      if ("problem" in coerced) refuse(coerced.problem);
      body.value = coerced.value;
    } else {
      if (typeof action.value !== "string" || action.value.trim() === "")
        refuse("choose an option, or type your answer");
      // A typed answer over the inbox's cap is refused, never cut: the agent gets it verbatim or not at all.
      if (action.value.length > MAX_TYPED_CHARS) refuse(`an answer is at most ${MAX_TYPED_CHARS} characters`);
      body.value = action.value;
    }
  } else if (action.kind === "decline") {
    body.resolution = item.type === "task" ? "dismissed" : "declined";
  } else {
    if (!item.task) refuse(`only a task can be ${action.kind === "complete" ? "completed" : "dismissed"}`);
    body.resolution = action.kind === "complete" ? "completed" : "dismissed";
    // §6: the final checklist, texts from the envelope and ticks from the person.
    if (item.task.checklist.length > 0)
      body.checklist = item.task.checklist.map((c, i) => ({ text: c.text, done: action.checklist?.[i] ?? c.done }));
  }
  const comment = action.comment?.trim();
  if (comment) body.comment = comment.slice(0, MAX_TYPED_CHARS);
  return body;
}

/**
 * A masked field the browser left blank answers with the agent's suggestion, which never left the
 * server (§9.6, lib/inbox/view.ts): the page could not prefill it, so blank means "as suggested".
 */
function withHiddenDefaults(raw: RawInput, hidden: Record<string, unknown>): RawInput {
  const out: RawInput = { ...raw };
  for (const [name, v] of Object.entries(hidden)) {
    if (out[name] === undefined || out[name] === "")
      out[name] = typeof v === "boolean" ? v : Array.isArray(v) ? v.map(String) : String(v);
  }
  return out;
}

function failure(err: unknown): { ok: false; code: string; message: string } {
  if (isHubError(err)) return { ok: false, code: err.code, message: err.message };
  throw err;
}

export async function answerAsHuman(userId: string, id: string, action: HumanAction): Promise<ActionResult> {
  const found = await itemForAnswer(userId, id);
  if (!found) return { ok: false, code: "not_found", message: "no such message" };
  const { item, hiddenDefaults } = found;
  try {
    const res = await resolveMessage({ kind: "human", userId }, id, resolveBodyFor(item, action, hiddenDefaults), {
      channel: "inbox",
    });
    return isPendingApproval(res)
      ? { ok: true, status: res.status, approvals: res.approvals }
      : { ok: true, status: res.status };
  } catch (err) {
    if (isHubError(err) && err.code === "already_terminal") {
      const after = await itemForHuman(userId, id);
      if (after?.resolution) {
        return {
          ok: false,
          code: err.code,
          message: err.message,
          conflict: { ...after.resolution, status: after.status },
        };
      }
    }
    return failure(err);
  }
}

export interface BulkReport {
  done: Array<{ id: string; title: string; status: string }>;
  skipped: Array<{ id: string; title: string | null; reason: string }>;
}

export const BULK_LIMIT = 200;

/**
 * Bulk decline (asks → declined, tasks → dismissed) or complete (tasks), one `resolveMessage` per
 * item, in order. Items this person may not resolve, or whose permissions forbid the action, are
 * skipped with the reason; so is anything the verb refuses (e.g. answered meanwhile).
 */
export async function bulkResolve(userId: string, ids: string[], kind: "decline" | "complete"): Promise<BulkReport> {
  const report: BulkReport = { done: [], skipped: [] };
  for (const id of [...new Set(ids)].slice(0, BULK_LIMIT)) {
    const item = await itemForHuman(userId, id);
    if (!item) {
      report.skipped.push({ id, title: null, reason: "not found" });
      continue;
    }
    const refusal = kind === "decline" ? declineRefusal(item.can, item.type) : completeRefusal(item.can, item.type);
    if (refusal !== null) {
      report.skipped.push({ id, title: item.title, reason: refusal });
      continue;
    }
    const res = await answerAsHuman(userId, id, { kind });
    if (res.ok) report.done.push({ id, title: item.title, status: res.status });
    else
      report.skipped.push({
        id,
        title: item.title,
        reason: res.conflict ? `already ${res.conflict.status} by ${res.conflict.actor}` : res.message,
      });
  }
  return report;
}

/** What one decision on a group of similar asks did to each (docs/inbox.md "Similar asks"). */
export type GroupResult = { id: string; title: string | null } & (
  | { outcome: "answered"; status: string }
  /** A quorum ask: this person's vote is counted, the ask stays open until the quorum is met. */
  | { outcome: "vote recorded"; approvals: PendingApproval["approvals"] }
  | { outcome: "refused"; reason: string }
  /** Settled before this answer reached it (answered, declined, expired, cancelled by someone else). */
  | { outcome: "already settled"; status: string; actor: string | null }
);

export interface GroupReport {
  value: string;
  results: GroupResult[];
}

/**
 * One decision for many confirm/select asks (a group of similar asks, or the bulk "answer selected"):
 * `value` goes to each ask on its own through `answerAsHuman` — the same authorization, quorum vote,
 * separation of duties and §7 compare-and-set as answering it alone, its own Response, audit event
 * and push delivery. An ask whose options do not include `value`, or that this person may not answer,
 * is refused with the reason; one settled meanwhile is reported with who settled it.
 */
export async function answerGroup(userId: string, ids: string[], value: string): Promise<GroupReport> {
  const report: GroupReport = { value, results: [] };
  if (typeof value !== "string" || value === "") throw new HubError("invalid_field", "choose an option");
  for (const id of [...new Set(ids)].slice(0, BULK_LIMIT)) {
    const item = await itemForHuman(userId, id);
    const refused = (title: string | null, reason: string) =>
      report.results.push({ id, title, outcome: "refused", reason });
    if (!item) {
      refused(null, "not found");
      continue;
    }
    if (item.status !== "open") {
      report.results.push({
        id,
        title: item.title,
        outcome: "already settled",
        status: item.status,
        actor: item.resolution?.actor ?? null,
      });
      continue;
    }
    const ask = item.type === "ask" ? item.ask : null;
    if (!ask || ask.mode === "input") {
      refused(item.title, "only confirm and select asks are answered together");
      continue;
    }
    if (!ask.options.some((o) => o.value === value)) {
      refused(item.title, `"${value}" is not one of this ask's options`);
      continue;
    }
    if (item.can.refusal !== null || !item.can.answer) {
      refused(item.title, item.can.refusal ?? "this ask cannot be answered (permissions.allow_respond is false)");
      continue;
    }
    const res = await answerAsHuman(userId, id, { kind: "answer", value });
    if (res.ok && res.approvals) {
      report.results.push({ id, title: item.title, outcome: "vote recorded", approvals: res.approvals });
    } else if (res.ok) {
      report.results.push({ id, title: item.title, outcome: "answered", status: res.status });
    } else if (res.conflict) {
      report.results.push({
        id,
        title: item.title,
        outcome: "already settled",
        status: res.conflict.status,
        actor: res.conflict.actor,
      });
    } else refused(item.title, res.message);
  }
  return report;
}

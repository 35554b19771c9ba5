/**
 * One inbox item for a person: null when they hold no seat in its account (the page answers 404,
 * exactly as for an unknown id — no existence oracle across accounts, §9.1).
 */
import { readApprovalsOf } from "../approvals/state";
import { routingOf } from "../policies/routing";
import { db } from "../db";
import { looksLikeMessageId } from "@ma2h/protocol/ids";
import { envelopeOf } from "../messages/record";
import { seatFor } from "../principals/seats";
import { recordItemShown } from "../insights/insights";
import { affordancesFor } from "./affordances";
import { itemHistory } from "./handovers";
import { reassignChoices } from "../assignment/reassign";
import { rememberChoices, ruleOfActor } from "../standing-rules/item";
import { buildItemView, hiddenInputDefaults, type ItemView } from "./view";

/**
 * `shown`: the item's page is rendering for the person — record its first showing to their seat
 * (lib/insights/, the rubber-stamp signal). Answers and bulk actions load it without.
 */
export async function itemForHuman(
  userId: string,
  id: string,
  opts: { shown?: boolean } = {},
): Promise<ItemView | null> {
  return (await itemForAnswer(userId, id, opts))?.item ?? null;
}

/**
 * The item, and what only the server may hold for answering it: the suggested values of masked
 * input fields (§9.6), which a blank masked field answers with (lib/inbox/answer.ts).
 */
export async function itemForAnswer(
  userId: string,
  id: string,
  opts: { shown?: boolean } = {},
): Promise<{ item: ItemView; hiddenDefaults: Record<string, unknown> } | null> {
  if (!looksLikeMessageId(id)) return null;
  const row = await db().message.findUnique({
    where: { id },
    include: { resolution: true, agent: { select: { agentId: true } }, account: { select: { slug: true } } },
  });
  if (!row) return null;
  const seat = await seatFor(userId, row.accountId);
  if (!seat) return null;
  const message = envelopeOf(row);
  const open = row.status === "open";
  const [approvals, history, reassign, remember, answeredByRule] = await Promise.all([
    readApprovalsOf([row]).then((m) => m.get(row.id) ?? null),
    itemHistory(row.id),
    open && message.type !== "notify" ? reassignChoices(userId, row.id) : Promise.resolve(null),
    open ? rememberChoices(userId, row, message, row.agent.agentId) : Promise.resolve(null),
    ruleOfActor(row.accountId, row.resolution?.actor),
    opts.shown ? recordItemShown(userId, row.accountId, row.id) : undefined,
  ]);
  return {
    item: buildItemView(
      row,
      message,
      seat,
      affordancesFor(seat, message, row.status, routingOf(row)),
      approvals,
      history,
      reassign,
      remember,
      answeredByRule,
    ),
    hiddenDefaults: hiddenInputDefaults(message),
  };
}

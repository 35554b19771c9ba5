/**
 * What the inbox's directive pages show (§13, §14.2, §15.4): the directives of the person's
 * accounts with their live tracks, and an agent's page — its presence and what was sent to it.
 * Reads only; sending goes through lib/mailbox/author.ts like the API.
 */
import { db } from "../db";
import { listDirectives } from "../mailbox/read";
import { presenceOf, type Presence } from "../presence/state";
import { RESOLVING_ROLES } from "../principals/types";
import { seatBySlug, seatsOf, type AccountSeat } from "../principals/seats";

export type DirectiveRow = Awaited<ReturnType<typeof listDirectives>>[number] & { account: string };

/** Sent directives across every account the person has a seat in, newest first. */
export async function directivesForHuman(userId: string, take = 200): Promise<DirectiveRow[]> {
  const seats = await seatsOf(userId);
  const lists = await Promise.all(
    seats.map(async (s) => (await listDirectives(s.accountId, { take })).map((d) => ({ ...d, account: s.slug }))),
  );
  return lists
    .flat()
    .sort((a, b) => b.created_at.localeCompare(a.created_at))
    .slice(0, take);
}

export interface AgentPage {
  seat: AccountSeat;
  agentId: string;
  /** The agent's row, for the page's other reads (its sessions, lib/inbox/agent-sessions.ts). */
  agentRowId: string;
  presence: Presence;
  /** Owners, admins and members may send; a viewer only reads. */
  canSend: boolean;
  directives: DirectiveRow[];
}

/** An agent of one of the person's accounts, or null (unknown and foreign look the same). */
export async function agentPageFor(userId: string, accountSlug: string, agentId: string): Promise<AgentPage | null> {
  const seat = await seatBySlug(userId, accountSlug);
  if (!seat) return null;
  const agent = await db().agent.findUnique({ where: { accountId_agentId: { accountId: seat.accountId, agentId } } });
  if (!agent) return null;
  const directives = (await listDirectives(seat.accountId, { agentRowId: agent.id })).map((d) => ({
    ...d,
    account: seat.slug,
  }));
  return {
    seat,
    agentId,
    agentRowId: agent.id,
    presence: presenceOf(agentId, agent.lastSeenAt),
    canSend: (RESOLVING_ROLES as readonly string[]).includes(seat.role),
    directives,
  };
}

/** §15.4 wording: what a person can expect from a send or an answer right now. */
export function presenceWording(p: Presence): string {
  if (p.state === "online") return "listening now";
  return "will receive it on its next run";
}

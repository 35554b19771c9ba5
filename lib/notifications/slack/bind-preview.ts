/**
 * What the bind page shows before anything changes (docs/notifications.md "Slack: who
 * clicked"): a GET only reads — link scanners and previews open every link — and tells the signed-in
 * person plainly which Slack user of which workspace would answer as them, in which account. The
 * same refusals as the redeem (bind-links.ts), so the page says "no" before the person confirms.
 */
import { db } from "../../db";
import { type LinkProblem, checkBindLink } from "./bind-links";

export interface BindPreview {
  slackUserId: string;
  /** The Slack username from the signed click, or null (a link minted before names were kept). */
  slackUserName: string | null;
  teamId: string;
  teamName: string;
  /** The workspace's domain (`<domain>.slack.com`) from the signed click, or null. */
  teamDomain: string | null;
  email: string;
  slug: string;
  /** The person's Slack user in the account today, which the binding would replace. */
  replaces: string | null;
}

export type PreviewState =
  | { kind: "ready"; preview: BindPreview }
  | { kind: LinkProblem | "no_seat" | "not_connected" | "bound_elsewhere" | "already_yours" };

export async function previewBindLink(token: string, userId: string, now: Date): Promise<PreviewState> {
  const state = await checkBindLink(token, now);
  if (!state.ok) return { kind: state.reason };
  const { accountId, teamId, slackUserId, slackUserName, teamDomain } = state.link;
  const [seat, connection, holder, mine, user] = await Promise.all([
    db().membership.findUnique({
      where: { accountId_userId: { accountId, userId } },
      select: { account: { select: { slug: true } } },
    }),
    db().slackConnection.findUnique({ where: { accountId }, select: { teamId: true, teamName: true } }),
    db().slackIdentity.findUnique({
      where: { accountId_slackUserId: { accountId, slackUserId } },
      select: { userId: true },
    }),
    db().slackIdentity.findUnique({
      where: { accountId_userId: { accountId, userId } },
      select: { slackUserId: true },
    }),
    db().user.findUniqueOrThrow({ where: { id: userId }, select: { email: true } }),
  ]);
  // Nothing of the account (not even its slug) is shown to a person without a seat there.
  if (!seat) return { kind: "no_seat" };
  if (!connection || connection.teamId !== teamId) return { kind: "not_connected" };
  if (holder && holder.userId !== userId) return { kind: "bound_elsewhere" };
  if (holder) return { kind: "already_yours" };
  return {
    kind: "ready",
    preview: {
      slackUserId,
      slackUserName,
      teamId,
      teamName: connection.teamName,
      teamDomain,
      email: user.email,
      slug: seat.account.slug,
      replaces: mine?.slackUserId ?? null,
    },
  };
}

/**
 * The email channel's sender: the mail of one row — with one-click answer links only for a
 * person who may resolve the item, and only when the item's approval routing allows answers from
 * mail (`email_answers`, docs/policies.md), minted for this attempt (answer-tokens.ts) — sent over SMTP
 * under the row's own stable Message-ID (smtp.ts), so a resend after an interruption folds.
 * `reachable`: everyone while SMTP is configured (`SMTP_URL`); nobody without it.
 */
import { env, mailSettings } from "../env";
import { mintAnswerLinks } from "./answer-tokens";
import type { ChannelSender } from "./sender";
import { messageIdFor, sendMail } from "./smtp";

export const emailSender: ChannelSender = {
  async reachable(_accountId, userIds) {
    return new Set(mailSettings() ? userIds : []);
  },
  async send({ row, user, message, envelope, kind, mayResolve, routing, now }) {
    // `email_answers: false`: no link is minted at all (email-answer.ts would refuse one anyway).
    const oneClick = mayResolve && routing?.email_answers !== false;
    const answerLinks = oneClick ? await mintAnswerLinks(row, message, envelope, env().publicUrl, now) : [];
    // The composer (and the Markdown pipeline it renders with) loads with the first mail.
    const { composeMail } = await import("./compose");
    const mail = composeMail(message, envelope, env().publicUrl, { kind, answerLinks, routing });
    // The row's own id, not the batch's: a resend after an interruption is claimed under a new batch.
    return sendMail(user.email, mail, messageIdFor(row.id));
  },
};

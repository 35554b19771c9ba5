/**
 * An account's people reachable on every notification channel at once, for the tests of who is sent
 * what (docs/notifications.md): a real SMTP server (mail-capture.ts), a local Slack-compatible server
 * (slack-fake.ts) with the account connected and each person bound, and a local push service with a
 * subscription per person — then the Hub configured for all three. In this process: call it from a
 * `useHubFixture({ server: "none" })` setup; `close()` undoes it.
 */
import { createECDH, randomBytes } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { db } from "../../lib/db";
import { resetEnvCache } from "../../lib/env";
import { bindSlackUser } from "../../lib/notifications/slack/bindings";
import { connectSlack } from "../../lib/notifications/slack/connection";
import { addSubscription } from "../../lib/notifications/web-push/subscriptions";
import { seatFor } from "../../lib/principals/seats";
import { type MailCapture, startMailCapture } from "./mail-capture";
import { type SlackFake, startSlackFake, type Workspace } from "./slack-fake";

/** A person's Slack user id in the fake workspace. */
export const slackUser = (handle: string) => `U${handle.toUpperCase()}`;

export interface EveryChannel {
  capture: MailCapture;
  slack: SlackFake;
  /** The path of each push request the local push service accepted (`/push/<handle>`). */
  pushes: string[];
  close(): Promise<void>;
}

export interface EveryChannelOptions {
  /** The account (its people's mail is `<handle>@<slug>.test`). */
  slug: string;
  /** The owner who connects Slack. */
  owner: string;
  /** Who is bound in Slack and subscribed to push. */
  people: readonly string[];
  workspace: Workspace;
  signingSecret: string;
  channelId: string;
}

const ENV_SET = [
  "SMTP_URL",
  "MA2H_MAIL_FROM",
  "SLACK_API_URL",
  "MA2H_DEV_MODE",
  "MA2H_DEV_CALLBACK_ALLOWLIST",
  "MA2H_VAPID_SUBJECT",
] as const;

async function startPushService(pushes: string[]): Promise<http.Server> {
  const push = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      pushes.push(req.url ?? "/");
      res.writeHead(201).end();
    });
  });
  await new Promise<void>((r) => push.listen(0, "127.0.0.1", r));
  return push;
}

export async function reachEveryChannel(o: EveryChannelOptions): Promise<EveryChannel> {
  const pushes: string[] = [];
  const capture = await startMailCapture();
  const slack = await startSlackFake([o.workspace]);
  const push = await startPushService(pushes);
  const pushOrigin = `http://127.0.0.1:${(push.address() as AddressInfo).port}`;
  Object.assign(process.env, {
    SMTP_URL: capture.url,
    MA2H_MAIL_FROM: "MA2H Hub <hub@ma2h.test>",
    SLACK_API_URL: slack.apiUrl,
    // A loopback push service is allowed in dev mode only, and only from the dev allowlist.
    MA2H_DEV_MODE: "1",
    MA2H_DEV_CALLBACK_ALLOWLIST: pushOrigin,
    MA2H_VAPID_SUBJECT: "mailto:ops@ma2h.test",
  });
  resetEnvCache();
  const userId = async (handle: string) =>
    (await db().user.findUniqueOrThrow({ where: { email: `${handle}@${o.slug}.test` }, select: { id: true } })).id;
  const account = await db().account.findUniqueOrThrow({ where: { slug: o.slug } });
  const owner = await seatFor(await userId(o.owner), account.id);
  if (!owner) throw new Error(`no seat for ${o.owner}`);
  await connectSlack(
    { ...owner, actor: `human:${o.owner}` },
    { botToken: o.workspace.token, signingSecret: o.signingSecret, channelId: o.channelId, directMessages: true },
  );
  for (const handle of o.people) {
    const id = await userId(handle);
    await db().$transaction((tx) =>
      bindSlackUser(
        tx,
        { accountId: account.id, teamId: o.workspace.teamId, slackUserId: slackUser(handle), userId: id },
        new Date(),
      ),
    );
    const ecdh = createECDH("prime256v1");
    ecdh.generateKeys();
    await addSubscription(
      id,
      {
        endpoint: `${pushOrigin}/push/${handle}`,
        expirationTime: null,
        keys: { p256dh: ecdh.getPublicKey().toString("base64url"), auth: randomBytes(16).toString("base64url") },
      },
      null,
    );
  }
  return {
    capture,
    slack,
    pushes,
    async close() {
      for (const k of ENV_SET) delete process.env[k];
      resetEnvCache();
      await Promise.all([capture.close(), slack.close(), new Promise<void>((r) => push.close(() => r()))]);
    },
  };
}

/**
 * Escalation by policy across a worker SIGKILL (docs/policies.md "Escalation"; §3.1: a restart
 * loses no obligation). The Hub runs as a web + worker pair with a real SMTP server; the policy's
 * rule escalates the bot's asks to group oncall after 4 s. The worker is killed before that: nothing
 * is escalated while none runs; a new worker's sweep escalates it once — oncall is told by mail,
 * may answer, and the audit has one `message.escalated`. An ask answered in time is never escalated.
 */
// covers: lib/assignment/escalate.ts, lib/policies/escalation.ts, lib/jobs/sweeps.ts
import { afterAll, describe, expect, it } from "vitest";
import { db } from "../lib/db";
import { PolicyFileSchema } from "../lib/policies/model";
import { applyPolicy } from "../lib/policies/store";
import type { HubProcess } from "./support/hub";
import { useHubFixture } from "./support/hub-fixture";
import { type MailCapture, startMailCapture } from "./support/mail-capture";
import { envelope } from "./support/provision";
import { startWorker } from "./support/push-kit";
import { staysFalse, waitFor } from "./support/wait";

const A = "paybot";
const AFTER_S = 4;
let capture: MailCapture;
const env = () => ({
  SMTP_URL: capture.url,
  MA2H_MAIL_FROM: "MA2H Hub <hub@ma2h.test>",
  MA2H_DELIVERY_SWEEP_MS: "500",
  MA2H_EXPIRY_SWEEP_MS: "500",
});

const hub = useHubFixture({
  server: "pair",
  accounts: {
    acme: {
      agents: [A],
      humans: [
        { handle: "olga", role: "owner" },
        { handle: "alice", role: "member" },
        { handle: "erin", role: "member" },
      ],
    },
  },
  setup: async () => {
    capture = await startMailCapture();
    const acme = await db().account.findUniqueOrThrow({ where: { slug: "acme" } });
    await applyPolicy(
      acme.id,
      PolicyFileSchema.parse({
        version: 1,
        groups: { oncall: ["human:erin"] },
        rules: [
          { name: "payments", assign: ["human:alice"], escalate_after: `${AFTER_S}s`, escalate_to: "group:oncall" },
        ],
      }),
      { actor: "human:olga", role: "owner" },
    );
  },
  env,
});

const extraWorkers: HubProcess[] = [];
afterAll(async () => {
  await Promise.all(extraWorkers.map((w) => w.stop()));
  await capture.close();
});

const escalationMails = (title: string) =>
  capture.received
    .filter((r) => (r.mail.subject ?? "").startsWith("Escalation: ") && (r.mail.subject ?? "").endsWith(` ${title}`))
    .map((r) => r.to);
const submit = async (title: string) => {
  const res = await hub.agent(A, "acme").post("/v1/messages", envelope("ask", A, { title }));
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  return res.body.id as string;
};

describe("escalation by policy, durable", () => {
  it("a worker killed before it is due: a new worker escalates once; an answered ask never", async () => {
    const title = `escalating ${Date.now()}`;
    const id = await submit(title);
    const answered = await submit(`${title} answered`);
    const created = (await db().message.findUniqueOrThrow({ where: { id } })).createdAt.getTime();
    // The fan-out wrote the obligation; then the worker dies before it is due.
    await waitFor(() => db().policyEscalation.findUnique({ where: { messageId: id } }), {
      what: "the escalation row",
      timeout: 15_000,
    });
    expect(Date.now()).toBeLessThan(created + AFTER_S * 1000);
    await hub.worker.stop("SIGKILL");
    const done = await hub.human("alice", "acme").post(`/v1/messages/${answered}/resolve`, {
      resolution: "answered",
      value: "ship",
    });
    expect(done.status).toBe(200);
    await staysFalse(
      () => escalationMails(title).length > 0,
      Math.max(0, created + AFTER_S * 1000 + 1000 - Date.now()),
      "an escalation with no worker running",
    );
    extraWorkers.push(await startWorker(hub.databaseUrl, env()));
    await waitFor(() => (escalationMails(title).length > 0 ? true : undefined), {
      what: "the escalation mail",
      timeout: 30_000,
    });
    await staysFalse(() => escalationMails(title).length > 1, 2000, "a second escalation mail");
    expect(escalationMails(title)).toEqual(["erin@acme.test"]);
    expect(escalationMails(`${title} answered`)).toEqual([]);
    const events = await db().auditEvent.findMany({
      where: { event: "message.escalated" },
      select: { messageId: true },
    });
    expect(events.map((e) => e.messageId)).toEqual([id]);
    const erin = await hub.human("erin", "acme").post(`/v1/messages/${id}/resolve`, {
      resolution: "answered",
      value: "hold",
    });
    expect(erin.status, JSON.stringify(erin.body)).toBe(200);
  });
});

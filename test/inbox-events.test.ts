/**
 * Live inbox updates (lib/inbox/events.ts): one LISTEN per process fans each submit and terminal
 * transition out to the subscribers seated in that account — and to no one else.
 */
// covers: lib/inbox/events.ts, lib/pubsub/inbox.ts, lib/pubsub/listener.ts
import { afterAll, expect, it } from "vitest";
import { db } from "../lib/db";
import { inboxEvents, type InboxEvent } from "../lib/inbox/events";
import { answerAsHuman } from "../lib/inbox/answer";
import { submitMessage } from "../lib/messages/submit";
import { authenticate, requireAgent } from "../lib/principals/authenticate";
import { addUser } from "../lib/principals/users";
import { useHubFixture } from "./support/hub-fixture";
import { envelope, type Provisioned } from "./support/provision";
import { staysFalse } from "./support/wait";

const A = "deploybot/dev-team";
const fx = useHubFixture({ accounts: { acme: { agents: [A] }, other: { agents: [A] } }, server: "none" });
const acme = fx.account("acme");
const other = fx.account("other");

async function submit(p: Provisioned, type: "ask" | "notify" = "ask"): Promise<string> {
  const principal = requireAgent(await authenticate(new Headers({ authorization: `Bearer ${p.keys[A]}` })));
  return (await submitMessage(principal, envelope(type, A))).ack.id;
}

afterAll(async () => {
  await inboxEvents().close();
});

it("delivers an account's submits and resolutions to its subscribers only, on commit", async () => {
  const acmeId = (await db().account.findUniqueOrThrow({ where: { slug: "acme" } })).id;
  const mine: InboxEvent[] = [];
  const theirs: InboxEvent[] = [];
  const stop = await inboxEvents().subscribe([acmeId], (e) => mine.push(e));
  const stopOther = await inboxEvents().subscribe(["acc_nobody"], (e) => theirs.push(e));
  const ask = await submit(acme);
  await submit(other);
  const note = await submit(acme, "notify");
  const alice = (await addUser("alice@acme.test", "acme", "alice", "owner")).userId;
  await answerAsHuman(alice, ask, { kind: "answer", value: "ship" });
  await expect.poll(() => mine.length).toBe(3);
  expect(mine).toEqual([
    { kind: "change", accountId: acmeId, messageId: ask },
    { kind: "change", accountId: acmeId, messageId: note },
    { kind: "change", accountId: acmeId, messageId: ask },
  ]);
  expect(theirs).toEqual([]);
  stop();
  stopOther();
  expect(inboxEvents().size).toBe(0);
  await submit(acme);
  // No subscriber left: a window (long enough for a NOTIFY on a loaded box) in which none may come.
  await staysFalse(() => mine.length > 3, 500, "an event after the unsubscribe");
  expect(mine.length).toBe(3);
});

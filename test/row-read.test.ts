/**
 * The one-statement row read (lib/messages/row-read.ts) returns exactly what the Prisma client
 * returns for the same message with its resolution — every column, its type and its nulls — for an
 * open ask, a resolved one with a pushed callback and tags, and a notify; and null for an unknown id.
 */
// covers: lib/messages/row-read.ts, lib/messages/row-read.sql.ts
import { describe, expect, it } from "vitest";
import { db } from "../lib/db";
import { resolveMessage } from "../lib/messages/resolve";
import { readMessageRow } from "../lib/messages/row-read";
import { submitMessage } from "../lib/messages/submit";
import { authenticate, requireAgent } from "../lib/principals/authenticate";
import { envelope, provisionAccount } from "./support/provision";
import { useTestDatabase } from "./support/test-database";

useTestDatabase();

const A = "rowbot/dev";

describe("readMessageRow", () => {
  it("matches the client's findUnique with the resolution, column for column", async () => {
    const { keys } = await provisionAccount("rows", [A]);
    const principal = requireAgent(await authenticate(new Headers({ authorization: `Bearer ${keys[A]}` })));
    const open = await submitMessage(
      principal,
      envelope("ask", A, {
        tags: ["a", "b"],
        priority: "high",
        expires_at: new Date(Date.now() + 3_600_000).toISOString(),
      }),
    );
    const answered = await submitMessage(principal, envelope("ask", A, { sensitive: true }));
    await resolveMessage({ kind: "agent", principal }, answered.ack.id, { resolution: "answered", value: "ship" });
    const notify = await submitMessage(principal, envelope("notify", A));
    for (const id of [open.ack.id, answered.ack.id, notify.ack.id]) {
      const viaClient = await db().message.findUnique({ where: { id }, include: { resolution: true } });
      // The read also joins an addressed message's `message` entry track (§14.2): none here.
      expect(await readMessageRow(id)).toStrictEqual({ ...viaClient, mailbox: null });
    }
    expect((await readMessageRow(answered.ack.id))?.resolution?.actor).toBe(`agent:${A}`);
    expect(await readMessageRow("msg_unknown")).toBeNull();
  });
});

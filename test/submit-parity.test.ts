/**
 * The hand-written submit statement (lib/messages/submit.sql.ts, the one-statement path of
 * lib/messages/submit.ts) and the Prisma client write the same message from the same values: read
 * back through the client, the two `messages` rows agree on every column but `id`, the primary key
 * (two rows cannot share it); `createdAt` and `statusChangedAt` are the same instant on both because
 * both writers are handed it. So a column the statement forgets (left NULL or at its default) or
 * maps to the wrong value fails here. Every value given is set and none is a column default, so a
 * forgotten column cannot match by chance. The statement's audit row is held to the Prisma writer's
 * (lib/audit/write.ts) the same way: same columns, same `detail`, unsealed.
 */
// covers: lib/messages/submit.sql.ts, lib/messages/submit.ts, lib/audit/write.ts, lib/audit/row-fragment.sql.ts
import { describe, expect, it } from "vitest";
import { AUDIT_EVENT } from "../lib/audit/events";
import { writeAudit } from "../lib/audit/write";
import { db } from "../lib/db";
import { type NewMessageRow, runSubmitStatement } from "../lib/messages/submit.sql";
import { mintId } from "@ma2h/protocol/ids";
import { authenticate, requireAgent } from "../lib/principals/authenticate";
import { provisionAccount } from "./support/provision";
import { useTestDatabase } from "./support/test-database";

useTestDatabase();

const A = "paritybot/dev";

/** A row with every column set, none to its default (priority `normal`, rank 2, no tags, not sensitive). */
function fullRow(accountId: string, agentRowId: string, type: "ask" | "notify"): NewMessageRow {
  const createdAt = new Date(Date.UTC(2026, 11, 6, 12, 0, 0, 123));
  return {
    id: mintId("message"),
    accountId,
    agentRowId,
    type,
    status: type === "ask" ? "open" : "delivered",
    ma2hVersion: "0.6",
    envelope: JSON.stringify({ ma2h_version: "0.6", type, title: "Parity", agent: { id: A } }),
    state: JSON.stringify({ cursor: 7 }),
    title: "Parity",
    priority: "high",
    priorityRank: 1,
    project: "parity-project",
    tags: ["one", "two"],
    sensitive: true,
    idempotencyKey: `parity-${type}`,
    expiresAt: new Date(createdAt.getTime() + 3_600_000 + 7),
    callbackUrl: "https://agent.example/callback",
    createdAt,
    terminalAt: new Date(createdAt.getTime() + 1),
    routing: JSON.stringify({ rules: ["prod"], eligible: ["alice"], email_answers: false }),
  };
}

describe("the submit statement and the Prisma client write the same message", () => {
  for (const type of ["ask", "notify"] as const) {
    it(`${type}: every column of the row, and its audit row`, async () => {
      const { keys } = await provisionAccount(`parity-${type}`, [A]);
      const principal = requireAgent(await authenticate(new Headers({ authorization: `Bearer ${keys[A]}` })));
      const row = fullRow(principal.accountId, principal.agentRowId, type);
      for (const [column, value] of Object.entries(row)) expect(value, `${column} is set`).not.toBeNull();
      const actor = `agent:${principal.agentId}`;

      // An ask takes an inbox slot (the statement's `slot`), a notify none: both shapes of the statement.
      const outcome = await runSubmitStatement({
        row,
        payloadHash: "parity-hash",
        actor,
        inboxDepth: type === "ask" ? 100 : null,
      });
      expect(outcome).toEqual({ created: true });

      // The Prisma path as lib/messages/submit.ts's transaction writes it (createMessage).
      const otherId = mintId("message");
      await db().$transaction(async (tx) => {
        await tx.message.create({ data: { ...row, id: otherId, statusChangedAt: row.createdAt } });
        await writeAudit(tx, {
          accountId: row.accountId,
          messageId: otherId,
          actor,
          event: AUDIT_EVENT.messageSubmitted,
          detail: { type },
          at: row.createdAt,
        });
      });

      const viaStatement = await db().message.findUniqueOrThrow({ where: { id: row.id } });
      const viaClient = await db().message.findUniqueOrThrow({ where: { id: otherId } });
      expect({ ...viaStatement, id: otherId }).toStrictEqual(viaClient);

      // Audit rows: all but the row id and the message they name; `seq`, `prevHash` and `hash` are
      // null on both (the sealer, lib/audit/seal.ts, has not run).
      const audit = async (messageId: string) => {
        const { id: _id, messageId: _m, ...rest } = await db().auditEvent.findFirstOrThrow({ where: { messageId } });
        return rest;
      };
      const auditViaStatement = await audit(row.id);
      expect(auditViaStatement.seq).toBeNull();
      expect(auditViaStatement).toStrictEqual(await audit(otherId));
    });
  }
});

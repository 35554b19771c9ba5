/**
 * `ma2h-hub account purge <slug> --confirm <slug>`: the one way to erase an account's data —
 * the account row and, by its cascades, its members, agents, messages and audit trail. The trail is
 * append-only with no bypass a Hub session could set, so the purge disables the append-only trigger
 * inside its own transaction: an act only the table's owner may perform (ALTER TABLE), which is why
 * purges run as the owner (docs/DEPLOYMENT.md) while the Hub itself need not. Before erasing, it
 * seals whatever of the stream is unsealed and leaves a tombstone (`audit_tombstones`, append-only)
 * carrying the chain's last seq and hash, so an earlier export can still be matched to what was erased.
 */
import { clock } from "../clock";
import { db } from "../db";
import { HubError } from "@ma2h/protocol/errors";
import { publishCredentialChange } from "../pubsub/credentials";
import type { AuditStream } from "./chain";
import { writeCheckpoint } from "./checkpoints";
import { countStreamRows, lockAccountBySlug, runDeleteAccount, switchAppendOnly } from "./purge.sql";
import { chainHead, sealStream } from "./seal";

export interface PurgeResult {
  slug: string;
  accountId: string;
  erasedRows: number;
  lastSeq: number;
  lastHash: string;
}

const PURGE_ACTOR = "system:cli";

export async function purgeAccount(slug: string, confirm: string | undefined): Promise<PurgeResult> {
  if (confirm !== slug) throw new HubError("validation_error", "--confirm must repeat the account's slug");
  try {
    return await db().$transaction(
      async (tx) => {
        // The account row first: every writer into the account holds a key-share lock on it, so
        // once this is ours no row of the stream is still in flight.
        const accountId = await lockAccountBySlug(tx, slug);
        if (!accountId) throw new HubError("not_found", `no account ${slug}`);
        const stream: AuditStream = { accountId, userId: null };
        while ((await sealStream(tx, stream)) > 0) {}
        const head = await chainHead(tx, stream);
        // The erased trail's last hash, signed: the tombstone's proof outlives the rows (checkpoints stay).
        const name = `account:${accountId}`;
        if (head.seq > 0 && (await tx.auditCheckpoint.count({ where: { stream: name, seq: BigInt(head.seq) } })) === 0)
          await writeCheckpoint(tx, name, head);
        const erasedRows = await countStreamRows(tx, stream);
        await switchAppendOnly(tx, false);
        await runDeleteAccount(tx, accountId);
        // Its agents' keys go with it: every web's credential cache drops them on commit
        // (lib/principals/credential-cache.ts). This runs in the CLI, which caches nothing itself.
        await publishCredentialChange(tx, { kind: "account", id: accountId });
        await switchAppendOnly(tx, true);
        await tx.auditTombstone.create({
          data: {
            accountId,
            slug,
            lastSeq: BigInt(head.seq),
            lastHash: head.hash,
            erasedRows: BigInt(erasedRows),
            actor: PURGE_ACTOR,
            at: clock.now(),
          },
        });
        return { slug, accountId, erasedRows, lastSeq: head.seq, lastHash: head.hash };
      },
      { timeout: 600_000 },
    );
  } catch (err) {
    if (/must be owner of table/i.test((err as Error).message)) {
      throw new HubError(
        "not_authorized",
        "account purge must run as the owner of audit_events (the migration role; docs/DEPLOYMENT.md)",
      );
    }
    throw err;
  }
}

/** The statement behind lib/notifications/web-push/vapid.ts. */
import { db } from "../../db";
import { Prisma } from "../../generated/prisma/client";
import { statement } from "../../sql-statement";

/** Racing first uses both insert under the fixed id; the one that loses writes nothing. */
export const insertVapidKeys = statement(
  "insert the Hub's VAPID key pair unless one is there",
  (id: number, publicKey: string, privateKeySealed: string, createdAt: Date) => Prisma.sql`
      INSERT INTO hub_vapid_keys (id, public_key, private_key_sealed, created_at)
      VALUES (${id}, ${publicKey}, ${privateKeySealed}, ${createdAt})
      ON CONFLICT (id) DO NOTHING`,
  [[1, "BPublicKeySample", "v2.sealed.sample", new Date(0)]],
);

export async function runInsertVapidKeys(
  id: number,
  publicKey: string,
  privateKeySealed: string,
  createdAt: Date,
): Promise<void> {
  await db().$executeRaw(insertVapidKeys.sql(id, publicKey, privateKeySealed, createdAt));
}

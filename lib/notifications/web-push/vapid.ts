/**
 * The Hub's VAPID key pair (RFC 8292): generated once, on first need, by whichever process
 * needs it first, and kept in the singleton row `hub_vapid_keys` with the private key sealed
 * (lib/secrets.ts). Two processes racing on the first use both insert under the fixed id with
 * ON CONFLICT DO NOTHING and both read back the one row that won, so the Hub never has two pairs —
 * a second pair would silently orphan every browser subscribed under the first.
 */
import { clock } from "../../clock";
import { db } from "../../db";
import { processWide } from "../../process-wide";
import { openSecret, sealSecret } from "../../secrets";
import { sealContext } from "../../sealed/catalogue";
import { runInsertVapidKeys } from "./vapid.sql";

/** The one row's id. */
const SINGLETON = 1;
/** What the private key is sealed for: the VAPID key of the singleton row. */
const SEALED_FOR = sealContext("vapidPrivateKey", { id: SINGLETON });

export interface VapidKeys {
  /** Uncompressed P-256 point, base64url: the browser's `applicationServerKey`. */
  publicKey: string;
  /** The raw private scalar, base64url. Never logged, never served. */
  privateKey: string;
}

/** Read once per process (lib/process-wide.ts). */
const loaded = () => processWide("ma2h.vapid-keys", () => ({ cached: null as VapidKeys | null }));

export async function vapidKeys(): Promise<VapidKeys> {
  const slot = loaded();
  if (slot.cached) return slot.cached;
  let row = await db().hubVapidKeys.findUnique({ where: { id: SINGLETON } });
  if (!row) {
    const { default: webpush } = await import("web-push"); // loaded only to make the keys, once per Hub
    const fresh = webpush.generateVAPIDKeys();
    await runInsertVapidKeys(SINGLETON, fresh.publicKey, sealSecret(fresh.privateKey, SEALED_FOR), clock.now());
    row = await db().hubVapidKeys.findUniqueOrThrow({ where: { id: SINGLETON } });
  }
  const keys = { publicKey: row.publicKey, privateKey: openSecret(row.privateKeySealed, SEALED_FOR) };
  loaded().cached = keys;
  return keys;
}

/** The public key alone (what `GET /api/push/key` serves). */
export async function vapidPublicKey(): Promise<string> {
  return (await vapidKeys()).publicKey;
}

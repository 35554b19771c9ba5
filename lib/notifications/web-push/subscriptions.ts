/**
 * A person's browser push subscriptions (docs/notifications.md "Browser push"): one per device
 * (browser profile), added from the inbox's "Notify me on this device", listed and removed in
 * /settings/devices. Each add and removal is written to the person's own audit stream, never with
 * the endpoint or keys (the endpoint is a capability URL: whoever holds it can push to the device).
 */
import { createPublicKey } from "node:crypto";
import { z } from "zod";
import { AUDIT_EVENT } from "../../audit/events";
import { personActor, writePersonAudit } from "../../audit/write";
import { clock } from "../../clock";
import { db, type Tx } from "../../db";
import { lockPerson } from "../../principals/seat-locks";
import { HubError } from "@ma2h/protocol/errors";
import { mintId } from "@ma2h/protocol/ids";
import { parseWire } from "@ma2h/protocol/wire";
import { sealSecret } from "../../secrets";
import { sealContext } from "../../sealed/catalogue";
import { endpointAllowed } from "./endpoint";

/** Devices one person may subscribe; a 21st is refused until one is removed. */
export const MAX_DEVICES_PER_PERSON = 20;

const base64url = (bytes: number, what: string) =>
  z
    .string()
    .regex(/^[A-Za-z0-9_-]+={0,2}$/, `must be base64url (${what})`)
    .refine((s) => Buffer.from(s, "base64url").length === bytes, `must be ${bytes} bytes (${what})`);

/** 0x04 ‖ X ‖ Y, and a point on the curve: a key nothing could encrypt to is refused at the door. */
function isP256Point(b64: string): boolean {
  const point = Buffer.from(b64, "base64url");
  if (point[0] !== 0x04) return false;
  try {
    const jwk = {
      kty: "EC",
      crv: "P-256",
      x: point.subarray(1, 33).toString("base64url"),
      y: point.subarray(33).toString("base64url"),
    };
    createPublicKey({ key: jwk, format: "jwk" });
    return true;
  } catch {
    return false;
  }
}

/** What the browser's `PushSubscription.toJSON()` gives (W3C Push API), as POSTed by the inbox. */
export const subscriptionInput = z.object({
  endpoint: z
    .string()
    .max(2048)
    .refine(endpointAllowed, "must be an https URL of a known push service (MA2H_PUSH_SERVICES adds others)"),
  expirationTime: z.number().nullable().optional(),
  keys: z.object({
    // RFC 8291 §3.1: the user agent's P-256 public key, uncompressed (0x04 ‖ X ‖ Y).
    p256dh: base64url(65, "an uncompressed P-256 point").refine(isP256Point, "must be an uncompressed P-256 point"),
    // RFC 8291 §3.2: the 16-byte authentication secret.
    auth: base64url(16, "the auth secret"),
  }),
});

export interface DeviceInfo {
  id: string;
  label: string;
  createdAt: Date;
  lastUsedAt: Date | null;
}

/** A short browser label from a User-Agent: "Firefox on Linux", never the whole string. */
export function deviceLabel(userAgent: string | null): string {
  const ua = userAgent ?? "";
  const browser =
    [
      ["Edg/", "Edge"],
      ["Firefox/", "Firefox"],
      ["Chrome/", "Chrome"],
      ["Chromium/", "Chromium"],
      ["Safari/", "Safari"],
    ].find(([needle]) => ua.includes(needle as string))?.[1] ?? "A browser";
  const os =
    [
      ["Android", "Android"],
      ["iPhone", "iOS"],
      ["iPad", "iOS"],
      ["Windows", "Windows"],
      ["Mac OS", "macOS"],
      ["Linux", "Linux"],
    ].find(([needle]) => ua.includes(needle as string))?.[1] ?? null;
  return os ? `${browser} on ${os}` : browser;
}

async function removed(tx: Tx, userId: string, id: string, reason: string, actor = personActor(userId)): Promise<void> {
  await writePersonAudit(tx, {
    userId,
    actor,
    event: AUDIT_EVENT.pushDeviceRemoved,
    detail: { device_id: id, reason },
  });
}

/**
 * Subscribes this device for the person. The browser keeps one subscription per origin, so the
 * same endpoint posted again is the same device: unchanged → nothing is written; posted by another
 * person (the browser changed hands) → it moves to them, recorded in both streams.
 */
export async function addSubscription(userId: string, input: unknown, userAgent: string | null): Promise<DeviceInfo> {
  const sub = parseWire(subscriptionInput, input, "validation_error");
  const label = deviceLabel(userAgent);
  return db().$transaction(async (tx) => {
    // One change at a time per person: two concurrent adds cannot both pass the cap.
    await lockPerson(tx, userId);
    const existing = await tx.pushSubscription.findUnique({ where: { endpoint: sub.endpoint } });
    if (existing?.userId === userId && existing.p256dh === sub.keys.p256dh) return existing;
    if (
      (await tx.pushSubscription.count({ where: { userId, NOT: { endpoint: sub.endpoint } } })) >=
      MAX_DEVICES_PER_PERSON
    )
      throw new HubError(
        "invalid_field",
        `at most ${MAX_DEVICES_PER_PERSON} devices get notifications; remove one in settings first`,
      );
    if (existing) {
      await tx.pushSubscription.delete({ where: { id: existing.id } });
      if (existing.userId !== userId)
        await removed(tx, existing.userId, existing.id, "subscribed by another person", personActor(userId));
    }
    const id = mintId("pushSubscription");
    const row = await tx.pushSubscription.create({
      data: {
        id,
        userId,
        endpoint: sub.endpoint,
        p256dh: sub.keys.p256dh,
        authSealed: sealSecret(sub.keys.auth, sealContext("pushSubscriptionAuth", { id })),
        label,
        createdAt: clock.now(),
      },
    });
    await writePersonAudit(tx, {
      userId,
      actor: personActor(userId),
      event: AUDIT_EVENT.pushDeviceAdded,
      detail: { device_id: row.id, label },
    });
    return row;
  });
}

/** The person's devices, newest first. */
export async function listDevices(userId: string): Promise<DeviceInfo[]> {
  return db().pushSubscription.findMany({
    where: { userId },
    orderBy: [{ createdAt: "desc" }, { id: "asc" }],
    select: { id: true, label: true, createdAt: true, lastUsedAt: true },
  });
}

/** Removes one of the person's devices; someone else's or an unknown id is `404` and untouched. */
export async function removeDevice(userId: string, id: string): Promise<{ id: string; removed: true }> {
  await db().$transaction(async (tx) => {
    const { count } = await tx.pushSubscription.deleteMany({ where: { id, userId } });
    if (count === 0) throw new HubError("not_found", `device ${id} not found`);
    await removed(tx, userId, id, "removed by the person");
  });
  return { id, removed: true };
}

/**
 * A push service answered `404`/`410` for this endpoint (RFC 8030 §7.3: the subscription is gone):
 * the device is forgotten. Only the row still holding this endpoint is deleted, so a device that
 * re-subscribed meanwhile under a new endpoint stays.
 */
export async function forgetGoneDevice(id: string, endpoint: string): Promise<void> {
  await db().$transaction(async (tx) => {
    const row = await tx.pushSubscription.findFirst({ where: { id, endpoint } });
    if (!row) return;
    await tx.pushSubscription.delete({ where: { id } });
    await removed(tx, row.userId, id, "the push service says it is gone", "system:push_service");
  });
}

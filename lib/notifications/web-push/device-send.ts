/**
 * One push to one device: the payload encrypted to the browser's keys (RFC 8291 aes128gcm)
 * under a VAPID JWT (RFC 8292), both built by web-push's `generateRequestDetails`, then POSTed
 * through the Hub's SSRF-safe egress (lib/delivery/egress.ts) — never web-push's own https client,
 * which has no address guard. The outcome is classified by RFC 8030's answers: 2xx accepted,
 * `404`/`410` the subscription is gone, `429`/5xx and network trouble worth retrying, the rest not.
 */
import type webpush from "web-push";
import { postBytes } from "../../delivery/egress";
import { webPushSettings } from "../../env";
import { openSecret } from "../../secrets";
import { sealContext } from "../../sealed/catalogue";
import { devPushOrigins, endpointAllowed } from "./endpoint";
import { type PushPayload, ttlSeconds, urgencyFor } from "./payload";
import type { VapidKeys } from "./vapid";

export type DeviceOutcome =
  | { kind: "accepted"; status: number }
  | { kind: "gone"; status: number }
  | { kind: "transient"; errorClass: string; status: number | null }
  | { kind: "permanent"; errorClass: string; status: number | null };

export interface Device {
  /** The subscription's id: its auth secret is sealed for it. */
  id: string;
  endpoint: string;
  p256dh: string;
  authSealed: string;
}

export function outcomeForStatus(status: number): DeviceOutcome {
  if (status >= 200 && status < 300) return { kind: "accepted", status };
  if (status === 404 || status === 410) return { kind: "gone", status };
  if (status === 429 || status >= 500) return { kind: "transient", errorClass: `push_http_${status}`, status };
  return { kind: "permanent", errorClass: `push_http_${status}`, status };
}

export async function pushToDevice(
  device: Device,
  payload: PushPayload,
  keys: VapidKeys,
  item: { id: string; expiresAt: Date | null },
  now: Date,
): Promise<DeviceOutcome> {
  if (!endpointAllowed(device.endpoint)) return { kind: "permanent", errorClass: "push_refused_url", status: null };
  let details: webpush.RequestDetails;
  // web-push loads with the first push to a device, not with every process that could send one.
  const { default: webPush } = await import("web-push");
  try {
    details = webPush.generateRequestDetails(
      {
        endpoint: device.endpoint,
        keys: {
          p256dh: device.p256dh,
          auth: openSecret(device.authSealed, sealContext("pushSubscriptionAuth", { id: device.id })),
        },
      },
      JSON.stringify(payload),
      {
        vapidDetails: { subject: webPushSettings().subject, publicKey: keys.publicKey, privateKey: keys.privateKey },
        contentEncoding: "aes128gcm",
        TTL: ttlSeconds(item.expiresAt, now),
        urgency: urgencyFor(payload.priority),
        // RFC 8030 §5.4: a later push about the same item (a reminder) replaces an undelivered one.
        topic: item.id.replace(/[^A-Za-z0-9_-]/g, "").slice(0, 32),
      },
    );
  } catch {
    // Keys that do not open (AUTH_SECRET changed) or do not encrypt: retrying cannot help.
    return { kind: "permanent", errorClass: "push_encrypt_error", status: null };
  }
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(details.headers)) headers[k] = String(v);
  const result = await postBytes(device.endpoint, details.body ?? Buffer.alloc(0), "application/octet-stream", {
    headers,
    timeoutMs: webPushSettings().timeoutMs,
    allowLoopback: devPushOrigins(),
  });
  if (result.ok) return outcomeForStatus(result.status);
  if (result.errorClass === "refused_url" || result.errorClass === "refused_address")
    return { kind: "permanent", errorClass: `push_${result.errorClass}`, status: null };
  return { kind: "transient", errorClass: `push_${result.errorClass}`, status: null };
}

/**
 * Standard Webhooks on a callback binding (opt-in, docs/agents.md): the Hub generates the binding's
 * own `whsec_` secret — never derived from the binding's §9.2 secret — shows it once, and keeps it
 * sealed at rest, bound to the binding's row and destination (lib/sealed/catalogue.ts). Pushes to
 * the binding then carry the three `webhook-*` headers beside `MA2H-Signature`.
 */
import { db } from "../db";
import { HubError } from "@ma2h/protocol/errors";
import { AUDIT_EVENT } from "../audit/events";
import { writeAudit } from "../audit/write";
import { newStandardWebhooksSecret } from "./standard-webhooks";
import { openSecret, sealSecret } from "../secrets";
import { sealContext } from "../sealed/catalogue";
import { actorOf, inScope, type AdminOptions } from "../principals/admin-scope";

interface Destination {
  id: string;
  scheme: string;
  host: string;
  port: number;
  pathPrefix: string;
}

const contextOf = (b: Destination) =>
  sealContext("bindingStandardWebhooks", {
    id: b.id,
    scheme: b.scheme,
    host: b.host,
    port: b.port,
    path_prefix: b.pathPrefix,
  });

export type WebhooksChange = "on" | "rotate" | "off";

/**
 * Turns Standard Webhooks on (a new secret), rotates its secret (the old one stops at once), or
 * turns it off. Returns the new secret — the only time it is shown — for `on` and `rotate`.
 */
export async function changeStandardWebhooks(
  bindingId: string,
  change: WebhooksChange,
  opts?: AdminOptions,
): Promise<{ bindingId: string; enabled: boolean; secret?: string }> {
  return db().$transaction(async (tx) => {
    const b = await tx.callbackBinding.findFirst({
      where: { id: bindingId, revokedAt: null, agent: inScope(opts) },
      select: {
        id: true,
        scheme: true,
        host: true,
        port: true,
        pathPrefix: true,
        standardWebhooksSecret: true,
        agent: { select: { accountId: true, agentId: true } },
      },
    });
    if (!b) throw new HubError("not_found", `binding ${bindingId} not found`);
    const on = b.standardWebhooksSecret !== null;
    if (change === "on" && on)
      throw new HubError(
        "invalid_field",
        `binding ${bindingId} already has Standard Webhooks on; rotate its secret instead`,
      );
    if (change === "rotate" && !on)
      throw new HubError("invalid_field", `binding ${bindingId} has Standard Webhooks off; turn it on first`);
    if (change === "off" && !on) return { bindingId, enabled: false };
    const secret = change === "off" ? undefined : newStandardWebhooksSecret();
    await tx.callbackBinding.update({
      where: { id: b.id },
      data: { standardWebhooksSecret: secret === undefined ? null : sealSecret(secret, contextOf(b)) },
    });
    await writeAudit(tx, {
      accountId: b.agent.accountId,
      actor: actorOf(opts),
      event:
        change === "on"
          ? AUDIT_EVENT.bindingWebhooksOn
          : change === "rotate"
            ? AUDIT_EVENT.bindingWebhooksRotated
            : AUDIT_EVENT.bindingWebhooksOff,
      detail: { binding_id: b.id, agent_id: b.agent.agentId },
    });
    return secret === undefined ? { bindingId, enabled: false } : { bindingId, enabled: true, secret };
  });
}

/**
 * The binding's Standard Webhooks secret for a push: `off`, or the secret — null when the sealed
 * value does not open under this row's destination (pointed elsewhere since it was sealed).
 */
export function standardWebhooksSecretOf(
  b: Destination & { standardWebhooksSecret: string | null },
): { on: false } | { on: true; secret: string | null } {
  if (b.standardWebhooksSecret === null) return { on: false };
  try {
    return { on: true, secret: openSecret(b.standardWebhooksSecret, contextOf(b)) };
  } catch {
    return { on: true, secret: null };
  }
}

/**
 * Callback host bindings (§9.4): an admin-approved tie between one agent and one
 * callback origin (+ optional path prefix), holding one or more named secrets sealed at rest
 * (lib/secrets) and never shown again. Adding a binding is the approval: it is active at once.
 * The submit-path checks live in callback-bindings.ts and are re-exported here.
 */
import { db } from "../db";
import { clock } from "../clock";
import { callbackOriginPolicy } from "../env";
import { hostAllowed, hostShared } from "../net/host-policy";
import { HubError } from "@ma2h/protocol/errors";
import { mintId } from "@ma2h/protocol/ids";
import { hubMac, sealSecret } from "../secrets";
import { sealContext } from "../sealed/catalogue";
import { AUDIT_EVENT } from "../audit/events";
import { writeAudit } from "../audit/write";
import { uniquely } from "../db-errors";
import { actorOf, inScope, type AdminOptions } from "./admin-scope";
import { requireMatch } from "./field-format";
import { resolveAgent, type AgentRef } from "./agents";
import { lockBindingRow } from "./bindings.sql";
import { formatOrigin, type Origin, parseOrigin, parsePathPrefix } from "./origins";
import type { BindingInfo } from "./binding-list";

export { assertCallbackAllowed, findCallbackBinding, resolveCallbackSecret } from "./callback-bindings";

// Listing them is ./binding-list.ts: a read on the pool that loads no Prisma client (`ma2h-hub binding list`).
export { type BindingInfo, listBindings } from "./binding-list";

// `secret_ref` / `token_ref` are free strings in the schema; we keep them printable and short.
const REF_PATTERN = /^[\x21-\x7e]{1,200}$/;
const MAX_SECRET_CHARS = 8192;

function checkSecret(ref: string, secret: string): void {
  requireMatch("secret ref", ref, REF_PATTERN, "1-200 printable ASCII characters, no spaces");
  if (secret.length === 0 || secret.length > MAX_SECRET_CHARS) {
    throw new HubError("invalid_field", `secret for ${ref} must be 1-${MAX_SECRET_CHARS} characters`);
  }
}

export interface AddBindingInput {
  agentRef: AgentRef;
  origin: string;
  pathPrefix?: string;
  secretRef: string;
  secret: string;
}

/**
 * MA2H_CALLBACK_ORIGIN_POLICY: an account's administrator (the web admin, `opts.accountId`
 * set) may approve only origins the operator's policy allows, so a tenant admin cannot make the Hub
 * a relay to arbitrary hosts; the Hub's operator (the CLI) is exempt. Unset: no restriction.
 */
function assertWithinOriginPolicy(origin: Origin, opts: AdminOptions | undefined): void {
  const policy = callbackOriginPolicy();
  if (!policy || !opts?.accountId || hostAllowed(policy, origin.host)) return;
  throw new HubError(
    "not_authorized",
    `origin ${formatOrigin(origin)} is outside this Hub's callback origin policy (${policy.entries.join(", ")}); ` +
      "the Hub's operator can approve it with ma2h-hub binding add",
  );
}

/** Where an account that wants an origin another account binds serves its proof (docs/security.md). */
export const ORIGIN_PROOF_PATH = "/.well-known/ma2h-callback-proof";

/**
 * The token that proves `accountId` controls `origin`: a keyed digest of both (lib/secrets `hubMac`),
 * so the Hub recognises it without storing it and one account's token proves nothing for another.
 */
export function originProofToken(accountId: string, origin: string): string {
  return `ma2h-callback-proof=${hubMac("callback-origin-proof", `${accountId}\n${origin}`)}`;
}

/** The refusal of an origin another account binds; `proof` is where and what to serve. */
export class OriginClaimedError extends HubError {
  readonly proof: { url: string; token: string };
  constructor(origin: string, proof: { url: string; token: string }) {
    super(
      "not_authorized",
      `origin ${origin} is already bound by another account of this Hub. To bind it here too, prove this ` +
        `account controls it: serve a line "${proof.token}" at ${proof.url} (text/plain) and add the ` +
        "binding again; or the Hub's operator lets accounts share it (MA2H_CALLBACK_ORIGIN_POLICY shared:<host>)",
    );
    this.proof = proof;
  }
}

/**
 * §9.2 across accounts: one receiver, one account. A push carries the answer of whichever account's
 * message named the URL, so an origin already bound by another account is refused unless the
 * operator's policy marks its host `shared:` or the caller proved control (`proven`, checked by
 * lib/delivery/origin-proof.ts — the fetch lives with the Hub's one outbound client).
 */
async function assertOriginOurs(origin: Origin, accountId: string, proven: boolean): Promise<void> {
  const policy = callbackOriginPolicy();
  if (proven || (policy && hostShared(policy, origin.host))) return;
  const other = await db().callbackBinding.findFirst({
    where: { ...origin, revokedAt: null, agent: { accountId: { not: accountId } } },
    select: { id: true },
  });
  if (!other) return;
  const text = formatOrigin(origin);
  throw new OriginClaimedError(text, { url: `${text}${ORIGIN_PROOF_PATH}`, token: originProofToken(accountId, text) });
}

/**
 * Approves `origin` (+ path prefix) for the agent with one sealed secret. An origin another account
 * binds needs `proven` (lib/delivery/origin-proof.ts `addBindingWithProof` sets it after the proof).
 */
export async function addBinding(
  input: AddBindingInput,
  opts?: AdminOptions & { proven?: boolean },
): Promise<BindingInfo> {
  const origin = parseOrigin(input.origin);
  const pathPrefix = parsePathPrefix(input.pathPrefix);
  assertWithinOriginPolicy(origin, opts);
  checkSecret(input.secretRef, input.secret);
  const agent = await resolveAgent(input.agentRef);
  await assertOriginOurs(origin, agent.accountId, opts?.proven === true);
  const id = mintId("binding");
  // Bound to its destination too: pointed elsewhere, the binding no longer opens its secret.
  const destination = { scheme: origin.scheme, host: origin.host, port: origin.port, path_prefix: pathPrefix };
  const sealed = sealSecret(
    input.secret,
    sealContext("bindingSecret", { binding_id: id, ref: input.secretRef, ...destination }),
  );
  const now = clock.now();
  await db().$transaction(async (tx) => {
    await tx.callbackBinding.create({ data: { id, agentRowId: agent.id, ...origin, pathPrefix, createdAt: now } });
    await tx.bindingSecret.create({
      data: { id: mintId("bindingSecret"), bindingId: id, ref: input.secretRef, sealed, createdAt: now },
    });
    await writeAudit(tx, {
      accountId: agent.accountId,
      actor: actorOf(opts),
      event: AUDIT_EVENT.bindingAdded,
      detail: {
        binding_id: id,
        agent_id: agent.agentId,
        origin: formatOrigin(origin),
        path_prefix: pathPrefix,
        secret_refs: [input.secretRef],
      },
    });
  });
  const originText = formatOrigin(origin);
  return {
    id,
    agentId: agent.agentId,
    accountSlug: agent.accountSlug,
    origin: originText,
    pathPrefix,
    secretRefs: [input.secretRef],
    standardWebhooks: false,
  };
}

/** Adds another named secret to an active binding; a ref already on it is `invalid_field`. */
export async function addBindingSecret(
  bindingId: string,
  ref: string,
  secret: string,
  opts?: AdminOptions,
): Promise<{ bindingId: string; ref: string }> {
  checkSecret(ref, secret);
  const binding = await db().callbackBinding.findFirst({
    where: { id: bindingId, revokedAt: null, agent: inScope(opts) },
    select: {
      scheme: true,
      host: true,
      port: true,
      pathPrefix: true,
      agent: { select: { accountId: true, agentId: true } },
    },
  });
  if (!binding) throw new HubError("not_found", `binding ${bindingId} not found`);
  const { scheme, host, port, pathPrefix } = binding;
  const sealed = sealSecret(
    secret,
    sealContext("bindingSecret", { binding_id: bindingId, ref, scheme, host, port, path_prefix: pathPrefix }),
  );
  await uniquely(`binding ${bindingId} already has a secret named ${ref}`, () =>
    db().$transaction(async (tx) => {
      await tx.bindingSecret.create({
        data: { id: mintId("bindingSecret"), bindingId, ref, sealed, createdAt: clock.now() },
      });
      await writeAudit(tx, {
        accountId: binding.agent.accountId,
        actor: actorOf(opts),
        event: AUDIT_EVENT.bindingSecretAdded,
        detail: { binding_id: bindingId, agent_id: binding.agent.agentId, secret_ref: ref },
      });
    }),
  );
  return { bindingId, ref };
}

/**
 * Removes one named secret from an active binding (the last step of rotating it): pushes that name
 * this ref stop at once (`binding_revoked`) and new submits naming it are `422`. The binding's last
 * secret cannot be removed — revoke the binding instead.
 */
export async function removeBindingSecret(
  bindingId: string,
  ref: string,
  opts?: AdminOptions,
): Promise<{ bindingId: string; ref: string; removed: true }> {
  await db().$transaction(async (tx) => {
    // Row lock: two concurrent removals cannot both pass the last-secret check.
    await lockBindingRow(tx, bindingId);
    const binding = await tx.callbackBinding.findFirst({
      where: { id: bindingId, revokedAt: null, agent: inScope(opts) },
      select: { agent: { select: { accountId: true, agentId: true } }, secrets: { select: { ref: true } } },
    });
    if (!binding) throw new HubError("not_found", `binding ${bindingId} not found`);
    if (!binding.secrets.some((s) => s.ref === ref))
      throw new HubError("not_found", `binding ${bindingId} has no secret named ${ref}`);
    if (binding.secrets.length === 1) {
      throw new HubError(
        "invalid_field",
        `${ref} is the last secret of binding ${bindingId}; revoke the binding instead`,
      );
    }
    await tx.bindingSecret.deleteMany({ where: { bindingId, ref } });
    await writeAudit(tx, {
      accountId: binding.agent.accountId,
      actor: actorOf(opts),
      event: AUDIT_EVENT.bindingSecretRemoved,
      detail: { binding_id: bindingId, agent_id: binding.agent.agentId, secret_ref: ref },
    });
  });
  return { bindingId, ref, removed: true };
}

/**
 * Withdraws the approval at once. Revoking again is a no-op; an unknown id — or, with
 * `opts.accountId`, another account's binding — is `404`.
 */
export async function revokeBinding(id: string, opts?: AdminOptions): Promise<{ id: string; revoked: true }> {
  await db().$transaction(async (tx) => {
    const where = { id, agent: inScope(opts) };
    const { count } = await tx.callbackBinding.updateMany({
      where: { ...where, revokedAt: null },
      data: { revokedAt: clock.now() },
    });
    const row = await tx.callbackBinding.findFirst({
      where,
      select: { agent: { select: { accountId: true, agentId: true } } },
    });
    if (!row) throw new HubError("not_found", `binding ${id} not found`);
    if (count > 0) {
      await writeAudit(tx, {
        accountId: row.agent.accountId,
        actor: actorOf(opts),
        event: AUDIT_EVENT.bindingRevoked,
        detail: { binding_id: id, agent_id: row.agent.agentId },
      });
    }
  });
  return { id, revoked: true };
}

/** Every active binding of the account's agents, by agent then age, with ref names only. */
export async function listAccountBindings(
  accountId: string,
): Promise<(BindingInfo & { agentRowId: string; createdAt: Date })[]> {
  const rows = await db().callbackBinding.findMany({
    where: { revokedAt: null, agent: { accountId } },
    select: {
      id: true,
      scheme: true,
      host: true,
      port: true,
      pathPrefix: true,
      createdAt: true,
      standardWebhooksSecret: true,
      agent: { select: { id: true, agentId: true, account: { select: { slug: true } } } },
      secrets: { select: { ref: true } },
    },
    orderBy: [{ agent: { agentId: "asc" } }, { createdAt: "asc" }, { id: "asc" }],
  });
  return rows.map((r) => ({
    id: r.id,
    agentRowId: r.agent.id,
    agentId: r.agent.agentId,
    accountSlug: r.agent.account.slug,
    origin: formatOrigin(r),
    pathPrefix: r.pathPrefix,
    secretRefs: r.secrets.map((s) => s.ref).sort(),
    standardWebhooks: r.standardWebhooksSecret !== null,
    createdAt: r.createdAt,
  }));
}

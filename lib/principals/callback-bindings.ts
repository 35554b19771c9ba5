/**
 * The submit- and delivery-path view of callback bindings (§9.4): a push callback is
 * accepted only when its URL — parsed, never string-prefixed — lies within one of the submitting
 * agent's active bindings and the secret/token ref it names belongs to that binding. Under a bound
 * path prefix the path must be in normal form and is matched on decoded segments (origins.ts); the
 * same check runs at submit and again before every delivery attempt (push-attempt.ts).
 */
import { db, type Tx } from "../db";
import { HubError } from "@ma2h/protocol/errors";
import { openSecret } from "../secrets";
import { sealContext } from "../sealed/catalogue";
import { formatOrigin, parseCallbackUrl, pathWithin } from "./origins";

/** Reads go through the caller's transaction when it has one (see assertCallbackAllowed). */
type Reader = Pick<Tx, "callbackBinding">;

/** The agent's active binding that `callbackUrl` falls within (and that holds `ref`, when given). */
export async function findCallbackBinding(
  agentRowId: string,
  callbackUrl: string,
  ref: string | undefined,
  client: Reader = db(),
): Promise<MatchedBinding | null> {
  const url = parseCallbackUrl(callbackUrl);
  if (!url) return null;
  const candidates = await client.callbackBinding.findMany({
    // Exact equality on the parsed scheme, host and effective port.
    where: { agentRowId, revokedAt: null, scheme: url.scheme, host: url.host, port: url.port },
    select: {
      id: true,
      scheme: true,
      host: true,
      port: true,
      pathPrefix: true,
      standardWebhooksSecret: true,
      secrets: { select: { ref: true } },
    },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
  });
  return matchCallbackBinding(candidates, callbackUrl, ref);
}

/** An active binding of the agent as the match reads it; `secrets` lists at least the refs it holds. */
export type BindingCandidate = MatchedBinding["row"] & { secrets: Array<{ ref: string }> };

/**
 * The match itself, on bindings already read (in creation order): exact scheme, host and effective
 * port; the path within the prefix on decoded segments; holding `ref` when given. The push attempt
 * reads the agent's active bindings in its claim statement and matches here, so submit and delivery
 * apply one rule.
 */
export function matchCallbackBinding<B extends BindingCandidate>(
  candidates: readonly B[],
  callbackUrl: string,
  ref: string | undefined,
): (MatchedBinding & { candidate: B }) | null {
  const url = parseCallbackUrl(callbackUrl);
  if (!url) return null;
  const match = candidates
    .filter((b) => b.scheme === url.scheme && b.host === url.host && b.port === url.port)
    .filter((b) => pathWithin(url, b.pathPrefix))
    .filter((b) => ref === undefined || b.secrets.some((s) => s.ref === ref))
    // The most specific prefix wins when several bindings cover the URL (stable: first created).
    .sort((a, b) => b.pathPrefix.length - a.pathPrefix.length)[0];
  if (!match) return null;
  const { id, scheme, host, port, pathPrefix, standardWebhooksSecret } = match;
  return {
    bindingId: id,
    origin: formatOrigin(url),
    row: { id, scheme, host, port, pathPrefix, standardWebhooksSecret },
    candidate: match,
  };
}

/** The binding a callback URL falls under: its id, origin, and the row a push reads its options from. */
export interface MatchedBinding {
  bindingId: string;
  origin: string;
  row: {
    id: string;
    scheme: string;
    host: string;
    port: number;
    pathPrefix: string;
    /** Sealed; null when Standard Webhooks is off (lib/delivery/binding-webhooks.ts). */
    standardWebhooksSecret: string | null;
  };
}

export interface CallbackSpec {
  mode: string;
  url?: string;
  auth?: { scheme: string; secret_ref?: string; token_ref?: string };
}

/**
 * §9.4 at submit: a push callback outside the agent's approved bindings is `422 invalid_field`.
 * Called inside the submit transaction, it must read through that transaction (`client`): a second
 * pooled connection per open transaction deadlocks the pool once as many push submits run at once
 * as there are connections.
 */
export async function assertCallbackAllowed(
  agentRowId: string,
  callback: CallbackSpec | undefined,
  client: Reader = db(),
): Promise<void> {
  if (callback?.mode !== "push") return;
  if (!callback.url) throw new HubError("invalid_field", "callback.url is required when callback.mode is push");
  const parsed = parseCallbackUrl(callback.url);
  if (!parsed) throw new HubError("invalid_field", "callback.url must be an http or https URL without userinfo");
  const origin = formatOrigin(parsed);
  const approve = `an admin must approve it: ma2h-hub binding add --agent <id> --origin ${origin}`;
  if (!(await findCallbackBinding(agentRowId, callback.url, undefined, client))) {
    // A path a receiver could read differently than we compare it lies within no bound prefix.
    const why = parsed.problem
      ? `callback.url path contains ${parsed.problem}, so it lies within no approved path prefix of origin ${origin}`
      : `callback.url origin ${origin} is not an approved callback binding for this agent`;
    throw new HubError("invalid_field", `${why}; ${approve} ...`);
  }
  const refField = callback.auth?.secret_ref !== undefined ? "secret_ref" : "token_ref";
  const ref = callback.auth?.secret_ref ?? callback.auth?.token_ref;
  if (ref !== undefined && !(await findCallbackBinding(agentRowId, callback.url, ref, client))) {
    throw new HubError(
      "invalid_field",
      `callback.auth.${refField} ${JSON.stringify(ref)} does not belong to an approved callback binding for origin ${origin} of this agent; ${approve} --secret-ref ${ref} ...`,
    );
  }
}

/** The plaintext of a binding's named secret, for the delivery worker; null when gone or revoked. */
export async function resolveCallbackSecret(bindingId: string, ref: string): Promise<string | null> {
  const row = await db().bindingSecret.findFirst({
    where: { bindingId, ref, binding: { revokedAt: null } },
    select: { sealed: true, binding: { select: { scheme: true, host: true, port: true, pathPrefix: true } } },
  });
  return row ? openBindingSecret({ id: bindingId, ...row.binding }, ref, row.sealed) : null;
}

/**
 * Opens a binding's sealed secret. Bound to (binding, ref) and to the destination the binding names
 * now, the one the push goes to: a value copied from another binding or ref, or a binding pointed
 * elsewhere, does not open.
 */
export function openBindingSecret(
  binding: { id: string; scheme: string; host: string; port: number; pathPrefix: string },
  ref: string,
  sealed: string,
): string {
  const { id, scheme, host, port, pathPrefix } = binding;
  return openSecret(
    sealed,
    sealContext("bindingSecret", { binding_id: id, ref, scheme, host, port, path_prefix: pathPrefix }),
  );
}

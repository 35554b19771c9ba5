import { HubError } from "@/lib/protocol/errors";
import { log } from "@/lib/log";
import { Refused } from "./guard";

/**
 * What an admin form shows after its action: a message, an error, or a credential shown this once
 * (a new API key or PAT — never stored in plaintext, never shown again).
 */
export type ActionState = { ok: true; message: string; secret?: string; secretLabel?: string } | { ok: false; error: string } | null;

/** Runs an action body, turning a refusal or a lib/ rule violation into a message for the form. */
export async function perform(fn: () => Promise<ActionState>): Promise<ActionState> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof Refused) return { ok: false, error: err.message };
    // lib/ rules speak in HubErrors whose messages name the field and the rule, never a secret.
    if (err instanceof HubError) return { ok: false, error: err.message };
    // Next's redirect()/notFound() are control flow, not failures.
    if (err && typeof err === "object" && "digest" in err) throw err;
    log.error("admin action failed", { error: err as Error });
    return { ok: false, error: "The change failed (see the Hub log)." };
  }
}

export function field(form: FormData, name: string): string {
  const v = form.get(name);
  return typeof v === "string" ? v : "";
}

"use server";
/**
 * The inbox's writes. Each one: same-origin check → the signed-in person (never anything the
 * browser claims about who they are) → the lib/ verb that the API uses too.
 */
import { assertSameOrigin } from "@/app/_auth/same-origin";
import { requireHuman } from "@/app/_auth/current-human";
import { answerAsHuman, bulkResolve, type ActionResult, type BulkReport, type HumanAction } from "@/lib/inbox/answer";

async function signedIn(returnTo: string): Promise<string> {
  await assertSameOrigin();
  return (await requireHuman(returnTo)).userId;
}

/** Resolve one item as the signed-in person (item page, and `a`/`d` on the list). */
export async function resolveItem(id: string, action: HumanAction): Promise<ActionResult> {
  const userId = await signedIn(`/inbox/${encodeURIComponent(id)}`);
  return answerAsHuman(userId, String(id), action);
}

/** Bulk decline / complete: `resolveMessage` once per item; skips are reported with the reason. */
export async function resolveMany(ids: string[], kind: "decline" | "complete"): Promise<BulkReport> {
  const userId = await signedIn("/inbox");
  if (kind !== "decline" && kind !== "complete") throw new Error("unknown bulk action");
  return bulkResolve(userId, Array.isArray(ids) ? ids.map(String) : [], kind);
}

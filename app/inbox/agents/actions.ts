"use server";
/**
 * The agent page's actions. The operator's hard stop (§16.4.1) — also offered on the agent traffic
 * view — in `seatAction`: same-origin check → the signed-in person → their seat in the
 * account the form names → the agent looked up within that account → `stopAgent` / `resumeAgent`
 * (lib/sessions/stop.ts) — or `stopAgentAndRevokeKeys`, the stop that also revokes the agent's keys — the verbs behind `POST /v1/agents/{agent_id}/stop|resume`, which refuse a
 * member or viewer (`not_authorized`) and audit the change as `human:<handle>`. Without a seat
 * there the answer is "no such agent", as for an unknown one, so the form is no oracle for other
 * accounts.
 */
import { revalidatePath } from "next/cache";
import { seatAction } from "@/lib/next/action";
import type { ActionState } from "@/lib/next/action-state";
import { field, fieldsAll } from "@/lib/next/form";
import { describeSenders, setSenderAllowlist } from "@/lib/principals/sender-allowlist";
import { agentForStop } from "@/lib/sessions/access";
import { resumeAgent, stopAgent, stopAgentAndRevokeKeys } from "@/lib/sessions/stop";

async function stopOrResume(form: FormData, which: "stop" | "stop_revoke" | "resume"): Promise<ActionState> {
  const account = field(form, "account");
  const agentId = field(form, "agent");
  const page = `/inbox/agents/${encodeURIComponent(account)}/${agentId.split("/").map(encodeURIComponent).join("/")}`;
  return seatAction({ account, refusal: "no such agent", signInReturnTo: page }, async ({ seat }) => {
    const agent = await agentForStop(seat, agentId);
    let message: string;
    if (which === "stop") {
      await stopAgent(seat, agent);
      message = `Stopped ${agent.agentId}: its sessions are closed and it cannot register a new one until resumed. Its API keys still work outside sessions.`;
    } else if (which === "stop_revoke") {
      const r = await stopAgentAndRevokeKeys(seat, agent);
      const n = r.keys_revoked.length;
      message = `Stopped ${agent.agentId} and revoked ${n} API key${n === 1 ? "" : "s"}: it can neither register a session nor use the API until a new key is issued and it is resumed.`;
    } else {
      await resumeAgent(seat, agent);
      message = `Resumed ${agent.agentId}: it may register sessions again.`;
    }
    revalidatePath("/inbox/agents/[account]/[...agent]", "page");
    revalidatePath("/inbox/traffic"); // the same control on the agent traffic view
    return { ok: true, message };
  });
}

export async function stopAgentAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  return stopOrResume(form, "stop");
}

/** Stop, and revoke every API key of the agent, in one audited transaction (stopAgentAndRevokeKeys). */
export async function stopAgentRevokeKeysAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  return stopOrResume(form, "stop_revoke");
}

export async function resumeAgentAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  return stopOrResume(form, "resume");
}

/**
 * Who may message an agent (§13.5), from its page: `seatAction` as above, then `setSenderAllowlist`
 * (lib/principals/sender-allowlist.ts) with the seat's role — a member or viewer is `not_authorized`
 * whatever the form says — scoped to the seat's account and audited as `human:<handle>`.
 */
export async function setAgentSendersAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  const account = field(form, "account");
  const agentId = field(form, "agent");
  const page = `/inbox/agents/${encodeURIComponent(account)}/${agentId.split("/").map(encodeURIComponent).join("/")}`;
  return seatAction({ account, refusal: "no such agent", signInReturnTo: page }, async ({ seat }) => {
    const mode = field(form, "senders");
    // Ticked agents of the account, plus ids typed in (agents not created yet), comma- or space-separated.
    const typed = field(form, "allow_more")
      .split(/[\s,]+/)
      .filter((id) => id !== "");
    const policy =
      mode === "any" ? { any: true } : mode === "only" ? { allow: [...fieldsAll(form, "allow"), ...typed] } : {};
    const r = await setSenderAllowlist(
      { actor: `human:${seat.handle}`, accountId: seat.accountId, role: seat.role },
      seat.accountId,
      agentId,
      policy,
    );
    revalidatePath("/inbox/agents/[account]/[...agent]", "page");
    const who = describeSenders(r.senders);
    const unknown = r.unknown.length > 0 ? ` Not agents of ${seat.slug} (yet): ${r.unknown.join(", ")}.` : "";
    return {
      ok: true,
      message: `${r.changed ? "Saved" : "Unchanged"}: ${agentId} may be messaged by ${who}.${unknown}`,
    };
  });
}

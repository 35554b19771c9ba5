"use server";
/**
 * The operator's hard stop from an agent's page (§16.4.1), in `seatAction`: same-origin check → the
 * signed-in person → their seat in the account the form names → the agent looked up within that
 * account → `stopAgent` / `resumeAgent` (lib/sessions/stop.ts), the verbs behind
 * `POST /v1/agents/{agent_id}/stop|resume`, which refuse a member or viewer (`not_authorized`) and
 * audit the change as `human:<handle>`. Without a seat there the answer is "no such agent", as for
 * an unknown one, so the form is no oracle for other accounts.
 */
import { revalidatePath } from "next/cache";
import { seatAction } from "@/lib/next/action";
import type { ActionState } from "@/lib/next/action-state";
import { field } from "@/lib/next/form";
import { agentForStop } from "@/lib/sessions/access";
import { resumeAgent, stopAgent } from "@/lib/sessions/stop";

async function stopOrResume(form: FormData, which: "stop" | "resume"): Promise<ActionState> {
  const account = field(form, "account");
  const agentId = field(form, "agent");
  const page = `/inbox/agents/${encodeURIComponent(account)}/${agentId.split("/").map(encodeURIComponent).join("/")}`;
  return seatAction({ account, refusal: "no such agent", signInReturnTo: page }, async ({ seat }) => {
    const agent = await agentForStop(seat, agentId);
    if (which === "stop") await stopAgent(seat, agent);
    else await resumeAgent(seat, agent);
    revalidatePath("/inbox/agents/[account]/[...agent]", "page");
    return {
      ok: true,
      message:
        which === "stop"
          ? `Stopped ${agent.agentId}: its sessions are closed and it cannot register a new one until resumed.`
          : `Resumed ${agent.agentId}: it may register sessions again.`,
    };
  });
}

export async function stopAgentAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  return stopOrResume(form, "stop");
}

export async function resumeAgentAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  return stopOrResume(form, "resume");
}

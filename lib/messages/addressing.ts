/**
 * The inter-agent leg (§4 `to`) is not offered by this Hub yet, and the capability document does not
 * advertise it. An addressed submit is refused with 422 — never ignored, which would misroute it to
 * the human inbox (§8.1) — and nothing is created. `agent.session` (§4.1) is accepted: submit.ts
 * checks it against the caller's own sessions (lib/sessions/lease.ts).
 */
import { HubError } from "../protocol/errors";
import type { Message } from "../protocol/message";

/**
 * §4 sender-side symmetry: an addressed or session-bearing submit from an `agent.id` containing `#`
 * is `422 invalid_field`. This runs before schema validation, whose own conditional would say 400.
 */
export function assertSenderIdAddressable(body: Record<string, unknown>): void {
  const agent = body.agent as { id?: unknown; session?: unknown } | undefined;
  const addressed = body.to !== undefined || agent?.session !== undefined;
  if (addressed && typeof agent?.id === "string" && agent.id.includes("#")) {
    throw new HubError(
      "invalid_field",
      "an agent.id containing '#' cannot send addressed or session-bearing messages (§4)",
    );
  }
}

export function assertInterAgentFieldsAbsent(message: Message): void {
  if (message.to !== undefined) {
    throw new HubError("invalid_field", "to: inter-agent leg not enabled for this account");
  }
}

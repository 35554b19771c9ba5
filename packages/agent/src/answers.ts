/**
 * Who answered an ask (§9.1 `response.actor`, Hub-attested and inside the signed §6 Response) and the
 * agent's `requireHuman` demand. A person is a `human:` actor; a standing rule (`system:rule/<id>`),
 * an expiry default (`system:default_on_expire`) and an agent resolver (`agent:…`) are not. Nothing
 * here reads an unsigned field (`defaulted`, a comment): only `resolution` and `actor`.
 *
 * `requireHuman` puts the extension field `x-ma2h-human-only: true` on the ask's `request` (a Hub
 * with standing rules then never answers it by rule; a v0.6 Hub ignores it) and checks the answer
 * on arrival: `answered` or `declined` by anything but a `human:` actor is NotAnsweredByHumanError.
 * `expired` is not — a `default_on_expire` is the agent's own fallback, chosen when it asked — and
 * neither is `cancelled`.
 */
import type { HubResponse } from "@ma2h/protocol/response";
import { NotAnsweredByHumanError } from "./errors";

/** The request extension field that asks a Hub to let only a person answer (no standing rule). */
export const HUMAN_ONLY_FIELD = "x-ma2h-human-only";

/**
 * The §6 Response of an ask or task as `wait()` returns it, plus `byHuman`: true exactly when
 * `response.actor` is a `human:` actor. `byHuman` is not part of the JSON (a non-enumerable
 * property): `JSON.stringify` and a spread give the Response as the Hub sent it.
 */
export type AskAnswer = HubResponse & { readonly byHuman: boolean };

/** True exactly when the Response's Hub-attested actor is a person (`human:…`). */
export function isHumanAnswer(response: HubResponse): boolean {
  return response.response?.actor?.startsWith("human:") === true;
}

/** The Response with `byHuman` attached (non-enumerable, so the wire JSON is unchanged). */
export function answerOf(response: HubResponse): AskAnswer {
  const answer = { ...response };
  Object.defineProperty(answer, "byHuman", { value: isHumanAnswer(response), enumerable: false });
  return answer as AskAnswer;
}

/** True when `requireHuman` refuses this Response: answered or declined by a non-person. */
export function breaksRequireHuman(response: HubResponse): boolean {
  return (response.resolution === "answered" || response.resolution === "declined") && !isHumanAnswer(response);
}

/** Throws NotAnsweredByHumanError when `requireHuman` refuses the Response (see breaksRequireHuman). */
export function assertAnsweredByHuman(response: HubResponse): void {
  if (!breaksRequireHuman(response)) return;
  const actor = response.response?.actor;
  throw new NotAnsweredByHumanError(
    `message ${response.in_reply_to} was ${response.resolution} by ${actor ?? "no attested actor"}, not by a person (requireHuman)`,
    { status: 200, code: "not_answered_by_human", body: response, response },
  );
}

/**
 * What every server action hands back: done (with what the caller shows — a message, a credential
 * shown this once, a status), or refused with a message. Types only, so client components import
 * it too.
 */
export type ActionResult<Done extends object = Notice, Refusal extends object = object> =
  | ({ ok: true } & Done)
  | ({ ok: false; error: string; code?: string } & Refusal);

/** A form's state: the last action's result, `null` before its first submit. */
export type ActionState<Done extends object = Notice, Refusal extends object = object> = ActionResult<
  Done,
  Refusal
> | null;

/** A change's confirmation; a new API key or PAT is shown this once (never stored in plaintext). */
export interface Notice {
  message: string;
  secret?: string;
  secretLabel?: string;
}

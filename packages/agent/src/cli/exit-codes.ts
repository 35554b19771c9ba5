/**
 * The `ma2h` exit codes — the one table, stable across releases: scripts and CI steps branch on
 * them. The README's table and `ma2h --help` are generated from / checked against this.
 */
export const EXIT = {
  /** The ask was answered (for `ask confirm`: approved); a command that is not an ask succeeded. */
  ok: 0,
  /** `ask confirm` was answered with anything but `approve` (an answer in the person's own words: 8). */
  denied: 1,
  /** The command line cannot be run as written (unknown flag, missing argument, bad value, missing setting). */
  usage: 2,
  /** Declined, cancelled or expired — also when an expiry default applied; a task dismissed or expired. */
  notAnswered: 3,
  /** The Hub refused the request (a §8.5 error) or could not be reached. */
  hub: 4,
  /** Verification refused: a bad or stale signature, a wrong key, a malformed push, state that fails to open. */
  refused: 5,
  /** `receive` refused a replayed push: a seen `jti`, or an (in_reply_to, resolution_id) already processed. */
  replayed: 6,
  /** Still open when the command gave up waiting. */
  stillOpen: 7,
  /**
   * `ask confirm | select --allow-edit` (or `wait` on one) was answered in the person's own words,
   * not with one of the options (§5.2 `edited`): stdout carries the text, stderr says so.
   */
  offMenu: 8,
  /**
   * `ask … --require-human` (or `wait` on such an ask) was answered or declined by an actor that is
   * not a person (a `system:rule/…` standing rule, an `agent:…`): stderr names the actor; nothing
   * is printed on stdout but the Response with --json. An expiry (default applied or not) stays 3.
   */
  notByHuman: 9,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** One line per code, for `ma2h --help` (the README carries the same table). */
export const EXIT_DESCRIPTIONS: ReadonlyArray<readonly [ExitCode, string]> = [
  [EXIT.ok, "answered (ask confirm: approved); any other command succeeded"],
  [EXIT.denied, "ask confirm answered with anything but approve (own words: 8)"],
  [EXIT.usage, "usage error (unknown flag, missing argument or setting, bad value)"],
  [EXIT.notAnswered, "declined, cancelled or expired (also when a default applied)"],
  [EXIT.hub, "Hub or network error (the §8.5 code is on stderr)"],
  [EXIT.refused, "verification refused (signature, window, shape, or state that fails to open)"],
  [EXIT.replayed, "a replayed push refused by receive (seen jti or already processed)"],
  [EXIT.stillOpen, "still open when the command gave up waiting"],
  [EXIT.offMenu, "answered in the person's own words (--allow-edit), not one of the options"],
  [EXIT.notByHuman, "--require-human: answered or declined by a non-person (a standing rule, an agent)"],
];

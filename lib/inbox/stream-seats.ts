/**
 * What a live inbox stream (app/inbox/events) may carry: the accounts its person has a seat in when
 * it opened, and the check that they still do. A stream re-checks when told the person's seats
 * changed (`seats`, events.ts), after a lost LISTEN connection (`resync`, a NOTIFY may be gone) and
 * at each keep-alive; when the session has ended or the seats differ it closes, and the browser's
 * EventSource reconnects to a stream of the current seats — so a removed seat stops routing within
 * a second while the person's other accounts keep streaming on the same session.
 */
import { seatsOf } from "../principals/seats";
import { humanForSessionToken } from "../principals/web-sessions";

export interface StreamSeats {
  /** The account ids the stream routes. */
  accounts: string[];
  /** Whether the session is still alive and its person's seats are still exactly `accounts`. */
  stillValid(): Promise<boolean>;
}

const keyOf = (accountIds: readonly string[]) => [...accountIds].sort().join(",");

export async function streamSeats(token: string | undefined, userId: string): Promise<StreamSeats> {
  const accounts = (await seatsOf(userId)).map((s) => s.accountId);
  const opened = keyOf(accounts);
  return {
    accounts,
    async stillValid() {
      const human = await humanForSessionToken(token);
      if (!human || human.userId !== userId) return false;
      return keyOf((await seatsOf(userId)).map((s) => s.accountId)) === opened;
    },
  };
}

import { HubError } from "@ma2h/protocol/errors";

/** §8.4/§8.8: a 409 for a terminal conflict carries the §8.5 envelope plus `{id, status, resolution}`. */
export function terminalConflict(row: { id: string; status: string }): HubError {
  return new HubError("already_terminal", `message is already ${row.status}`, {
    extra: { id: row.id, status: row.status, resolution: row.status },
  });
}

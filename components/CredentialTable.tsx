/**
 * API keys and personal access tokens look alike to the person managing them: an id (never the
 * secret, which was shown once), when it was made and last used, whether it is revoked, and a
 * revoke button while it is not.
 */
import type { ReactNode } from "react";
import { When } from "./When";

export interface CredentialRow {
  id: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}

export function CredentialTable({
  rows,
  label,
  testId,
  rowTestId,
  rowKey,
  revoke,
}: {
  rows: CredentialRow[];
  /** The first column's heading: "Key" or "Token". */
  label: string;
  testId: string;
  rowTestId: string;
  /** The data attribute naming a row's id (`data-key`, `data-token`), which the specs select on. */
  rowKey: "data-key" | "data-token";
  /** The revoke control of an active row. */
  revoke: (row: CredentialRow) => ReactNode;
}) {
  return (
    <table className="admin-table" data-testid={testId}>
      <thead>
        <tr>
          <th>{label}</th>
          <th>Created</th>
          <th>Last used</th>
          <th>State</th>
          <th />
        </tr>
      </thead>
      <tbody>
        {rows.map((r) => (
          <tr
            key={r.id}
            data-testid={rowTestId}
            {...{ [rowKey]: r.id }}
            data-state={r.revokedAt ? "revoked" : "active"}
          >
            <td>
              <code>{r.id}</code>
            </td>
            <td>
              <When at={r.createdAt} />
            </td>
            <td>
              <When at={r.lastUsedAt} />
            </td>
            <td>
              {r.revokedAt ? (
                <>
                  revoked <When at={r.revokedAt} />
                </>
              ) : (
                "active"
              )}
            </td>
            <td>{!r.revokedAt && revoke(r)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

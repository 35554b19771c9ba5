/** The statement behind lib/policies/store.ts's `readPolicy` outside a transaction (every ask's submit). */
import { statementRows } from "../db";
import { Prisma } from "../generated/prisma/client";
import { statement } from "../sql-statement";

export const accountPolicyRow = statement(
  "an account's approval policy row",
  (accountId: string) => Prisma.sql`
    SELECT revision, rules, updated_at AS "updatedAt", updated_by AS "updatedBy", standing_rules AS "standingRules"
      FROM account_policies WHERE account_id = ${accountId}`,
  [["acc_sample"]],
);

export interface AccountPolicyRow {
  revision: number;
  rules: unknown;
  updatedAt: Date;
  updatedBy: string;
  standingRules: unknown;
}

/** On the pool (lib/db.ts statementRows): one indexed read, without the client's per-query cost. */
export async function selectAccountPolicy(accountId: string): Promise<AccountPolicyRow | undefined> {
  return (await statementRows<AccountPolicyRow>(accountPolicyRow.sql(accountId)))[0];
}

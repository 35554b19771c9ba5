/**
 * An account's notification settings: read with the built-in defaults where the account has
 * no row. The JSON parts are parsed by their owners — `defaults` by preferences.ts, `reminders` by
 * reminders.ts.
 */
import { db } from "../db";

export interface AccountNotificationSettingsRow {
  /** A partial of the preferences shape (preferences.ts). */
  defaults: unknown;
  /** Answering from an email link without a Hub session (owners; on by default). */
  emailAnswerWithoutSignIn: boolean;
  /**
   * While the above is on: whether it also covers high/urgent asks and asks with an explicit
   * `allowed_resolvers` (owners; off by default — those need a session).
   */
  emailAnswerSensitiveWithoutSignIn: boolean;
  /** Reminder and escalation delays (reminders.ts). */
  reminders: unknown;
}

export async function accountNotificationSettings(accountId: string): Promise<AccountNotificationSettingsRow> {
  const row = await db().accountNotificationSettings.findUnique({ where: { accountId } });
  return {
    defaults: row?.defaults ?? {},
    emailAnswerWithoutSignIn: row?.emailAnswerWithoutSignIn ?? true,
    emailAnswerSensitiveWithoutSignIn: row?.emailAnswerSensitiveWithoutSignIn ?? false,
    reminders: row?.reminders ?? {},
  };
}

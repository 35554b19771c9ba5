/**
 * The account's reminder and escalation delays (#16), a section of the account's notification
 * settings page. PLACEHOLDER: the reminders work fills it in.
 */
export function ReminderDelays(_props: { accountId: string; slug: string; canEdit: boolean }) {
  return null;
}

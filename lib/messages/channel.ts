/** PostgreSQL NOTIFY channel carrying the id of a message that just turned terminal (on commit). */
export const TERMINAL_CHANNEL = "ma2h_message_terminal";

/** NOTIFY channel for the inbox (new messages and terminal transitions); payload `<account id>:<message id>`. */
export const INBOX_CHANNEL = "ma2h_inbox";

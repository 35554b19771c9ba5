/** PostgreSQL NOTIFY channel carrying the id of a message that just turned terminal (on commit). */
export const TERMINAL_CHANNEL = "ma2h_message_terminal";

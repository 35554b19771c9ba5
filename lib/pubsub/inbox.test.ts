/** The inbox payload has one format, whether built in TypeScript or inside a single SQL statement. */
import { describe, expect, it } from "vitest";
import { INBOX_CHANNEL } from "./channels";
import { inboxPayload, parseInboxPayload } from "./inbox";
import { inboxNotifySql } from "./inbox.sql";

describe("inbox payload", () => {
  it("round-trips `<account id>:<id>`, splitting at the first colon", () => {
    expect(inboxPayload("acct_1", "msg_2")).toBe("acct_1:msg_2");
    expect(parseInboxPayload("acct_1:msg_2")).toEqual({ accountId: "acct_1", id: "msg_2" });
    expect(parseInboxPayload("acct_1:dir_a:b")).toEqual({ accountId: "acct_1", id: "dir_a:b" });
  });

  it("refuses a payload without an account", () => {
    expect(parseInboxPayload("msg_2")).toBeNull();
    expect(parseInboxPayload(":msg_2")).toBeNull();
  });

  it("builds the same payload in SQL, with the channel as a parameter", () => {
    const sql = inboxNotifySql("account_id", "message_id");
    expect(sql.text).toBe("pg_notify($1, account_id || ':' || message_id)");
    expect(sql.values).toEqual([INBOX_CHANNEL]);
  });
});

/**
 * The one LISTEN connection per process (lib/pubsub/listener.ts) against a real PostgreSQL: payloads
 * reach the subscribers of their channel only, on commit; when the backend is killed every subscriber
 * hears `lost` at once, and the connection comes back and delivers again.
 */
import pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import { INBOX_CHANNEL, TERMINAL_CHANNEL } from "./channels";
import { useTestDatabase } from "../../test/support/test-database";
import { staysFalse } from "../../test/support/wait";
import { notificationListener } from "./listener";

const database = useTestDatabase();
let admin: pg.Client;

beforeAll(async () => {
  admin = new pg.Client({ connectionString: database.url });
  await admin.connect();
});

afterAll(async () => {
  await notificationListener().close();
  await admin?.end();
});

it("routes by channel, on commit; a killed connection is reported and comes back", async () => {
  const terminal: string[] = [];
  const inbox: string[] = [];
  let lost = 0;
  const listener = notificationListener();
  const stopT = listener.subscribe(TERMINAL_CHANNEL, { payload: (p) => terminal.push(p), lost: () => lost++ });
  const stopI = listener.subscribe(INBOX_CHANNEL, { payload: (p) => inbox.push(p), lost: () => lost++ });
  await listener.ready();

  await admin.query("BEGIN");
  await admin.query("SELECT pg_notify($1, 'msg_1')", [TERMINAL_CHANNEL]);
  await staysFalse(() => terminal.length > 0, 150, "the NOTIFY before its commit");
  expect(terminal).toEqual([]); // not before commit
  await admin.query("COMMIT");
  await admin.query("SELECT pg_notify($1, 'acct:msg_2')", [INBOX_CHANNEL]);
  await expect.poll(() => [terminal, inbox]).toEqual([["msg_1"], ["acct:msg_2"]]);

  await admin.query(
    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND query ILIKE 'LISTEN%'",
  );
  await expect.poll(() => lost).toBe(2);
  // Back by itself (the subscribers are still there): the next NOTIFY arrives.
  await expect
    .poll(
      async () => {
        await admin.query("SELECT pg_notify($1, 'msg_3')", [TERMINAL_CHANNEL]);
        return terminal.includes("msg_3");
      },
      { timeout: 10_000 },
    )
    .toBe(true);
  stopT();
  stopI();
});

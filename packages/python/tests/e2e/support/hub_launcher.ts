/**
 * The real Hub for the Python package's end-to-end tests (packages/python/tests/conftest.py runs
 * this with `node --import tsx`): a fresh database cloned from the migrated template, one account
 * with two agents and an owner with a personal access token, the Python push receiver's origin
 * approved as a binding (hmac secret) and allowed as a loopback callback, inter-agent messages on,
 * then a web + worker pair. Prints one JSON line — the Hub URL and the credentials — and keeps the
 * Hub running until its stdin closes (or SIGTERM), then stops it and drops the database.
 *
 * Arguments: the receiver origin (`http://127.0.0.1:<port>`) and its hmac secret.
 * Requires `npm run build` (the Hub runs from its built bundles, as test/support/hub.ts starts it).
 */
import { db } from "../../../../../lib/db";
import { createTestDatabase } from "../../../../../test/support/database";
import {
  approveOrigin,
  provisionAccount,
  releaseDatabase,
  useDatabase as pointLibAtDatabase,
} from "../../../../../test/support/provision";
import { startPair } from "../../../../../test/support/push-kit";

const [receiverOrigin = "", receiverSecret = ""] = process.argv.slice(2);
if (!receiverOrigin || !receiverSecret) {
  process.stderr.write("usage: hub_launcher.ts <receiver-origin> <hmac-secret>\n");
  process.exit(2);
}

const A = "pyagent/dev-team";
const B = "pyworker/dev-team";

async function main(receiverOrigin: string, receiverSecret: string): Promise<void> {
  const database = await createTestDatabase();
  await pointLibAtDatabase(database.url);
  const account = await provisionAccount("pyacme", [A, B], [{ handle: "alice", role: "owner" }]);
  await db().account.update({ where: { slug: "pyacme" }, data: { interAgentEnabled: true } });
  await approveOrigin(A, "pyacme", receiverOrigin, "cb", receiverSecret);
  const pair = await startPair(database.url, {
    MA2H_DEV_CALLBACK_ALLOWLIST: receiverOrigin,
    MA2H_PUSH_BASE_DELAY_MS: "500",
    MA2H_INBOUND_VISIBILITY_TIMEOUT_SECONDS: "2",
  });

  let stopping = false;
  async function stop(): Promise<void> {
    if (stopping) return;
    stopping = true;
    await Promise.all([pair.web.stop(), pair.worker.stop()]);
    await releaseDatabase();
    await database.drop();
    process.exit(0);
  }
  process.on("SIGTERM", () => void stop());
  process.on("SIGINT", () => void stop());
  process.stdin.on("end", () => void stop());
  process.stdin.resume();

  process.stdout.write(
    `${JSON.stringify({
      url: pair.web.url,
      account: account.slug,
      agents: { a: { id: A, key: account.keys[A] }, b: { id: B, key: account.keys[B] } },
      pat: account.tokens.alice,
      human: "alice",
    })}\n`,
  );
}

await main(receiverOrigin, receiverSecret);

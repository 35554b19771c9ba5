/**
 * The TypeScript side of test_cross_language.py, run with tsx from the repository root: reads one
 * JSON request on stdin, does everything the TypeScript SDK is asked to (sign pushes, verify the
 * Python side's, write and read submit journals, seal and open state, dedup keys), and prints one
 * JSON answer. Uses packages/agent and packages/protocol from source.
 */
import { readFileSync } from "node:fs";
import { signResponsePush } from "@ma2h/protocol/signing";
import { FileSubmitJournal } from "../../../agent/src/journal";
import { HubKeys } from "../../../agent/src/keys";
import { openState, sealState } from "../../../agent/src/state";
import { FileDedupStore, MemoryReplayStore, responseDedupKey } from "../../../agent/src/stores";
import { VerificationError, verifyPush } from "../../../agent/src/verify-push";

interface Request {
  now: number;
  callbackUrl: string;
  secret: string;
  body: Record<string, unknown>;
  edSeed: string; // base64url, the TS side signs with it
  jwks: unknown; // the Python side's published keys (and the TS side's seed's public key)
  pythonPushes: { name: string; header: string; body: string; scheme: "hmac" | "ed25519" }[];
  tsJournalDir: string;
  pythonJournalDir: string;
  pythonJournalKeys: string[];
  pythonSentIds: string[];
  stateKey: string;
  stateValue: unknown;
  pythonSealed: unknown;
  dedupDir: string;
  dedupPairs: [string, string][];
}

const req = JSON.parse(readFileSync(0, "utf8")) as Request;
const now = new Date(req.now * 1000);
const b64u = (s: string) => new Uint8Array(Buffer.from(s, "base64url"));

const fakeFetch = (async (url: string) => {
  if (url.endsWith("/.well-known/ma2h")) return new Response(JSON.stringify({ ma2h_version: "0.6" }), { status: 200 });
  if (url.endsWith("/.well-known/ma2h-keys")) return new Response(JSON.stringify(req.jwks), { status: 200 });
  return new Response("", { status: 404 });
}) as unknown as typeof fetch;

async function outcome(run: () => Promise<unknown>): Promise<string> {
  try {
    await run();
    return "accepted";
  } catch (e) {
    if (e instanceof VerificationError) return e.reason;
    throw e;
  }
}

async function main() {
  const out: Record<string, unknown> = {};
  // 1. pushes the TS side signs, for Python to verify
  out.hmacHeader = signResponsePush({
    response: req.body as never,
    callbackUrl: req.callbackUrl,
    key: { alg: "hmac-sha256", secret: req.secret },
    now,
  }).header;
  out.edHeader = signResponsePush({
    response: req.body as never,
    callbackUrl: req.callbackUrl,
    key: { alg: "ed25519", privateKey: b64u(req.edSeed) },
    now,
  }).header;

  // 2. pushes the Python side signed, verified here
  const verdicts: Record<string, string> = {};
  const store = new MemoryReplayStore();
  const hubKeys = new HubKeys("https://hub.example", { fetch: fakeFetch });
  for (const p of req.pythonPushes) {
    const common = { callbackUrl: req.callbackUrl, now: () => now, replayStore: store };
    verdicts[p.name] = await outcome(() =>
      verifyPush(
        { "ma2h-signature": p.header },
        p.body,
        p.scheme === "hmac" ? { ...common, hmacSecret: req.secret } : { ...common, hubKeys },
      ),
    );
  }
  out.verdicts = verdicts;

  // 3. a journal the TS side writes, for Python to read
  const tsJournal = new FileSubmitJournal(req.tsJournalDir);
  await tsJournal.save("idem-done", JSON.stringify({ type: "ask", title: "Deploy? ✓", state: { n: 1 } }));
  await tsJournal.complete("idem-done", { id: "msg_TSDONE", status: "pending" } as never);
  await tsJournal.save("idem-pending ünïcode", '{"type":"notify"}');

  // 4. the journal the Python side wrote, read here
  const pyJournal = new FileSubmitJournal(req.pythonJournalDir);
  out.pythonJournal = {
    loads: Object.fromEntries(await Promise.all(req.pythonJournalKeys.map(async (k) => [k, await pyJournal.load(k)]))),
    acks: Object.fromEntries(await Promise.all(req.pythonJournalKeys.map(async (k) => [k, await pyJournal.ack(k)]))),
    pending: await pyJournal.pending(),
    sent: Object.fromEntries(await Promise.all(req.pythonSentIds.map(async (id) => [id, await pyJournal.sent(id)]))),
  };

  // 5. sealed state both ways
  out.tsSealed = sealState(req.stateValue, req.stateKey);
  out.pythonOpened = openState(req.pythonSealed, req.stateKey);
  try {
    openState(req.pythonSealed, `${req.stateKey}-other`);
    out.wrongKey = "opened";
  } catch (e) {
    out.wrongKey = (e as { code?: string }).code;
  }

  // 6. dedup: the key strings, and reservations the Python side reads back
  out.dedupKeys = req.dedupPairs.map(([in_reply_to, resolution_id]) =>
    responseDedupKey({ in_reply_to, resolution_id }),
  );
  const dedup = new FileDedupStore(req.dedupDir);
  out.reserved = await Promise.all(
    req.dedupPairs.map(([in_reply_to, resolution_id]) =>
      dedup.reserve(responseDedupKey({ in_reply_to, resolution_id })),
    ),
  );
  process.stdout.write(JSON.stringify(out));
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});

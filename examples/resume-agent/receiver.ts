/**
 * The re-invoke endpoint of the §2.1 pattern: the Hub pushes the person's answer here (§8.3), signed
 * (§9.2). For each push, nodePushHandler verifies the signature over the recomputed payload hash
 * within ±120 s, refuses a replayed `jti`, and reserves the §6 key `(in_reply_to, resolution_id)` —
 * so a replay, or a Hub retry of an answer already handled, never resumes the agent twice. Only then
 * does onResponse open the sealed state and resume (run #2). Both stores are files, so this holds
 * across restarts of the receiver.
 *
 *   node --import tsx examples/resume-agent/receiver.ts
 *
 * Environment: RESUME_CALLBACK_URL (the URL exactly as given in the ask — it is signed),
 * MA2H_CALLBACK_SECRET (the HMAC secret registered on the Hub under the ask's secret_ref),
 * MA2H_STATE_KEY (the key ask.ts sealed with), PORT (default 8080), HOST (default 127.0.0.1),
 * RESUME_DATA_DIR (the stores and resumed.jsonl; default .resume-agent).
 */
import { appendFileSync, mkdirSync } from "node:fs";
import { createServer } from "node:http";
import { join, resolve } from "node:path";
import { FileDedupStore, FileReplayStore, type HubResponse, nodePushHandler, openState } from "@ma2h/agent";

interface ResumeState {
  pr: number;
  sha: string;
  step: string;
  askedAt: string;
}

function setting(name: string): string {
  const value = process.env[name];
  if (!value) {
    console.error(`receiver.ts: set ${name}`);
    process.exit(2);
  }
  return value;
}

const callbackUrl = setting("RESUME_CALLBACK_URL");
const hmacSecret = setting("MA2H_CALLBACK_SECRET");
const stateKey = setting("MA2H_STATE_KEY");
const dataDir = resolve(process.env.RESUME_DATA_DIR || ".resume-agent");
const port = Number(process.env.PORT || 8080);
const host = process.env.HOST || "127.0.0.1";
mkdirSync(dataDir, { recursive: true });
const journal = join(dataDir, "resumed.jsonl");

/**
 * Run #2: carries on from the opened state with the person's decision. Here it records the
 * decision; a real agent would merge and deploy `state.sha`, or close the PR. If this throws, the
 * reservation is released and the Hub's retry resumes it again.
 */
async function resume(state: ResumeState, response: HubResponse): Promise<void> {
  const approved = response.resolution === "answered" && response.response?.value === "approve";
  const line = {
    message: response.in_reply_to,
    pr: state.pr,
    sha: state.sha,
    decision: approved ? "deploy" : "stop",
    resolution: response.resolution,
    value: response.response?.value ?? null,
    by: response.response?.actor ?? null,
    resumedAt: new Date().toISOString(),
  };
  appendFileSync(journal, `${JSON.stringify(line)}\n`);
  console.log(`resumed PR #${state.pr}: ${line.decision} (${line.resolution}${line.by ? ` by ${line.by}` : ""})`);
}

const server = createServer(
  nodePushHandler({
    callbackUrl,
    hmacSecret,
    replayStore: new FileReplayStore(join(dataDir, "replay")),
    dedupStore: new FileDedupStore(join(dataDir, "dedup")),
    async onResponse(response) {
      // Throws StateIntegrityError when the blob was changed on the way: the push is then not acted on.
      const state = openState<ResumeState>(response.state, stateKey);
      await resume(state, response);
    },
    onError(error) {
      console.error(`receiver.ts: refused or failed: ${error instanceof Error ? error.message : String(error)}`);
    },
  }),
);

server.listen(port, host, () => console.log(`listening on http://${host}:${port} for ${callbackUrl}`));
for (const signal of ["SIGINT", "SIGTERM"] as const)
  process.once(signal, () => {
    server.close(() => process.exit(0));
    server.closeAllConnections();
  });

/**
 * Run #1 of the §2.1 pattern: an ephemeral agent that needs a person's approval seals what run #2
 * will need (§9.3 — the Hub stores it opaquely and returns it with the answer), asks with a push
 * callback signed with an HMAC secret the Hub knows by reference, prints the message id and exits.
 * Nothing keeps running: the person's answer re-invokes the agent through receiver.ts.
 *
 *   node --import tsx examples/resume-agent/ask.ts <pr> <sha>
 *
 * Environment: MA2H_URL, MA2H_API_KEY, MA2H_AGENT_ID (the Hub and the agent), MA2H_STATE_KEY (≥ 32
 * bytes, the agent's own — never sent to the Hub), RESUME_CALLBACK_URL (receiver.ts's public URL; its
 * origin must be approved for the agent on the Hub), RESUME_SECRET_REF (the name the callback's HMAC
 * secret is registered under on the Hub; default "agent-callback").
 */
import { Ma2hClient, sealState } from "@ma2h/agent";

function setting(name: string): string {
  const value = process.env[name];
  if (!value) {
    console.error(`ask.ts: set ${name}`);
    process.exit(2);
  }
  return value;
}

const [pr, sha] = process.argv.slice(2);
if (!pr || !/^\d+$/u.test(pr) || !sha) {
  console.error("usage: ask.ts <pr-number> <commit-sha>");
  process.exit(2);
}
const stateKey = setting("MA2H_STATE_KEY");
const callbackUrl = setting("RESUME_CALLBACK_URL");
const secretRef = process.env.RESUME_SECRET_REF || "agent-callback";

// Where this run stopped, and what run #2 needs to carry on. Sealed: the Hub (and the person) see
// only ciphertext, and run #2 can tell if anyone changed it on the way.
const state = sealState(
  { pr: Number(pr), sha, step: "awaiting-approval", askedAt: new Date().toISOString() },
  stateKey,
);

const ma2h = Ma2hClient.fromEnv(); // MA2H_URL, MA2H_API_KEY, MA2H_AGENT_ID
const ask = await ma2h.messages.ask.confirm({
  title: `Merge and deploy PR #${pr} (${sha.slice(0, 7)})?`,
  body: "The checks passed. Approve to merge and deploy; the agent resumes as soon as you answer.",
  priority: "high",
  tags: ["deploy"],
  state,
  callback: { url: callbackUrl, auth: { scheme: "hmac", secretRef } },
});
console.log(ask.id);

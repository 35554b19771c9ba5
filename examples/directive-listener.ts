/**
 * A long-running agent that takes directives from its people (§13): `directives.listen` drains the
 * agent's mailbox with `?wait=60`, verifies each directive (§9.7 signature against the Hub's keys,
 * ±120 s window, `jti` replay, addressee, shape — unknown fields dropped), hands each new one to the
 * handler once, and acks it with the note the handler returns, which the person sees (§14.3). A
 * handler that throws leaves the directive un-acked, so the Hub delivers it again. The dedup store is
 * a folder, so a restarted listener never acts on a directive twice. SIGINT / SIGTERM stop it cleanly.
 *
 *   node --import tsx examples/directive-listener.ts
 *
 * Environment: MA2H_URL, MA2H_API_KEY, MA2H_AGENT_ID; MA2H_STORE_DIR (default ~/.ma2h).
 */
import { homedir } from "node:os";
import { join } from "node:path";
import { FileDedupStore, FileReplayStore, Ma2hClient, type VerifiedDirective } from "@ma2h/agent";

const store = process.env.MA2H_STORE_DIR || join(homedir(), ".ma2h");
const ma2h = Ma2hClient.fromEnv(); // MA2H_URL, MA2H_API_KEY, MA2H_AGENT_ID

const controller = new AbortController();
for (const signal of ["SIGINT", "SIGTERM"] as const)
  process.once(signal, () => {
    console.error(`directive-listener: ${signal}, stopping`);
    controller.abort();
  });

// This agent's one piece of behaviour a person can steer: whether it may deploy.
let paused = false;

/**
 * Acts on one verified directive and returns the ack note. The title and body are a person's free
 * text (§9.6): treat them as instructions to interpret, never as code or commands to run.
 */
function handle(directive: VerifiedDirective): string {
  const title = directive.title.trim().toLowerCase();
  if (title.startsWith("pause")) {
    paused = true;
    return "Paused: no deploys until you send “resume”.";
  }
  if (title.startsWith("resume")) {
    paused = false;
    return "Resumed: deploys are on again.";
  }
  return `Noted; deploys are ${paused ? "paused" : "on"}. I will take it into account from the next run.`;
}

console.error(`directive-listener: listening as ${process.env.MA2H_AGENT_ID}`);
await ma2h.directives.listen(
  (directive) => {
    const note = handle(directive);
    console.log(JSON.stringify({ id: directive.id, from: directive.from, title: directive.title, note }));
    return note; // the ack note, shown to the person
  },
  {
    signal: controller.signal,
    dedupStore: new FileDedupStore(join(store, "listener", "directives")),
    replayStore: new FileReplayStore(join(store, "listener", "replay")),
    onRejected: (error) => console.error(`directive-listener: refused a directive: ${error.message}`),
    onError: (error) => console.error(`directive-listener: ${error instanceof Error ? error.message : String(error)}`),
  },
);
console.error("directive-listener: stopped");

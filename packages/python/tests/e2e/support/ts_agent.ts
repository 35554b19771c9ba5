/**
 * The TypeScript SDK as the other half of the Python client's cross-language test: with a
 * FileSubmitJournal in the given directory, either asks under an idempotency key (and exits before
 * any answer) or replays the journaled submit of that key. Prints `{"id", "replayed"}`.
 *
 * Usage: ts_agent.ts <ask|replay> <journal-dir> <idempotency-key>   (MA2H_URL, MA2H_API_KEY, MA2H_AGENT_ID)
 */
import { FileSubmitJournal, Ma2hClient } from "../../../../agent/src/index";

async function main(mode: string, dir: string, key: string): Promise<void> {
  const client = Ma2hClient.fromEnv({ journal: new FileSubmitJournal(dir) });
  const handle =
    mode === "ask"
      ? await client.messages.ask.confirm({ title: "Asked from TypeScript", idempotencyKey: key })
      : await client.messages.replay(key);
  process.stdout.write(`${JSON.stringify({ id: handle.id, replayed: mode !== "ask" })}\n`);
}

const [mode = "", dir = "", key = ""] = process.argv.slice(2);
await main(mode, dir, key);

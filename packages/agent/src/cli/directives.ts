/**
 * `ma2h directives [--follow]` — the §13.4 duties for a shell agent: drain the mailbox, verify each
 * directive (§9.7: signature, window, addressee, shape; unknown fields dropped), print it as one JSON
 * line, and ack it only once the line is written. A directive that fails verification is reported on
 * stderr and never acked. --follow keeps long-polling until SIGINT/SIGTERM.
 */
import { join } from "node:path";
import type { Directive } from "@ma2h/protocol/directive";
import { FileDedupStore, FileReplayStore } from "../stores";
import type { VerificationError } from "../verify-push";
import type { CommandSpec, Parsed } from "./args";
import { EXIT, type ExitCode } from "./exit-codes";
import { printError } from "./output";
import { CONNECTION_FLAGS, connect, STORE_FLAG, storeDir } from "./settings";

export const directivesSpec: CommandSpec = {
  name: "directives",
  summary: "Print the verified directives people sent this agent, one JSON line each, acking each after printing.",
  positionals: [],
  flags: {
    follow: { kind: "boolean", help: "keep waiting for more until interrupted (SIGINT/SIGTERM)" },
    note: { kind: "string", value: "TEXT", help: "the note sent with each ack (§14)" },
    ...CONNECTION_FLAGS,
    ...STORE_FLAG,
  },
};

/** Resolves once the line is handed to the OS, so an ack never precedes its output. */
function writeLine(value: unknown): Promise<void> {
  return new Promise((ok, fail) =>
    process.stdout.write(`${JSON.stringify(value)}\n`, (err) => (err ? fail(err) : ok())),
  );
}

export async function directives(args: Parsed): Promise<ExitCode> {
  const { client } = connect(args);
  const note = args.strings.note;
  const dir = storeDir(args);
  // Kept on disk so a later run never re-accepts a replayed signature.
  const replayStore = new FileReplayStore(join(dir, "replay"));
  const onRejected = (e: VerificationError, raw: unknown) => {
    const id = (raw as { directive?: { id?: unknown } } | null)?.directive?.id;
    printError("verification_failed", `directive ${String(id ?? "?")} refused (${e.reason}); not acked`);
  };
  if (!args.booleans.follow) {
    const batch = await client.directives.drain({ wait: 0, replayStore, onRejected });
    for (const d of batch) await writeLine(d);
    if (batch.length)
      await client.directives.ack(
        batch.map((d) => d.id),
        { note },
      );
    return EXIT.ok;
  }
  const controller = new AbortController();
  const stop = () => controller.abort();
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  try {
    await client.directives.listen(
      async (d: Directive) => {
        await writeLine(d);
        return note;
      },
      {
        signal: controller.signal,
        replayStore,
        // On disk too: a restarted follower never reprints a directive it already printed (it acks it).
        dedupStore: new FileDedupStore(join(dir, "directives")),
        onRejected,
        onError: (err) => printError("directive_error", (err as Error).message ?? String(err)),
      },
    );
  } catch (err) {
    if (!controller.signal.aborted) throw err;
  } finally {
    process.off("SIGINT", stop);
    process.off("SIGTERM", stop);
  }
  return EXIT.ok;
}

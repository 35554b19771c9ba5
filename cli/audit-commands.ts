/** `ma2h-hub audit verify` and `ma2h-hub account purge` (the tamper-evident audit trail, #19). */
import { readFile } from "node:fs/promises";
import type { VerifyReport } from "../lib/audit/verify";
import { usageError, type Command, type Output } from "./command";

function reportOutput(r: VerifyReport): Output {
  const broken = r.first_broken ? `; first break at ${r.first_broken.id} (${r.first_broken.reason})` : "";
  return {
    json: { verified: r.verified, unsealed: r.unsealed, first_broken: r.first_broken },
    text: `${r.verified} row(s) verified, ${r.unsealed} not sealed yet${broken || "; the chain holds"}`,
    // A break is the command's finding, not its failure to run: exit 1 with the report (#19).
    exitCode: r.first_broken ? 1 : 0,
  };
}

export const AUDIT_COMMANDS: Record<string, Command> = {
  "audit verify": {
    usage: "audit verify [--account <slug> | --file <export.jsonl>]",
    args: 0,
    async run(_args, f) {
      if (f.account !== undefined && f.file !== undefined) throw usageError("give --account or --file, not both");
      if (f.file !== undefined) {
        let text: string;
        try {
          text = await readFile(f.file, "utf8");
        } catch (err) {
          throw usageError(`cannot read ${f.file}: ${(err as NodeJS.ErrnoException).code ?? "error"}`);
        }
        const { verifyJsonLines } = await import("../lib/audit/verify");
        return reportOutput(verifyJsonLines(text));
      }
      const { verifyLive } = await import("../lib/audit/verify");
      return reportOutput(await verifyLive(f.account));
    },
  },
  "account purge": {
    usage: "account purge <slug> --confirm <slug>",
    args: 1,
    async run([slug], f) {
      const { purgeAccount } = await import("../lib/audit/purge");
      const r = await purgeAccount(slug!, f.confirm);
      return {
        json: {
          purged: { slug: r.slug, erased_audit_rows: r.erasedRows, last_seq: r.lastSeq, last_hash: r.lastHash },
        },
        text: `account ${r.slug} erased (${r.erasedRows} audit row(s)); tombstone: seq ${r.lastSeq}, hash ${r.lastHash}`,
      };
    },
  },
};

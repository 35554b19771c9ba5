/** `ma2h-hub audit verify` and `ma2h-hub account purge` (the tamper-evident audit trail). */
import { readFile } from "node:fs/promises";
import type { VerifyReport } from "../lib/audit/verify";
import { usageError, type Command, type Output } from "./command";

const isUsage = (err: unknown) => (err as { code?: string } | null)?.code === "validation_error";

async function readText(file: string): Promise<string> {
  try {
    return await readFile(file, "utf8");
  } catch (err) {
    throw usageError(`cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? "error"}`);
  }
}

function reportOutput(r: VerifyReport): Output {
  const broken = r.first_broken ? `; first break at ${r.first_broken.id} (${r.first_broken.reason})` : "";
  const unsigned = r.unsigned_before.map((u) => `; ${u.stream}: unsigned before seq ${u.seq}`).join("");
  return {
    json: {
      verified: r.verified,
      unsealed: r.unsealed,
      checkpoints: r.checkpoints,
      unsigned_before: r.unsigned_before,
      first_broken: r.first_broken,
    },
    text: `${r.verified} row(s) verified, ${r.checkpoints} signed checkpoint(s), ${r.unsealed} not sealed yet${unsigned}${broken || "; the chain holds"}`,
    // A break is the command's finding, not its failure to run: exit 1 with the report.
    exitCode: r.first_broken ? 1 : 0,
  };
}

export const AUDIT_COMMANDS: Record<string, Command> = {
  "audit verify": {
    usage:
      "audit verify [--account <slug> | --file <export.jsonl> [--keys <ma2h-audit-keys.json>] [--anchor <seq>:<hash>] [--allow-unsealed]]",
    args: 0,
    async run(_args, f) {
      if (f.account !== undefined && f.file !== undefined) throw usageError("give --account or --file, not both");
      if (f.file === undefined && (f.keys ?? f.anchor ?? f["allow-unsealed"]) !== undefined)
        throw usageError("--keys, --anchor and --allow-unsealed go with --file");
      if (f.file !== undefined) {
        const text = await readText(f.file);
        const { keysFromDocument } = await import("../lib/audit/chain");
        const { parseAnchor, verifyJsonLines } = await import("../lib/audit/verify");
        const anchor = f.anchor === undefined ? undefined : parseAnchor(f.anchor);
        if (anchor === null) throw usageError("--anchor: <seq>:<64 lowercase hex>, a sealed line's seq and hash");
        let keys: Map<string, Uint8Array>;
        if (f.keys !== undefined) {
          // The saved /.well-known/ma2h-audit-keys: no database needed.
          let doc: unknown;
          try {
            doc = JSON.parse(await readText(f.keys));
          } catch (err) {
            if (isUsage(err)) throw err;
            doc = null;
          }
          const parsed = keysFromDocument(doc);
          if (!parsed) throw usageError(`${f.keys}: not a key set (save /.well-known/ma2h-audit-keys)`);
          keys = parsed;
        } else {
          const { trustedAuditKeys } = await import("../lib/audit/checkpoints");
          keys = await trustedAuditKeys();
        }
        return reportOutput(verifyJsonLines(text, { keys, anchor, allowUnsealed: f["allow-unsealed"] === "true" }));
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

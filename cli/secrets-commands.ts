/** `ma2h-hub secrets rotate`: move every sealed value to the current AUTH_SECRET/MA2H_SECRETS_KEY. */
import { usageError, type Command } from "./command";

export const SECRETS_COMMANDS: Record<string, Command> = {
  "secrets rotate": {
    usage: "secrets rotate --from-env <VAR>   (VAR holds the previous secret; the Hub stopped)",
    args: 0,
    async run(_args, flags) {
      const from = flags["from-env"];
      if (!from) throw usageError("--from-env <VAR> is required: the name of the variable holding the previous secret");
      const { rotateSecretsFromEnv } = await import("../lib/sealed/rotate");
      const r = await rotateSecretsFromEnv(from);
      const parts = Object.entries(r.byPurpose)
        .filter(([, n]) => n > 0)
        .map(([p, n]) => `${p} ${n}`);
      return {
        json: { secrets: { rotated: r.rotated, already_current: r.alreadyCurrent, by_purpose: r.byPurpose } },
        text:
          `${r.rotated} sealed value(s) re-sealed under the current secret${parts.length ? ` (${parts.join(", ")})` : ""}` +
          (r.alreadyCurrent ? `; ${r.alreadyCurrent} already under it` : ""),
      };
    },
  },
};

/**
 * read_directives: the §13.4 duties for a model that cannot do them itself — drain (§8.7), verify
 * each entry (§9.7 signature, window, `jti`, addressee, shape; unknown fields dropped), and only then
 * hand it over, marked as a person's instructions whose content is untrusted (§9.6/§13.4); ack it
 * (§14.3) so the person sees it acknowledged. An entry that fails verification never reaches the
 * model and is not acked (the mailbox's rule, docs/decisions/agent-sdk.md): only its count is reported.
 *
 * Handing a directive to the model is the consumption, so it is acked before it is returned; when
 * the ack fails the call fails and nothing is shown — the Hub redelivers after its visibility
 * timeout. Ids already handed over in this process are acked again but not shown twice (§13.4
 * step 3, within this process's horizon).
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { Ma2hClient } from "../client";
import type { Extra } from "./ask-tools";
import { directivesResult } from "@ma2h/protocol/mcp-outcome";

const DEFAULT_MAX = 10;
const ACK_NOTE = "Handed to the agent's model (MA2H MCP server).";

export class DirectiveReader {
  readonly #client: Ma2hClient;
  readonly #handedOver = new Set<string>();

  constructor(client: Ma2hClient) {
    this.#client = client;
  }

  async read(a: { max?: number; wait_seconds?: number }, extra: Extra): Promise<CallToolResult> {
    let rejected = 0;
    const verified = await this.#client.directives.drain({
      max: a.max ?? DEFAULT_MAX,
      wait: a.wait_seconds ?? 0,
      signal: extra.signal,
      onRejected: () => {
        rejected += 1;
      },
    });
    const fresh = verified.filter((d) => !this.#handedOver.has(d.id));
    if (verified.length > 0)
      await this.#client.directives.ack(
        verified.map((d) => d.id),
        { note: ACK_NOTE },
      );
    for (const d of fresh) this.#handedOver.add(d.id);

    return directivesResult(fresh, rejected);
  }
}

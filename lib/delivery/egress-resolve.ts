/**
 * §9.4 step 2: resolve the host at delivery time and vet EVERY answer. If any answer
 * is disallowed the whole name is refused (a zone mixing public and private answers is treated as
 * hostile, and no fallback path can ever land on the private one). The first answer is then pinned:
 * the caller connects to that IP and never looks the name up again (DNS-rebinding defence).
 */
import { lookup as dnsLookup } from "node:dns/promises";
import { isIP } from "node:net";
import { classifyAddress, isLoopbackAddress } from "./ip-policy";
import { describeError, failure, type EgressFailure } from "./egress-result";
import type { EgressTarget } from "./egress-target";

export type Lookup = (hostname: string) => Promise<Array<{ address: string; family: 4 | 6 }>>;

/** getaddrinfo via node:dns, every address, in the resolver's order. */
export const systemLookup: Lookup = async (hostname) =>
  (await dnsLookup(hostname, { all: true, verbatim: true })).map((a) => ({
    address: a.address,
    family: a.family === 6 ? 6 : 4,
  }));

export interface Pinned {
  ok: true;
  address: string;
  family: 4 | 6;
}

class Aborted extends Error {}

/** A lookup cannot be cancelled, but we stop waiting for it when the deadline passes. */
function untilAborted<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(new Aborted());
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new Aborted());
    signal.addEventListener("abort", onAbort, { once: true });
    p.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

/**
 * `devLoopback` (the origin is on the dev allowlist) waives only the loopback refusal — metadata,
 * private and every other range stay refused even for an allowlisted origin.
 */
export async function resolvePinned(
  target: EgressTarget,
  lookup: Lookup,
  devLoopback: boolean,
  signal: AbortSignal,
): Promise<Pinned | EgressFailure> {
  let answers: Array<{ address: string }>;
  if (target.literal) {
    answers = [target.literal];
  } else {
    try {
      answers = await untilAborted(lookup(target.hostname), signal);
    } catch (e) {
      if (e instanceof Aborted) return failure("timeout", "deadline passed during DNS lookup");
      return failure("dns_error", describeError(e));
    }
    if (!Array.isArray(answers) || answers.length === 0)
      return failure("dns_error", `no addresses for ${target.hostname}`);
  }
  for (const { address } of answers) {
    const verdict = classifyAddress(String(address));
    if (!verdict.allowed && !(devLoopback && isLoopbackAddress(address))) {
      return failure("refused_address", `${address} refused: ${verdict.reason}`);
    }
  }
  const first = String(answers[0]!.address);
  return { ok: true, address: first, family: isIP(first) === 6 ? 6 : 4 };
}

/**
 * @ma2h/agent — the agent side of MA2H: submit, wait, cancel, resolve and ack (the client), and the
 * agent's MUSTs done once (§9.2 push verification, §9.7 directive verification, §9.3 state sealing,
 * §6 dedup, the §13.4 drain → verify → act → ack loop). The wire contract (schemas, JCS, signing
 * contexts, error codes) is the Hub's own lib/protocol, bundled in at build time.
 */
export * from "./client";
export type { DirectiveSenders } from "./directive-senders";
export * from "./directives";
export * from "./envelopes";
export * from "./errors";
export * from "./journal";
export * from "./keys";
export * from "./receivers";
export * from "./session-inbox";
export * from "./state";
export * from "./stores";
export * from "./transport";
export * from "./verify-directive";
export * from "./verify-entry";
export * from "./verify-push";

/**
 * @ma2h/agent — the agent side of MA2H: the client (messages, sessions, directives), the typed
 * errors, the verifiers of what reaches the agent (§9.2 pushes, §9.7 directives), the push
 * receivers, the state seal (§9.3) and the stores behind at-most-once acting (§6, §9.8). The wire
 * contract (schemas, JCS, signing contexts, error codes) is the Hub's own protocol package, bundled
 * in at build time.
 *
 * What is exported here is the package's public surface, and only that: api-report.md lists it,
 * and test/api-report.test.ts fails when it changes without the report (npm run api:report).
 */

// The client and its resources.
export { Ma2hClient } from "./client";
export type {
  Ack,
  AckInput,
  AskCalls,
  CancelResult,
  Capability,
  Destination,
  GetMessage,
  GetOptions,
  HubResponse,
  Ma2hClientOptions,
  MessageHandle,
  Messages,
  RequestControl,
  ResolveInput,
  ResolveResult,
  SessionInput,
  Sessions,
  SubmitAck,
  WaitOptions,
} from "./client";
export type { RetryOptions } from "./transport";
// Who answered (§9.1): `byHuman` on every waited answer, and the `requireHuman` mark.
export { HUMAN_ONLY_FIELD, isHumanAnswer } from "./answers";
export type { AskAnswer } from "./answers";
export { SDK_VERSION } from "./envelopes";
export type {
  CallbackInput,
  CommonInput,
  ConfirmInput,
  InputAskInput,
  NotifyInput,
  Part,
  Priority,
  SelectInput,
  SelectOption,
  TaskInput,
} from "./envelopes";
export type { AcceptFrom, RegisterSessionInput, SessionDrainOptions, SessionResource } from "./session-inbox";
export type { MessageEntry, ReceiptEntry, VerifiedEntry } from "./verify-entry";
export type {
  Directive,
  DirectiveHandler,
  DirectiveMailbox,
  DrainOptions,
  ListenOptions,
  VerifiedDirective,
} from "./directives";
export type { DirectiveSenders } from "./directive-senders";

// Errors: every one extends Ma2hError, with a typed `code`.
export {
  AgentIdMismatchError,
  AlreadyTerminalError,
  CapabilityError,
  DestinationGoneError,
  GoneError,
  HubUnavailableError,
  IdempotencyConflictError,
  InternalError,
  InvalidFieldError,
  JournalError,
  Ma2hError,
  MisrouteError,
  NetworkError,
  NotAcknowledgeableError,
  NotAnsweredByHumanError,
  NotAuthorizedError,
  NotFoundError,
  RateLimitedError,
  SessionClosedByOperatorError,
  UnauthenticatedError,
  UnknownDestinationError,
  ValidationError,
  VersionNotSupportedError,
  WaitTimeoutError,
} from "./errors";
export type { Ma2hErrorCode } from "./errors";
export { VerificationError } from "./verification";
export type { VerificationFailure } from "./verification";
export { HubKeysError } from "./keys";
export { SenderNotAcceptedError } from "./session-inbox";
export { StateIntegrityError } from "./state";

// Verifiers and receivers of what reaches the agent.
export { HubKeys } from "./keys";
export type { HubKeysOptions } from "./keys";
export { verifyPush } from "./verify-push";
export type { SentJournal, VerifyPushOptions } from "./verify-push";
export { verifyDirective } from "./verify-directive";
export { verifyEntry } from "./verify-entry";
export type { VerifyEntryOptions } from "./verify-entry";
export type { VerifyDirectiveOptions } from "./verify-directive";
export { fetchPushHandler, nodePushHandler } from "./receivers";
export type { PushReceiverOptions } from "./receivers";

// The state seal (§9.3).
export { openState, sealState } from "./state";

// Stores: the submit journal, the `jti` cache and the at-most-once memory.
export { FileSubmitJournal, MemorySubmitJournal } from "./journal";
export type { SubmitJournal } from "./journal";
export {
  FileDedupStore,
  FileReplayStore,
  MemoryDedupStore,
  MemoryReplayStore,
  responseDedupKey,
} from "./stores";
export type { DedupStore, ReplayStore } from "./stores";

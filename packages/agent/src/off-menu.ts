/** The asker's view of an answer (off-menu or not): the protocol package's one definition. */
export { type AskShape, askShape, isOffMenu } from "@ma2h/protocol/off-menu";

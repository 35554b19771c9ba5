export { jcs } from "../../../lib/protocol/jcs";
export { type Capability, capabilitySchema } from "../../../lib/protocol/capability";

/**
 * The Hub's one A2A Agent Card (docs/a2a.md): the "human" agent of this Hub, served at
 * `/.well-known/agent-card.json`. One card per Hub, never per account — a card per account would
 * enumerate tenants; the credential a client presents chooses the account.
 */
import { A2A_PROTOCOL_VERSION, type AgentCard } from "@a2a-js/sdk";
import { env } from "../env";
import { hubRelease } from "../release";

/** The JSON-RPC binding's path, under the Hub's public URL. */
export const A2A_PATH = "/a2a";

/** The security scheme's name in the card. */
export const A2A_SECURITY_SCHEME = "ma2hAgentKey";

export function a2aEndpoint(): string {
  return `${env().publicUrl}${A2A_PATH}`;
}

export function hubAgentCard(): AgentCard {
  const base = env().publicUrl;
  return {
    name: "MA2H Hub: a person",
    description:
      "Ask a person. Each message becomes an MA2H ask (confirm, select or input) or notify in the inbox of " +
      "the account your API key belongs to; the task completes when a person answers, under that " +
      "account's approval policy, with the signed MA2H Response as an artifact.",
    supportedInterfaces: [
      { url: `${base}${A2A_PATH}`, protocolBinding: "JSONRPC", tenant: "", protocolVersion: A2A_PROTOCOL_VERSION },
    ],
    provider: undefined,
    version: hubRelease().version,
    capabilities: { streaming: true, pushNotifications: true, extensions: [], extendedAgentCard: false },
    securitySchemes: {
      [A2A_SECURITY_SCHEME]: {
        scheme: {
          $case: "httpAuthSecurityScheme",
          value: {
            description: "An MA2H agent API key of the account (ma2h-hub key create), as a bearer token.",
            scheme: "bearer",
            bearerFormat: "",
          },
        },
      },
    },
    securityRequirements: [{ schemes: { [A2A_SECURITY_SCHEME]: { list: [] } } }],
    defaultInputModes: ["text/plain", "application/json"],
    defaultOutputModes: ["application/json"],
    skills: [
      {
        id: "ask-a-person",
        name: "Ask a person",
        description:
          "A decision for a person: approve or deny (the default), pick one of your options, or fill in a " +
          'form. Put a data part {"ma2h": {"mode": "select", "options": [...]}} in the message to choose; ' +
          '{"ma2h": {"type": "notify"}} only informs.',
        tags: ["human-in-the-loop", "approval"],
        examples: ["Deploy build 4812 to production?"],
        inputModes: ["text/plain", "application/json"],
        outputModes: ["application/json"],
        securityRequirements: [],
      },
    ],
    signatures: [],
  };
}

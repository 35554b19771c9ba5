/**
 * Kept-alive connections for pushes (§9.4 step 3 without a new TCP and TLS handshake per answer): one
 * http(s).Agent per callback origin. The SSRF rules are unchanged, because of where the pool sits:
 * - every request still resolves the name and vets EVERY answer first (egress-resolve.ts); a name
 *   that now points at a refused address is refused before any socket — pooled or new — is used;
 * - the request connects to the pinned IP, never to the name, so node's agent keys its sockets by
 *   that address (and port, and for TLS the SNI name and trust anchors): a socket opened to the old
 *   address is reused only while the name still pins that same address;
 * - redirects are still never followed and no proxy is consulted.
 * Idle sockets close after FREE_SOCKET_MS (sooner when the server's `Keep-Alive: timeout` hint says
 * so); the map keeps at most MAX_ORIGINS origins, destroying the least recently used origin's sockets.
 */
import http from "node:http";
import https from "node:https";
import { processWide } from "../process-wide";

/** Under the common 5 s server keep-alive timeout (node's own default), so the server rarely closes first. */
const FREE_SOCKET_MS = 4_000;
/** Connections to one address of one origin: a burst past it waits for a free one. */
const SOCKETS_PER_ADDRESS = 16;
const MAX_ORIGINS = 256;

export interface KeptAliveAgents {
  /** The agent for `origin` (`scheme://host:port`); TLS when `tls`. */
  agentFor(origin: string, tls: boolean): http.Agent;
  /** Closes every pooled socket (worker shutdown, tests). */
  destroy(): void;
}

export function createKeptAliveAgents(): KeptAliveAgents {
  const agents = new Map<string, http.Agent>();
  return {
    agentFor(origin, tls) {
      const key = `${tls ? "tls" : "tcp"} ${origin}`;
      let agent = agents.get(key);
      if (agent) {
        agents.delete(key); // re-inserted below: the map's order is least recently used first
      } else {
        const options = {
          keepAlive: true,
          maxSockets: SOCKETS_PER_ADDRESS,
          maxFreeSockets: SOCKETS_PER_ADDRESS,
          timeout: FREE_SOCKET_MS,
        };
        agent = tls ? new https.Agent(options) : new http.Agent(options);
        if (agents.size >= MAX_ORIGINS) {
          const [oldest, old] = agents.entries().next().value as [string, http.Agent];
          agents.delete(oldest);
          old.destroy();
        }
      }
      agents.set(key, agent);
      return agent;
    },
    destroy() {
      for (const agent of agents.values()) agent.destroy();
      agents.clear();
    },
  };
}

/** This process's push agents (the worker's). */
export function keptAliveAgents(): KeptAliveAgents {
  return processWide("ma2h.egress-agents", createKeptAliveAgents);
}

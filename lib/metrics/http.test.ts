import { describe, expect, it } from "vitest";
import { routeTemplate } from "./http";

describe("routeTemplate: labels never carry an id, a token or a raw unknown path", () => {
  it.each([
    ["/v1/messages", "/v1/messages"],
    ["/v1/messages/msg_01J0ABCDEF?wait=60", "/v1/messages/:id"],
    ["/v1/messages/msg_01J0ABCDEF/resolve", "/v1/messages/:id/resolve"],
    ["/v1/messages/msg_01J0ABCDEF/ack", "/v1/messages/:id/ack"],
    ["/v1/messages/msg_01J0ABCDEF/cancel?x=1", "/v1/messages/:id/cancel"],
    ["/v1/inbox?wait=30&max=10", "/v1/inbox"],
    ["/v1/inbox/ack", "/v1/inbox/ack"],
    ["/v1/directives/dir_01J0", "/v1/directives/:id"],
    ["/v1/agents/deploybot/dev-team/presence?account=acme", "/v1/agents/:agent_id/presence"],
    ["/v1/agents/deploybot%2Fdev-team/stop?account=acme", "/v1/agents/:agent_id/stop"],
    ["/v1/agents/deploybot/dev-team/resume", "/v1/agents/:agent_id/resume"],
    ["/v1/sessions", "/v1/sessions"],
    ["/v1/sessions/sess_01J0ABCDEF", "/v1/sessions/:id"],
    ["/v1/messages/msg_1/resolve/extra", "/v1/*"],
    ["/v1/nope", "/v1/*"],
    ["/.well-known/ma2h", "/.well-known/ma2h"],
    ["/.well-known/anything-else", "/.well-known/*"],
    ["/inbox/events", "/inbox/events"],
    ["/mcp", "/mcp"],
    ["/inbox/msg_01J0ABCDEF", "/inbox/*"],
    ["/e/tok_secret_value", "/e/:token"],
    ["/admin/acme/audit/export?format=jsonl", "/admin/:account/audit/export"],
    ["/_next/static/chunks/abc123.js", "/_next/*"],
    ["/metrics", "/metrics"],
    ["/", "/"],
    ["/wp-admin/setup.php", "other"],
    ["/msg_01J0ABCDEF", "other"],
  ])("%s → %s", (target, template) => {
    expect(routeTemplate(target)).toBe(template);
  });
});

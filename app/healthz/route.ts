import { hubRelease } from "@/lib/release";

export const dynamic = "force-dynamic";

/** Liveness: the process answers, and which release it is. No credentials, no dependencies. */
export function GET(): Response {
  const { version, commit } = hubRelease();
  return Response.json({ status: "ok", version, commit }, { headers: { "cache-control": "no-store" } });
}

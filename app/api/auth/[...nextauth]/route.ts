import NextAuth from "next-auth";
import type { NextRequest } from "next/server";
import { errorResponse } from "@/lib/http/handler";
import { authOptions } from "@/lib/next/auth-options";
import { HubError } from "@ma2h/protocol/errors";
import { sessionTokenFrom } from "@/lib/principals/web-sessions";

export const dynamic = "force-dynamic";

/**
 * next-auth's routes. The options know whether this is a provider's callback and which session the
 * browser held: a sign-in never binds to that session's person (lib/next/auth-options.ts).
 */
const handler = async (req: NextRequest, ctx: { params: Promise<{ nextauth: string[] }> }) => {
  // next-auth parses a JSON-typed body itself and throws (a 500) when it is not JSON: a 400 here
  // instead (found by the fuzzer). Its own forms post urlencoded bodies.
  if (req.method === "POST" && /^application\/json/i.test(req.headers.get("content-type") ?? "")) {
    try {
      JSON.parse(await req.clone().text());
    } catch {
      return errorResponse(new HubError("validation_error", "request body is not valid JSON"));
    }
  }
  const action = (await ctx.params).nextauth?.[0];
  const priorSessionToken = sessionTokenFrom((name) => req.cookies.get(name)?.value);
  return NextAuth(req as never, ctx as never, authOptions({ callback: action === "callback", priorSessionToken }));
};
export { handler as GET, handler as POST };

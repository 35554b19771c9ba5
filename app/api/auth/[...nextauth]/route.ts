import NextAuth from "next-auth";
import type { NextRequest } from "next/server";
import { authOptions } from "@/lib/next/auth-options";
import { sessionTokenFrom } from "@/lib/principals/web-sessions";

export const dynamic = "force-dynamic";

/**
 * next-auth's routes. The options know whether this is a provider's callback and which session the
 * browser held: a sign-in never binds to that session's person (lib/next/auth-options.ts, #18).
 */
const handler = async (req: NextRequest, ctx: { params: Promise<{ nextauth: string[] }> }) => {
  const action = (await ctx.params).nextauth?.[0];
  const priorSessionToken = sessionTokenFrom((name) => req.cookies.get(name)?.value);
  return NextAuth(req as never, ctx as never, authOptions({ callback: action === "callback", priorSessionToken }));
};
export { handler as GET, handler as POST };

import { cookies } from "next/headers";
import { redirect } from "next/navigation";
import { humanForSessionToken, sessionTokenFrom, type SessionHuman } from "../principals/web-sessions";

/** The signed-in person for a server component or action, or null. */
export async function currentHuman(): Promise<SessionHuman | null> {
  const jar = await cookies();
  return humanForSessionToken(sessionTokenFrom((n) => jar.get(n)?.value));
}

/** The signed-in person, or a redirect to the sign-in page. */
export async function requireHuman(returnTo: string): Promise<SessionHuman> {
  const human = await currentHuman();
  if (!human) redirect(`/signin?callbackUrl=${encodeURIComponent(returnTo)}`);
  return human;
}

import { notFound, redirect } from "next/navigation";
import { requireHuman } from "@/lib/next/current-human";
import { adminAccountsOf } from "@/lib/principals/seats";

export const dynamic = "force-dynamic";

/** `/admin`: the first account the person administers; nobody else learns the page exists. */
export default async function AdminHome() {
  const human = await requireHuman("/admin");
  const [first] = await adminAccountsOf(human.userId);
  if (!first) notFound();
  redirect(`/admin/${encodeURIComponent(first)}/agents`);
}

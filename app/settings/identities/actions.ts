"use server";
/**
 * A person's own sign-in identities: remove one while another remains. The person is the session's;
 * someone else's identity id is 404 and untouched, the last one is refused (lib/principals/identities.ts).
 */
import { cookies } from "next/headers";
import { revalidatePath } from "next/cache";
import { personAction } from "@/lib/next/action";
import type { ActionState } from "@/lib/next/action-state";
import { field } from "@/lib/next/form";
import { unlinkIdentity } from "@/lib/principals/identities";
import { sessionTokenFrom } from "@/lib/principals/web-sessions";

export async function unlinkIdentityAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  return personAction({ signInReturnTo: "/settings/identities" }, async ({ userId }) => {
    const jar = await cookies();
    // This browser stays signed in; the person's other sessions end (they may have come from it).
    const r = await unlinkIdentity(
      userId,
      field(form, "identity"),
      sessionTokenFrom((n) => jar.get(n)?.value),
    );
    revalidatePath("/settings/identities");
    return { ok: true, message: `Identity ${r.id} removed.` };
  });
}

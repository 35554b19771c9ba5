/**
 * `GET /admin/{account}/audit/export?actor=&kind=&from=&to=` — the account's audit trail as JSON
 * Lines (`application/x-ndjson`), streamed in batches. Owner/admin only: anyone
 * else, signed out included, gets the same 404 as an unknown account.
 */
import { currentHuman } from "@/lib/next/current-human";
import { auditJsonLines, parseAuditFilters } from "@/lib/audit/log";
import { adminSeat } from "@/lib/principals/seats";

export const dynamic = "force-dynamic";

export async function GET(req: Request, { params }: { params: Promise<{ account: string }> }): Promise<Response> {
  const { account } = await params;
  const human = await currentHuman();
  const seat = human ? await adminSeat(human.userId, account) : null;
  if (!seat) return new Response("Not found\n", { status: 404, headers: { "content-type": "text/plain" } });
  const q = Object.fromEntries(new URL(req.url).searchParams);
  const lines = auditJsonLines(seat.accountId, parseAuditFilters(q));
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await lines.next();
      if (next.done) controller.close();
      else controller.enqueue(encoder.encode(next.value));
    },
    async cancel() {
      await lines.return(undefined);
    },
  });
  const stamp = new Date().toISOString().replace(/[:.]/g, "-");
  return new Response(body, {
    headers: {
      "content-type": "application/x-ndjson; charset=utf-8",
      "content-disposition": `attachment; filename="audit-${seat.slug}-${stamp}.jsonl"`,
      "cache-control": "no-store",
      "x-content-type-options": "nosniff",
    },
  });
}

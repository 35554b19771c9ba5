"use client";
/**
 * The approvals of a quorum ask (docs/policies.md "Quorum") on the inbox row and the item page, in
 * the line every channel shows (`approvalsLine`): "1 of 2 approvals — alice: approve, 10:02". Each
 * vote's time is the reader's local time once mounted, UTC in the server render (so hydration
 * matches, as `LocalTime` does).
 */
import { useEffect, useState } from "react";
import { approvalsLine } from "@/lib/approvals/tally";
import type { ApprovalsView } from "@/lib/inbox/view";

export function ApprovalsLine({ approvals, testId = "approvals" }: { approvals: ApprovalsView; testId?: string }) {
  const [mounted, setMounted] = useState(false);
  useEffect(() => setMounted(true), []);
  const time = (at: Date) =>
    mounted
      ? at.toLocaleTimeString(undefined, { hour: "2-digit", minute: "2-digit", hourCycle: "h23" })
      : `${at.toISOString().slice(11, 16)} UTC`;
  const line = approvalsLine(
    { ...approvals, votes: approvals.votes.map((v) => ({ ...v, comment: null, at: new Date(v.at) })) },
    time,
  );
  return (
    <span className="approvals" data-testid={testId}>
      {line}
    </span>
  );
}

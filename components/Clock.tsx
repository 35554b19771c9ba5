"use client";
import { useEffect, useState } from "react";
import { span, utc } from "./time";

/** Re-renders every `everyMs`; null until mounted, so the server render never depends on "now". */
function useNow(everyMs: number): number | null {
  const [now, setNow] = useState<number | null>(null);
  useEffect(() => {
    setNow(Date.now());
    const t = setInterval(() => setNow(Date.now()), everyMs);
    return () => clearInterval(t);
  }, [everyMs]);
  return now;
}

/** A timestamp in the reader's local time (UTC before hydration), with its ISO form as a tooltip. */
export function LocalTime({ iso }: { iso: string }) {
  const now = useNow(60_000);
  const text =
    now === null ? utc(iso) : new Date(iso).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
  return (
    <time dateTime={iso} title={iso}>
      {text}
    </time>
  );
}

/** "5m ago". */
export function Age({ iso }: { iso: string }) {
  const now = useNow(30_000);
  return (
    <time dateTime={iso} title={iso}>
      {now === null ? utc(iso) : `${span(now - Date.parse(iso))} ago`}
    </time>
  );
}

/** A live countdown to `expiresAt`: "in 4m 09s", then "expired 12s ago". */
export function Countdown({ expiresAt, testId }: { expiresAt: string; testId?: string }) {
  const now = useNow(1000);
  const left = now === null ? null : Date.parse(expiresAt) - now;
  const text =
    left === null ? `expires ${utc(expiresAt)}` : left > 0 ? `expires in ${span(left)}` : `expired ${span(left)} ago`;
  const urgent = left !== null && left < 3_600_000;
  return (
    <time
      dateTime={expiresAt}
      title={expiresAt}
      data-testid={testId}
      className={urgent ? "countdown countdown-soon" : "countdown"}
      suppressHydrationWarning
    >
      {text}
    </time>
  );
}

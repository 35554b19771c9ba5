import { LocalTime } from "@/components/Clock";

/** A time or a word for its absence ("never"). */
export function When({ at, none = "never" }: { at: Date | null; none?: string }) {
  return at ? <LocalTime iso={at.toISOString()} /> : <span className="muted">{none}</span>;
}

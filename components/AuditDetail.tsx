/** An audit row's detail as `key=value` pairs: ids and names only (lib/audit/write.ts). */
export function AuditDetail({ detail }: { detail: unknown }) {
  if (detail === null || typeof detail !== "object") return null;
  return (
    <span className="detail">
      {Object.entries(detail as Record<string, unknown>).map(([k, v]) => (
        <span key={k}>
          {k}=<code>{typeof v === "string" ? v : JSON.stringify(v)}</code>{" "}
        </span>
      ))}
    </span>
  );
}

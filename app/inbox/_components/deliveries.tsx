import { LocalTime } from "@/components/Clock";
import type { ItemDeliveryView } from "@/lib/inbox/deliveries";
import { redriveAction } from "../actions";
import { ActionForm } from "@/components/ActionForm";
// The admin tables, forms and notices (the inbox pages do not load admin.css otherwise).
import "@/app/admin/admin.css";

/**
 * An item's push deliveries (§8.3): where to (cut on the server, lib/inbox/deliveries.ts), each
 * attempt's time, status code, latency and error class, and for an owner or admin of the item's
 * account a redrive button (a fresh retry cycle; the action re-checks the seat on the server).
 */
export function Deliveries({
  deliveries,
  account,
  messageId,
  canRedrive,
}: {
  deliveries: ItemDeliveryView[];
  account: string;
  messageId: string;
  canRedrive: boolean;
}) {
  if (deliveries.length === 0) return null;
  return (
    <section className="panel deliveries" data-testid="deliveries">
      <h2>Push deliveries</h2>
      {deliveries.map((d) => (
        <div key={d.id} data-testid="delivery" data-delivery={d.id} data-status={d.status}>
          <p>
            <code>{d.id}</code> to <code data-testid="delivery-target">{d.target}</code> —{" "}
            <strong data-testid="delivery-status">{d.status}</strong>
            {d.delivered_at && (
              <>
                {" "}
                at <LocalTime iso={d.delivered_at} />
              </>
            )}
            {d.next_attempt_at && (
              <>
                {" "}
                · next attempt <LocalTime iso={d.next_attempt_at} />
              </>
            )}
          </p>
          {d.attempts.length > 0 && (
            <table className="admin-table" data-testid="delivery-attempts">
              <thead>
                <tr>
                  <th>#</th>
                  <th>Time</th>
                  <th>Status code</th>
                  <th>Latency</th>
                  <th>Error class</th>
                  <th>Outcome</th>
                </tr>
              </thead>
              <tbody>
                {d.attempts.map((a) => (
                  <tr key={a.attempt} data-testid="delivery-attempt">
                    <td>{a.attempt}</td>
                    <td>
                      <LocalTime iso={a.at} />
                    </td>
                    <td data-testid="attempt-status">{a.status_code ?? "—"}</td>
                    <td>{a.latency_ms} ms</td>
                    <td>{a.error_class ?? "—"}</td>
                    <td>{a.outcome}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          {canRedrive && d.status !== "delivered" && (
            <ActionForm
              action={redriveAction}
              hidden={{ account, delivery: d.id, message: messageId }}
              submit="Redrive"
              testId={`redrive-${d.id}`}
              className="inline-form"
            />
          )}
        </div>
      ))}
    </section>
  );
}

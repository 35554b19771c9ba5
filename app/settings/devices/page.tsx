import Link from "next/link";
import { ActionForm } from "@/components/ActionForm";
import { When } from "@/components/When";
import { requireHuman } from "@/lib/next/current-human";
import { listDevices } from "@/lib/notifications/web-push/subscriptions";
import { removeDeviceAction } from "./actions";

export const dynamic = "force-dynamic";

/** The person's browsers subscribed to push notifications: label, added, last push; remove one. */
export default async function DevicesPage() {
  const human = await requireHuman("/settings/devices");
  const devices = await listDevices(human.userId);
  return (
    <main>
      <section className="panel">
        <h1>Devices</h1>
        <p className="hint">
          The browsers that show you a notification when an ask or task arrives. Turn one on with “Notify me on this
          device” in the{" "}
          <Link prefetch={false} href="/inbox">
            inbox
          </Link>
          ; your notification preferences decide which items are pushed. Removing a device here stops its notifications.
        </p>
        {devices.length === 0 ? (
          <p className="empty" data-testid="devices-empty">
            No device gets push notifications.
          </p>
        ) : (
          <table className="admin-table" data-testid="devices-table">
            <thead>
              <tr>
                <th>Device</th>
                <th>Added</th>
                <th>Last push</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {devices.map((d) => (
                <tr key={d.id} data-testid="device-row" data-device={d.id}>
                  <td>{d.label}</td>
                  <td>
                    <When at={d.createdAt} />
                  </td>
                  <td>{d.lastUsedAt ? <When at={d.lastUsedAt} /> : "never"}</td>
                  <td>
                    <ActionForm
                      action={removeDeviceAction}
                      hidden={{ device: d.id }}
                      submit="Remove"
                      danger
                      confirm={`Stop push notifications on ${d.label}?`}
                      testId={`remove-device-${d.id}`}
                      className="inline-form"
                    />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
    </main>
  );
}

/**
 * An item's push deliveries (§8.3) as the item page shows them. The callback URL is cut on the
 * server, before anything reaches a page: its query string never (the attempt log never
 * records one either), its path only to the account's owners and admins — a callback path can carry
 * a capability of the agent's receiver, and the people who merely read or answer the item have no
 * use for it. Everyone else sees the origin only.
 */
import { type DeliveryView, listDeliveries } from "../delivery/admin";

export type ItemDeliveryView = Omit<DeliveryView, "callback_url"> & {
  /** The callback as this person may see it: `origin` + `path` for owners/admins, else `origin`. */
  target: string;
};

/** The shown part of a callback URL: origin, plus the path when `withPath`; never the query. */
export function callbackTarget(url: string, withPath: boolean): string {
  try {
    const u = new URL(url);
    return withPath ? `${u.origin}${u.pathname}` : u.origin;
  } catch {
    return "(invalid URL)";
  }
}

export async function deliveriesForItem(messageId: string, administers: boolean): Promise<ItemDeliveryView[]> {
  return (await listDeliveries(messageId)).map(({ callback_url, ...d }) => ({
    ...d,
    target: callbackTarget(callback_url, administers),
  }));
}

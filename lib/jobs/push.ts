/**
 * MERGE SHIM — delete together with its last caller. app/admin/actions.ts (being rewritten on
 * another branch) still imports this after its redrive; `redriveDelivery` (lib/delivery/admin.ts)
 * now enqueues the redriven attempt itself, so this does nothing.
 */
export async function enqueueRedriven(_deliveryId: string): Promise<void> {}

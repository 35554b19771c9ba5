/**
 * The browser push channel's sender (#17). Placeholder while Web Push is built: reaches nobody.
 */
import type { ChannelSender } from "../sender";

export const pushSender: ChannelSender = {
  async reachable() {
    return new Set<string>();
  },
  async send() {
    return { ok: false, transient: false, errorClass: "push_off", responseCode: null };
  },
};

/**
 * The Slack channel's sender (#17). Placeholder while the Slack connection is built: reaches nobody.
 */
import type { ChannelSender } from "../sender";

export const slackSender: ChannelSender = {
  async reachable() {
    return new Set<string>();
  },
  async send() {
    return { ok: false, transient: false, errorClass: "slack_off", responseCode: null };
  },
};

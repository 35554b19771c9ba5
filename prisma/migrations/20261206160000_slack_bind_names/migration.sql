-- What the signed click said about its Slack user and workspace, shown on the bind page next to the
-- opaque ids (docs/notifications.md "Slack: who clicked"). Null for links minted before this.
ALTER TABLE "slack_bind_tokens" ADD COLUMN "slack_user_name" TEXT;
ALTER TABLE "slack_bind_tokens" ADD COLUMN "team_domain" TEXT;

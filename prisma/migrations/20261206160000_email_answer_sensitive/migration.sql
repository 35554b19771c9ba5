-- Answering a high or urgent ask, or one with an explicit allowed_resolvers, from an email link
-- needs a Hub session unless an owner relaxes it (docs/notifications.md "Answering from the mail").
ALTER TABLE "account_notification_settings"
  ADD COLUMN "email_answer_sensitive_without_sign_in" BOOLEAN NOT NULL DEFAULT false;

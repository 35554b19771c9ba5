-- AlterTable
ALTER TABLE "callback_bindings" ADD COLUMN     "standard_webhooks_secret_sealed" TEXT;

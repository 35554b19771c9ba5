-- AlterTable
ALTER TABLE "slack_posts" ADD COLUMN     "shown_approvals" TEXT;

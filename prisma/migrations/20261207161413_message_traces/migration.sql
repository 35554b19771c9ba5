-- CreateTable
CREATE TABLE "message_traces" (
    "message_id" TEXT NOT NULL,
    "traceparent" TEXT NOT NULL,

    CONSTRAINT "message_traces_pkey" PRIMARY KEY ("message_id")
);

-- AddForeignKey
ALTER TABLE "message_traces" ADD CONSTRAINT "message_traces_message_id_fkey" FOREIGN KEY ("message_id") REFERENCES "messages"("id") ON DELETE CASCADE ON UPDATE CASCADE;

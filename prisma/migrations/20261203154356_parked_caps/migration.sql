-- CreateTable
CREATE TABLE "parked_counts" (
    "key" TEXT NOT NULL,
    "process_id" TEXT NOT NULL,
    "count" INTEGER NOT NULL,

    CONSTRAINT "parked_counts_pkey" PRIMARY KEY ("key","process_id")
);

-- CreateTable
CREATE TABLE "process_leases" (
    "process_id" TEXT NOT NULL,
    "alive_until" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "process_leases_pkey" PRIMARY KEY ("process_id")
);

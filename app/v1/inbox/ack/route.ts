import { v1RouteModule } from "@/lib/http/routes";

export const dynamic = "force-dynamic";

/** The route table's verbs here (lib/http/routes/index.ts); every other verb is the §8.5 `404` envelope. */
export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = v1RouteModule("inbox/ack");

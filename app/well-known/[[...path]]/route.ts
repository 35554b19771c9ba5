import { noSuchEndpoint } from "@/lib/http/handler";

export const dynamic = "force-dynamic";

/** Any other /.well-known document (next.config.ts rewrites them here): the §8.5 `404` envelope. */
export {
  noSuchEndpoint as GET,
  noSuchEndpoint as POST,
  noSuchEndpoint as PUT,
  noSuchEndpoint as PATCH,
  noSuchEndpoint as DELETE,
};

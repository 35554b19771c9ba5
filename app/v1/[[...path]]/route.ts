import { noSuchEndpoint } from "@/lib/http/handler";

export const dynamic = "force-dynamic";

/** `/v1` itself and any other path under it: the §8.5 envelope rather than an HTML 404 page. */
export {
  noSuchEndpoint as GET,
  noSuchEndpoint as POST,
  noSuchEndpoint as PUT,
  noSuchEndpoint as PATCH,
  noSuchEndpoint as DELETE,
};

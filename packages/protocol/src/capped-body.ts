/**
 * Reads a Fetch body up to a byte cap — for the Hub's /v1 routes and the SDK's push receiver
 * alike. A declared Content-Length over the cap refuses without reading; otherwise the stream is
 * read until it ends or crosses the cap (then cancelled). No interpretation of the bytes.
 */
export async function readCappedBody(request: Request, maxBytes: number): Promise<Uint8Array | null> {
  const declared = Number(request.headers.get("content-length") ?? "NaN");
  if (Number.isFinite(declared) && declared > maxBytes) return null;
  if (!request.body) return new Uint8Array(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => {});
      return null;
    }
    chunks.push(value);
  }
  return new Uint8Array(Buffer.concat(chunks));
}

// Reading a request body with a bound: a leaf every layer may import (the API's
// body parser and the dashboard's upload route read bodies the same way).
import { OFFLOAD_MIN_BYTES } from "./json-worker";

/** The body, or undefined when it is larger than maxBytes (reading stops there). */
export async function readBytes(request: Request, maxBytes: number): Promise<Uint8Array | undefined> {
  const declared = request.headers.get("content-length");
  if (declared !== null && /^\d+$/.test(declared)) {
    // The HTTP parser holds the body to its declared length.
    if (Number(declared) > maxBytes) {
      await request.body?.cancel().catch(() => {});
      return undefined;
    }
    if (Number(declared) < OFFLOAD_MIN_BYTES || !request.body) return new Uint8Array(await request.arrayBuffer());
    // A large body is copied into place chunk by chunk as it arrives: no 10 MB concatenation in one step.
    const out = new Uint8Array(Number(declared));
    const reader = request.body.getReader();
    let offset = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (offset + value.byteLength > out.byteLength) {
        await reader.cancel().catch(() => {});
        return undefined; // more than declared: the HTTP parser never lets this happen
      }
      out.set(value, offset);
      offset += value.byteLength;
    }
    return offset === out.byteLength ? out : out.subarray(0, offset);
  }
  if (!request.body) return new Uint8Array(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => {});
      return undefined;
    }
    chunks.push(value);
  }
  const out = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}

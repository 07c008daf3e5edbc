/**
 * Reads a JSON request body with a byte cap (CONTRACT.md: over 15 MiB → 422;
 * malformed JSON or invalid UTF-8 → 422). Never throws for client input.
 */
export type BodyResult = { ok: true; value: unknown } | { ok: false; reason: "too-large" | "malformed" };

const decoder = new TextDecoder("utf-8", { fatal: true });

/** Requests whose body was left unread (too large): their connection must not be reused. */
const unread = new WeakSet<Request>();
export function isBodyLeftUnread(request: Request): boolean {
  return unread.has(request);
}
export function markBodyLeftUnread(request: Request): void {
  unread.add(request);
}

export async function readJsonBody(request: Request, maxBytes: number): Promise<BodyResult> {
  const bytes = await readBytes(request, maxBytes);
  if (!bytes) {
    unread.add(request);
    return { ok: false, reason: "too-large" };
  }
  let text: string;
  try {
    text = decoder.decode(bytes);
  } catch {
    return { ok: false, reason: "malformed" };
  }
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false, reason: "malformed" };
  }
}

/** The body, or undefined when it is larger than maxBytes (reading stops there). */
export async function readBytes(request: Request, maxBytes: number): Promise<Uint8Array | undefined> {
  const declared = request.headers.get("content-length");
  if (declared !== null && /^\d+$/.test(declared)) {
    // The HTTP parser holds the body to its declared length.
    if (Number(declared) > maxBytes) {
      await request.body?.cancel().catch(() => {});
      return undefined;
    }
    return new Uint8Array(await request.arrayBuffer());
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

import { Headers } from "@zone-eu/mailsplit";

/**
 * The top-level header block of a raw message, edited with mailsplit's
 * header parser (the one mailparser uses): the body bytes after the blank
 * line are never touched. Used at acceptance (Message-ID, Bcc) and for each
 * delivered copy (List-Unsubscribe).
 */

/** Index of the blank line ending the header block and its length (CRLF or bare LF); -1 when the message has no body. */
function headerEnd(raw: Buffer): { at: number; length: number } {
  const crlf = raw.indexOf("\r\n\r\n");
  const lf = raw.indexOf("\n\n");
  if (crlf >= 0 && (lf < 0 || crlf <= lf)) return { at: crlf, length: 4 };
  if (lf >= 0) return { at: lf, length: 2 };
  return { at: -1, length: 0 };
}

export function editHeaderBlock(raw: Buffer, edit: (headers: Headers) => void): Buffer {
  const end = headerEnd(raw);
  const headerBytes = end.at < 0 ? raw : raw.subarray(0, end.at + end.length);
  const body = end.at < 0 ? Buffer.alloc(0) : raw.subarray(end.at + end.length);
  const headers = new Headers(headerBytes);
  edit(headers);
  // build() ends the block with the blank line.
  return Buffer.concat([headers.build("\r\n"), body]);
}

/**
 * Every bare LF as CRLF (SMTP's line ending): what reaches the wire is CRLF
 * anyway, and a DKIM body hash must be computed on those bytes. One linear
 * pass; the buffer itself when it has no bare LF.
 */
export function toCrlf(raw: Buffer): Buffer {
  let bare = 0;
  for (let i = raw.indexOf(10); i >= 0; i = raw.indexOf(10, i + 1)) if (i === 0 || raw[i - 1] !== 13) bare++;
  if (bare === 0) return raw;
  const out = Buffer.allocUnsafe(raw.length + bare);
  let o = 0;
  let from = 0;
  for (let i = raw.indexOf(10); i >= 0; i = raw.indexOf(10, i + 1)) {
    if (i > 0 && raw[i - 1] === 13) continue;
    o += raw.copy(out, o, from, i);
    out[o++] = 13;
    out[o++] = 10;
    from = i + 1;
  }
  o += raw.copy(out, o, from);
  return out;
}

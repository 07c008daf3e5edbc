import { Transform, type TransformCallback } from "node:stream";

/** Bytes passed on between two turns of the event loop. */
export const PACED_CHUNK_BYTES = 64 * 1024;

/**
 * A pass-through that cuts large chunks into PACED_CHUNK_BYTES pieces with a
 * turn of the event loop before each: whatever transforms a chunk downstream
 * in one synchronous step (nodemailer's SMTP dot-stuffing takes ~25–50 ms for
 * a 14 MB message given as one Buffer) then handles 64 KB at a time
 * (the stall budget, ADR 0310; docs/delivery.md).
 */
export function pacedStream(): Transform {
  return new Transform({
    transform(chunk: Buffer, _encoding, callback: TransformCallback) {
      if (chunk.length <= PACED_CHUNK_BYTES) return callback(null, chunk);
      let pos = 0;
      const next = () => {
        this.push(chunk.subarray(pos, pos + PACED_CHUNK_BYTES));
        pos += PACED_CHUNK_BYTES;
        if (pos < chunk.length) setImmediate(next);
        else callback();
      };
      next();
    },
  });
}

/**
 * A JSON number kept as the exact text it was written with, where
 * JSON.parse would lose digits (docs/contract.md §2: `ContentId` as an integer of
 * any size, e.g. the Python SDK's signed 64-bit `hash(path)`).
 * lib/http/body.ts produces it for the keys its caller names.
 */
export class JsonNumberText {
  constructor(readonly text: string) {}

  /** The text when it is a JSON integer (no fraction, no exponent), else undefined. */
  integerText(): string | undefined {
    return /^-?(?:0|[1-9][0-9]*)$/.test(this.text) ? this.text : undefined;
  }
}

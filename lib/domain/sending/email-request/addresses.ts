/**
 * Address parsing and the email address rules of docs/contract.md §5.17: one `@`, a
 * non-empty local part of at most 64 octets, a domain with at least one dot
 * and valid labels, at most 254 octets in all; UTF-8 local parts and domains
 * are accepted. Display names are optional; a present name must be a string
 * without control characters.
 *
 * Address strings are untrusted text: they are bounded first (a string, a
 * name or an email over MAX_ADDRESS_LENGTH characters is refused) and then
 * read by nodemailer's `addressparser`, a linear tokenizer (docs/adr/0103).
 */

import addressparser from "nodemailer/lib/addressparser";
import { MAX_LINE_LENGTH, isUsableName, isValidEmail } from "../../../contract/text";

/** RFC 5322's line limit: no address string, display name or email may be longer. */
export const MAX_ADDRESS_LENGTH = MAX_LINE_LENGTH;

/** The part after `@`, lowercased. */
export function emailDomain(email: string): string {
  return email.slice(email.lastIndexOf("@") + 1).toLowerCase();
}

export type ParsedAddress =
  /** Neither an address object nor a string. */
  | { kind: "not-address" }
  | {
      kind: "address";
      name: string;
      email: string;
      /** A present name that is not a string or holds control characters. */
      nameUnusable: boolean;
      emailState: "missing" | "invalid" | "ok";
    };

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * `"Ann <a@b.test>"`, `"\"Ann, B\" <a@b.test>"` or `"a@b.test"`. A string
 * that is not exactly one address (a list, a group, no address at all, or
 * longer than MAX_ADDRESS_LENGTH) comes back as an email that fails
 * isValidEmail, so that the field reports its "malformed" code.
 */
export function parseAddressString(text: string): { name: string; email: string } {
  if (text.length > MAX_ADDRESS_LENGTH) return { name: "", email: text };
  const trimmed = text.trim();
  let parsed: ReturnType<typeof addressparser>;
  try {
    parsed = addressparser(trimmed);
  } catch {
    return { name: "", email: trimmed };
  }
  const one = parsed.length === 1 ? parsed[0]! : undefined;
  if (!one || "group" in one) return { name: "", email: trimmed };
  const email = one.address.trim();
  // "Ann <>" has an empty address: that is a missing email, as before; text without any address is a malformed one.
  if (email === "") return trimmed.includes("<") ? { name: one.name.trim(), email: "" } : { name: "", email: trimmed };
  return { name: one.name.trim(), email };
}

/**
 * One address as a client sent it: an object with `email`/`Email` and an
 * optional `name`/`Name` (absent, null or "" = no name), or a plain string.
 */
export function parseAddress(value: unknown): ParsedAddress {
  let name: unknown;
  let email: unknown;
  // Past the bound nothing more is read: not even a trim of ten megabytes.
  if (typeof value === "string" && value.length > MAX_ADDRESS_LENGTH) return { kind: "address", name: "", email: "", nameUnusable: false, emailState: "invalid" };
  if (typeof value === "string") {
    ({ name, email } = parseAddressString(value));
  } else if (isPlainObject(value)) {
    email = Object.hasOwn(value, "email") ? value.email : value.Email;
    name = Object.hasOwn(value, "name") ? value.name : value.Name;
  } else {
    return { kind: "not-address" };
  }
  const nameUnusable = !(name === undefined || name === null || (typeof name === "string" && isUsableName(name)));
  const tooLong = typeof email === "string" && email.length > MAX_ADDRESS_LENGTH;
  const emailText = typeof email === "string" && !tooLong ? email.trim() : "";
  const emailState = tooLong ? "invalid" : emailText === "" ? "missing" : isValidEmail(emailText) ? "ok" : "invalid";
  return { kind: "address", name: typeof name === "string" && !nameUnusable ? name.trim() : "", email: emailText, nameUnusable, emailState };
}

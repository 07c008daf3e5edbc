import ipaddr from "ipaddr.js";
import type { Database, Queryable } from "../../storage/database";
import { deleteSignInFailures, deleteSignInFailuresBefore, insertSignInFailure, lockSignInKey, recentSignInFailures } from "../../storage/sign-in-rows";
import { withTransaction } from "../../storage/transaction";

/**
 * Throttling of staff password sign-ins (docs/adr/0504).
 * Failures are rows of `sign_in_failures`, so every app process sees them.
 * An attempt is refused, before the password is checked, when in the last
 * 15 minutes
 *   - its email had SIGN_IN_LIMITS.perEmail (10) failures, from anywhere, or
 *   - its client address had SIGN_IN_LIMITS.perAddress (50) failures, for any
 *     emails (password spraying from one place).
 * The per-address limit is higher than the per-email one because many people
 * share an address (an office NAT, a proxy, every e2e spec on 127.0.0.1):
 * one person's mistakes should not lock out their colleagues.
 * An attempt that is let through is reserved as a failure first (so that
 * parallel requests cannot all pass the check) and removed when the password
 * is right. A success removes that email's failures from that address only:
 * failures of other emails from the address, and of this email from other
 * addresses, keep counting.
 */

export const SIGN_IN_WINDOW_SECONDS = 15 * 60;
export const SIGN_IN_LIMITS = { perEmail: 10, perAddress: 50 } as const;
const LOCK_CLASS = 727_300; // advisory locks (class, hashtext(key)) of this module

export type SignInAttempt = { allowed: true; attemptId: number } | { allowed: false; retryAfterSeconds: number };

/** The email as counted: trimmed, lowercased, bounded (pure). */
export function throttleEmailKey(email: string): string {
  return email.trim().toLowerCase().slice(0, 320);
}

/**
 * The address as counted (pure): IPv4 as is, IPv6 by its /64 (one host
 * usually holds a whole /64, so single addresses would be free to rotate),
 * "unknown" when there is none.
 */
export function throttleAddressKey(ip: string): string {
  const t = ip.trim();
  if (!ipaddr.isValid(t)) return "unknown";
  const parsed = ipaddr.parse(t);
  if (parsed.kind() === "ipv4") return parsed.toString();
  const v6 = parsed as ipaddr.IPv6;
  if (v6.isIPv4MappedAddress()) return v6.toIPv4Address().toString();
  const parts = v6.parts.slice(0, 4);
  return `${new ipaddr.IPv6([...parts, 0, 0, 0, 0]).toString()}/64`;
}

/** What the sign-in form says while refused (pure): whole minutes, rounded up. */
export function throttleMessage(retryAfterSeconds: number): string {
  const minutes = Math.max(1, Math.ceil(retryAfterSeconds / 60));
  return `Too many failed sign-ins. Try again in ${minutes} minute${minutes === 1 ? "" : "s"}.`;
}

/**
 * Checks the limits and, when the attempt may go on, reserves it as a
 * failure. Serialised per email and per address (advisory locks, always in
 * that order) so that concurrent attempts, from any process, count exactly.
 */
export async function beginSignInAttempt(database: Database, emailRaw: string, addressRaw: string): Promise<SignInAttempt> {
  const email = throttleEmailKey(emailRaw);
  const address = throttleAddressKey(addressRaw);
  return withTransaction(database, async (tx) => {
    await lockSignInKey(tx, LOCK_CLASS, `email:${email}`);
    await lockSignInKey(tx, LOCK_CLASS, `address:${address}`);
    const byEmail = await recentSignInFailures(tx, "email", email, SIGN_IN_LIMITS.perEmail, SIGN_IN_WINDOW_SECONDS);
    const byAddress = await recentSignInFailures(tx, "address", address, SIGN_IN_LIMITS.perAddress, SIGN_IN_WINDOW_SECONDS);
    const waits = [
      byEmail.n >= SIGN_IN_LIMITS.perEmail ? Math.max(1, byEmail.wait) : 0,
      byAddress.n >= SIGN_IN_LIMITS.perAddress ? Math.max(1, byAddress.wait) : 0,
    ];
    const wait = Math.max(...waits);
    if (wait > 0) return { allowed: false, retryAfterSeconds: wait };
    return { allowed: true, attemptId: await insertSignInFailure(tx, email, address) };
  });
}

/** The password was right: this email's failures from this address no longer count (the reserved one included). */
export async function signInSucceeded(q: Queryable, emailRaw: string, addressRaw: string): Promise<void> {
  await deleteSignInFailures(q, throttleEmailKey(emailRaw), throttleAddressKey(addressRaw));
}

/** Maintenance: failures older than the window count for nothing. */
export async function purgeSignInFailures(q: Queryable, now = new Date()): Promise<number> {
  return deleteSignInFailuresBefore(q, new Date(now.getTime() - SIGN_IN_WINDOW_SECONDS * 1000));
}

import { createHmac, randomBytes } from "node:crypto";
import { setImmediate as turn } from "node:timers/promises";

/**
 * Notification signatures (docs/contract.md §10.3). Pure functions.
 *
 * The account's key is `whsec_<base64 of 32 random bytes>` (the Standard
 * Webhooks form). The two schemes use it as follows (docs/adr/0400):
 * - Mailgun scheme, in the body: HMAC-SHA256 keyed with the key string
 *   exactly as shown (`whsec_...`, UTF-8), as Mailgun receivers key their
 *   HMAC with the signing key they copy from the dashboard;
 * - Standard Webhooks headers: HMAC-SHA256 keyed with the decoded bytes
 *   after `whsec_`, as the Standard Webhooks specification and its
 *   libraries do.
 */

export const TOKEN_HEX_LENGTH = 50;
export const SIGNING_KEY_PREFIX = "whsec_";

/** 50 random lowercase hex characters; new for every attempt. */
export function newSignatureToken(): string {
  return randomBytes(TOKEN_HEX_LENGTH / 2).toString("hex");
}

/** The secret bytes of a `whsec_` key (a key without the prefix is taken as base64 too). */
export function decodeSigningKey(key: string): Buffer {
  const b64 = key.startsWith(SIGNING_KEY_PREFIX) ? key.slice(SIGNING_KEY_PREFIX.length) : key;
  return Buffer.from(b64, "base64");
}

/** Mailgun scheme: lowercase hex HMAC-SHA256 of `${timestamp}${token}`, keyed with the key string as shown. */
export function mailgunSignature(signingKey: string, timestamp: number, token: string): string {
  return createHmac("sha256", signingKey).update(`${timestamp}${token}`).digest("hex");
}

/** Standard Webhooks: `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`, keyed with the decoded key. */
export function standardWebhookSignature(signingKey: string, webhookId: string, timestamp: number, body: string): string {
  const mac = createHmac("sha256", decodeSigningKey(signingKey)).update(`${webhookId}.${timestamp}.${body}`).digest("base64");
  return `v1,${mac}`;
}

/**
 * The same signature over a body of several megabytes (a received message
 * with its attachments): hashed in 1 MB steps with a turn of the event loop
 * between them, so that no single step holds it (docs/adr/0803).
 */
export async function standardWebhookSignatureInSteps(signingKey: string, webhookId: string, timestamp: number, body: Buffer, step = 1024 * 1024): Promise<string> {
  const mac = createHmac("sha256", decodeSigningKey(signingKey)).update(`${webhookId}.${timestamp}.`);
  for (let i = 0; i < body.length; i += step) {
    if (i > 0) await turn();
    mac.update(body.subarray(i, i + step));
  }
  return `v1,${mac.digest("base64")}`;
}

/** The Standard Webhooks `webhook-id` of a notification: stable across its retries. */
export function webhookMessageId(notificationId: number): string {
  return `msg_mailroom_${notificationId}`;
}

export interface SignedRequest {
  body: string;
  headers: Record<string, string>;
}

/**
 * The body `{Signature, EventData}` and headers of one attempt. `now` and
 * `token` are injectable for tests; by default each call is a new attempt
 * with a new token.
 */
export function signNotification(input: {
  signingKey: string;
  notificationId: number;
  eventData: unknown;
  /** Overrides the webhook-id derived from notificationId (test notifications). */
  webhookId?: string;
  now?: Date;
  token?: string;
}): SignedRequest {
  const timestamp = Math.floor((input.now ?? new Date()).getTime() / 1000);
  const token = input.token ?? newSignatureToken();
  const body = JSON.stringify({
    Signature: { Timestamp: timestamp, Token: token, Signature: mailgunSignature(input.signingKey, timestamp, token) },
    EventData: input.eventData,
  });
  const id = input.webhookId ?? webhookMessageId(input.notificationId);
  return {
    body,
    headers: {
      "content-type": "application/json",
      "user-agent": "Mailroom-Webhooks/1.0",
      "webhook-id": id,
      "webhook-timestamp": String(timestamp),
      "webhook-signature": standardWebhookSignature(input.signingKey, id, timestamp, body),
    },
  };
}

import { WebhookUrlRefusedError, type WebhookUrlCheck } from "../domain/webhooks/webhooks";
import { resolveDestination, SsrfRefusedError, type Resolver } from "./ssrf-guard";

/**
 * The URL check that createWebhook receives: throws WebhookUrlRefusedError
 * when the URL's host is, or resolves to, an internal address. A name that
 * does not resolve (yet) is accepted: it reaches nothing, and every attempt
 * checks again before connecting.
 */
export function webhookUrlCheck(options: { allowPrivate: boolean; resolver?: Resolver }): WebhookUrlCheck {
  return async (url) => {
    if (options.allowPrivate) return;
    try {
      await resolveDestination(new URL(url), { allowPrivate: false, resolver: options.resolver });
    } catch (err) {
      if (err instanceof SsrfRefusedError && err.kind === "unresolvable") return;
      if (err instanceof SsrfRefusedError || err instanceof TypeError) throw new WebhookUrlRefusedError(err.message);
      throw err;
    }
  };
}

"use server";

import { z } from "zod";
import { ApiRequestError } from "@/lib/dashboard/public-api";
import { createInboundRouteRequestSchema } from "@/lib/contract/inbound";
import { refuse, staffAction } from "@/lib/dashboard/action";
import { apiFor } from "@/lib/dashboard/api-for";

/**
 * Inbound routes and received messages (docs/contract.md §13), through the
 * public API as the account. Adding or deleting a route names the URL that
 * receives the account's mail, as a webhook does: it needs the webhooks area
 * (admin). Posting a received message again is for whoever reads them.
 */

const routeInput = z.object({ Match: z.string().max(10_000), WebhookURL: z.string().max(10_000) }, { error: "Enter an address and a URL" });

export const createInboundRouteAction = staffAction(
  "webhooks",
  routeInput,
  async (input, access) => {
    const parsed = createInboundRouteRequestSchema.safeParse({ Match: input.Match.trim(), WebhookURL: input.WebhookURL.trim() });
    if (!parsed.success) {
      const fieldErrors: Record<string, string> = {};
      for (const issue of parsed.error.issues) {
        const field = String(issue.path[0] ?? "_");
        fieldErrors[field] ??= field === "Match" ? "Enter an address or *@domain" : "Enter an absolute http:// or https:// URL of at most 2048 characters";
      }
      refuse("Check the highlighted fields", fieldErrors);
    }
    try {
      const { RouteID } = await (await apiFor(access, "webhooks")).createInboundRoute(parsed.data);
      return { id: RouteID };
    } catch (err) {
      if (err instanceof ApiRequestError && (err.status === 422 || err.status === 403)) {
        const item = err.errors[0];
        const field = item?.Field === "WebhookURL" ? "WebhookURL" : "Match";
        const message =
          item?.Code === 32
            ? "The domain is not a verified domain of this account (Settings → Domains)"
            : field === "WebhookURL"
              ? `The API refused the URL${item?.Message ? `: ${item.Message}` : ""}`
              : (item?.Message ?? "The API refused the address");
        refuse(message, { [field]: message });
      }
      throw err;
    }
  },
  { revalidate: "/inbound" },
);

const routeId = z.coerce.number({ error: "Not a route id" }).int().positive().max(Number.MAX_SAFE_INTEGER);

export const deleteInboundRouteAction = staffAction(
  "webhooks",
  routeId,
  async (id, access) => {
    try {
      await (await apiFor(access, "webhooks")).deleteInboundRoute(id);
      return null;
    } catch (err) {
      if (err instanceof ApiRequestError && err.status === 404) refuse("That route does not exist");
      throw err;
    }
  },
  { revalidate: "/inbound" },
);

const messageId = z.uuid({ error: "Not a message id" });

export const retryInboundAction = staffAction(
  "inbound",
  messageId,
  async (id, access) => {
    try {
      await (await apiFor(access, "inbound")).retryInboundMessage(id);
      return null;
    } catch (err) {
      if (err instanceof ApiRequestError && err.status === 404) refuse("That message does not exist");
      throw err;
    }
  },
  { revalidate: "/inbound" },
);

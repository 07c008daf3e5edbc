"use server";

import { z } from "zod";
import { ApiRequestError } from "@/lib/dashboard/public-api";
import { refuse, staffAction } from "@/lib/dashboard/action";
import { apiFor } from "@/lib/dashboard/api-for";

/**
 * Scheduled sends of the account (docs/contract.md §15): cancel goes through
 * the public API as the account (POST /email/{MessageID}/cancel), with the
 * account's key, server-side.
 */

const messageId = z.uuid({ error: "Not a message id" });

export const cancelScheduledAction = staffAction(
  "scheduled",
  messageId,
  async (id, access) => {
    try {
      const { Status } = await (await apiFor(access, "scheduled")).cancelEmail(id);
      return { status: Status };
    } catch (err) {
      if (err instanceof ApiRequestError && err.status === 409) refuse("Too late: delivery of this message has already started");
      if (err instanceof ApiRequestError && err.status === 404) refuse("That message does not exist");
      throw err;
    }
  },
  { revalidate: "/scheduled" },
);

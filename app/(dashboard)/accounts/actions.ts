"use server";

import { z } from "zod";
import { ownerAction } from "@/lib/dashboard/action";
import { createAccountAsOwner, endSessionsAsOwner, setDailyLimitAsOwner, setStatusAsOwner } from "@/lib/dashboard/accounts";

/** Accounts (owners only): create, suspend, activate, daily limit. */

export const createAccountAction = ownerAction(
  z.object({
    name: z.string().trim().min(1, "Enter a name").max(200, "At most 200 characters"),
    plan: z.string().trim().min(1, "Choose a plan").max(40),
    domain: z.string().trim().max(253).optional(),
  }),
  (input, owner) => createAccountAsOwner(owner, input),
);

export const setAccountStatusAction = ownerAction(
  z.object({ accountId: z.uuid("Not an account id"), status: z.enum(["active", "suspended"]) }),
  (input, owner) => setStatusAsOwner(owner, input.accountId, input.status),
);

export const setDailyLimitAction = ownerAction(
  z.object({
    accountId: z.uuid("Not an account id"),
    // Empty: back to the plan's limit.
    perDay: z
      .string()
      .trim()
      .max(12)
      .regex(/^\d*$/, "A whole number ≥ 0, or empty for the plan's limit")
      .transform((v) => (v === "" ? null : Number(v))),
  }),
  (input, owner) => setDailyLimitAsOwner(owner, input.accountId, input.perDay),
);

/** Ends every dashboard session of a staff user (owners only; docs/adr/0507). */
export const endSessionsAction = ownerAction(z.object({ email: z.string().trim().min(1, "Enter an email").max(254, "At most 254 characters") }), (input, owner) =>
  endSessionsAsOwner(owner, input.email),
);
